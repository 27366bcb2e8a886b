import { dpRanks, json, optJsonObject, optString } from './common.js';
import { DYNAMO_OPTIONS, dynamoLaunch, dynamoProblems } from './dynamo.js';
import type { DynamoEngine, WorkerContext } from './dynamo.js';
import type { OptionSpecs } from './common.js';
import type { Deployment, EngineAdapter, Launch, Placement, Ports } from './types.js';
import { VLLM_OPTIONS, localDpRanks, parseVllmOptions, vllmDraftTokens, vllmEngineArgs, vllmShapeProblems } from './vllm.js';

/**
 * vLLM under Dynamo, as srt-slurm launches it (NVIDIA/srt-slurm src/srtctl/backends/vllm.py
 * build_worker_command, dp_launch_mode per_node):
 *
 *   python3 -m dynamo.vllm --model <path> --served-model-name <name>
 *     [--disaggregation-mode prefill|decode
 *      --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_both"}]
 *     <vLLM engine arguments, as for vllm serve>
 *     [DP: --data-parallel-size-local <ranks on this node> --data-parallel-start-rank <first>
 *          --data-parallel-address <leader> --data-parallel-rpc-port <port> --data-parallel-hybrid-lb]
 *     [TP/PP across nodes: --master-addr <leader> --nnodes <n> --node-rank <r> [--headless]]
 *
 * with VLLM_NIXL_SIDE_CHANNEL_PORT/HOST per process for the NIXL handshake (a block of one port
 * per DP rank: vLLM binds base + DP rank). srt-slurm notes that Dynamo ≥ 1.0 replaced
 * --is-prefill-worker/--is-decode-worker with --disaggregation-mode and --connector with
 * --kv-transfer-config; this renders the current flags.
 */

export const DYNAMO_VLLM_OPTIONS: OptionSpecs = {
  ...DYNAMO_OPTIONS,
  'gpu-memory-utilization': VLLM_OPTIONS['gpu-memory-utilization']!,
  'kv-transfer-config': {
    type: 'string',
    doc: 'the --kv-transfer-config JSON of prefill and decode workers (default NixlConnector, kv_both)',
  },
};

/** srt-slurm's connector table: nixl → NixlConnector with kv_role kv_both. */
const CONNECTORS: Record<string, { kv_connector: string; kv_role: string }> = {
  nixl: { kv_connector: 'NixlConnector', kv_role: 'kv_both' },
};

function kvTransferConfig(d: Deployment): string {
  const custom = optString(d, 'kv-transfer-config');
  if (custom !== undefined) return json(optJsonObject(d, 'kv-transfer-config'));
  const connector = CONNECTORS[d.kvTransfer ?? 'nixl'];
  if (connector === undefined) throw new Error(`dynamo-vllm has no connector for kv-p2p-transfer ${d.kvTransfer}`);
  return json(connector);
}

interface Shared {
  rpcPort?: number;
  local?: number[];
}

const engine: DynamoEngine = {
  name: 'dynamo-vllm',
  draftTokens: vllmDraftTokens,

  prepare({ shape, worker, ports }: WorkerContext): Shared {
    if (dpRanks(shape) <= 1) return {};
    return { rpcPort: ports.next(worker.hosts[0]!), local: localDpRanks(shape, worker, 'dynamo-vllm') };
  },

  node(ctx: WorkerContext, rank: number, host: string, shared: unknown) {
    const { d, shape, worker, mode, ports } = ctx;
    const { rpcPort, local } = shared as Shared;
    const leader = worker.hosts[0]!;
    const command = ['python3', '-m', 'dynamo.vllm', '--model', d.modelPath, '--served-model-name', d.servedModelName];
    const env: Record<string, string> = {};
    if (mode !== undefined) {
      command.push('--disaggregation-mode', mode, '--kv-transfer-config', kvTransferConfig(d));
      // One side-channel port per DP rank (vLLM adds the global DP rank to the base).
      const block = Array.from({ length: dpRanks(shape) }, () => ports.next(host));
      env.VLLM_NIXL_SIDE_CHANNEL_PORT = String(block[0]);
      env.VLLM_NIXL_SIDE_CHANNEL_HOST = host;
    }
    command.push(...vllmEngineArgs(d, shape));
    if (local !== undefined) {
      // Per-node DP with hybrid load balancing: every node's process registers its own ranks.
      command.push(
        '--data-parallel-size-local',
        String(local[rank]),
        '--data-parallel-start-rank',
        String(local.slice(0, rank).reduce((a, b) => a + b, 0)),
        '--data-parallel-address',
        leader,
        '--data-parallel-rpc-port',
        String(rpcPort),
        '--data-parallel-hybrid-lb',
      );
    } else if (worker.hosts.length > 1) {
      command.push('--master-addr', leader, '--nnodes', String(worker.hosts.length), '--node-rank', String(rank));
      if (rank > 0) command.push('--headless');
    }
    command.push(...ctx.tail);
    return { command, env };
  },
};

export const dynamoVllm: EngineAdapter = {
  frameworks: ['dynamo-vllm'],

  check(d) {
    const parse = (x: Deployment): void => {
      parseVllmOptions(x);
      optJsonObject(x, 'kv-transfer-config');
    };
    const problems = [...dynamoProblems(d, this.frameworks, DYNAMO_VLLM_OPTIONS, parse), ...vllmShapeProblems(d)];
    if (
      d.layout.kind === 'disaggregated' &&
      d.options['kv-transfer-config'] === undefined &&
      CONNECTORS[d.kvTransfer ?? 'nixl'] === undefined
    )
      problems.push(
        `kv-p2p-transfer ${d.kvTransfer}: dynamo-vllm knows nixl (NixlConnector); use nixl, or set option kv-transfer-config to the connector's --kv-transfer-config JSON`,
      );
    return problems;
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    return dynamoLaunch(d, placement, ports, engine);
  },
};
