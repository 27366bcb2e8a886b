import { DYNAMO_OPTIONS, dynamoLaunch, dynamoProblems } from './dynamo.js';
import type { DynamoEngine, WorkerContext } from './dynamo.js';
import type { OptionSpecs } from './common.js';
import {
  SGLANG_OPTIONS,
  parseSglangOptions,
  sglangEngineArgs,
  sglangNodeArgs,
  sglangShapeProblems,
  sglangDraftTokens,
  sglangSyntheticEnv,
} from './sglang.js';
import type { Deployment, EngineAdapter, Launch, Placement, Ports } from './types.js';

/**
 * SGLang under Dynamo, as srt-slurm launches it (NVIDIA/srt-slurm src/srtctl/backends/sglang.py
 * build_worker_command, frontend dynamo):
 *
 *   python3 -m dynamo.sglang --model-path <path> --served-model-name <name> --host 0.0.0.0
 *     --port <port> --nccl-port <port>
 *     [--disaggregation-mode prefill|decode --disaggregation-transfer-backend nixl
 *      [prefill: --disaggregation-bootstrap-port <port>]]
 *     [--dist-init-addr <leader>:<port> --nnodes <n> --node-rank <r>]
 *     <SGLang server arguments, as for sglang.launch_server>
 *
 * srt-slurm passes a distinct --port and --nccl-port per process because SGLang's defaults probe
 * for free ports and race when several workers start on one node, and always passes the prefill
 * bootstrap port because the default (8998) collides on the head. The transfer backend comes
 * from the catalog's kv-p2p-transfer (nixl or mooncake; SGLang's DISAGG_TRANSFER_BACKEND_CHOICES).
 */

export const DYNAMO_SGLANG_OPTIONS: OptionSpecs = {
  ...DYNAMO_OPTIONS,
  'mem-fraction-static': SGLANG_OPTIONS['mem-fraction-static']!,
};

/** kv-p2p-transfer values and SGLang's --disaggregation-transfer-backend for them. */
const TRANSFER_BACKENDS: Record<string, string> = { nixl: 'nixl', mooncake: 'mooncake', mori: 'mori' };

const engine: DynamoEngine = {
  name: 'dynamo-sglang',
  draftTokens: sglangDraftTokens,

  prepare({ worker, ports }: WorkerContext): number | undefined {
    return worker.hosts.length > 1 ? ports.next(worker.hosts[0]!) : undefined;
  },

  node(ctx: WorkerContext, rank: number, host: string, shared: unknown) {
    const { d, shape, worker, mode, ports } = ctx;
    const command = [
      'python3',
      '-m',
      'dynamo.sglang',
      '--model-path',
      d.modelPath,
      '--served-model-name',
      d.servedModelName,
      '--host',
      '0.0.0.0',
      '--port',
      String(ports.next(host)),
      '--nccl-port',
      String(ports.next(host)),
    ];
    if (mode !== undefined) {
      command.push(
        '--disaggregation-mode',
        mode,
        '--disaggregation-transfer-backend',
        TRANSFER_BACKENDS[d.kvTransfer ?? 'nixl'] ?? 'nixl',
      );
      if (mode === 'prefill') command.push('--disaggregation-bootstrap-port', String(ports.next(host)));
    }
    command.push(...sglangNodeArgs(worker, rank, shared as number | undefined), ...sglangEngineArgs(d, shape), ...ctx.tail);
    return { command, env: sglangSyntheticEnv(d) };
  },
};

export const dynamoSglang: EngineAdapter = {
  frameworks: ['dynamo-sglang'],

  check(d) {
    const problems = [
      ...dynamoProblems(d, this.frameworks, DYNAMO_SGLANG_OPTIONS, parseSglangOptions),
      ...sglangShapeProblems(d),
    ];
    if (d.layout.kind === 'disaggregated' && TRANSFER_BACKENDS[d.kvTransfer ?? 'nixl'] === undefined)
      problems.push(
        `kv-p2p-transfer ${d.kvTransfer}: SGLang's --disaggregation-transfer-backend takes ${Object.keys(TRANSFER_BACKENDS).join(', ')}; use one of them`,
      );
    return problems;
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    return dynamoLaunch(d, placement, ports, engine);
  },
};
