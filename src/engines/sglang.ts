import {
  COMMON_OPTIONS,
  aggregatedOnly,
  clientSettings,
  commonProblems,
  dpRanks,
  engineProcess,
  kvCacheDtype,
  modelsProbe,
  mtpTokens,
  noContextParallel,
  onlyWorker,
  optArgs,
  optBool,
  optNumber,
  optionProblems,
  parseCommonOptions,
  perRankBatch,
  processName,
  shapesOf,
  syntheticAl,
} from './common.js';
import type { OptionSpecs } from './common.js';
import type {
  Deployment,
  EngineAdapter,
  EngineProcess,
  Launch,
  Placement,
  Ports,
  WorkerPlacement,
  WorkerShape,
} from './types.js';

/**
 * SGLang's server, as InferenceX's single-node scripts start it
 * (SemiAnalysisAI/InferenceX benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh, dsr1_fp8_h200_mtp.sh):
 *
 *   python3 -m sglang.launch_server --model-path <path> --served-model-name <name>
 *     --host 0.0.0.0 --port <port> --tensor-parallel-size <tp> [--pipeline-parallel-size <pp>]
 *     [dp-attn: --data-parallel-size <tp> --enable-dp-attention] [--ep-size <ep>]
 *     --context-length <len> --max-running-requests <conc> --cuda-graph-max-bs <batch per DP rank>
 *     [--kv-cache-dtype fp8_e4m3] [--speculative-algorithm EAGLE …] --enable-metrics
 *
 * A worker spanning nodes runs the same command on each node with --dist-init-addr
 * <leader>:<port> --nnodes <n> --node-rank <r> (srt-slurm src/srtctl/backends/sglang.py
 * build_worker_command); only node rank 0 serves HTTP.
 */

export const SGLANG_OPTIONS: OptionSpecs = {
  ...COMMON_OPTIONS,
  'mem-fraction-static': {
    type: 'number',
    doc: 'SGLang --mem-fraction-static (fraction of GPU memory for weights and KV cache)',
  },
};

/** EAGLE steps for mtp: InferenceX dsr1_fp8_h200_mtp.sh (SPECULATIVE_NUM_STEPS=2, DRAFT_TOKENS=3, TOPK=1). */
const SGLANG_MTP_STEPS = 2;
export const sglangDraftTokens = (d: Deployment): number => mtpTokens(d, SGLANG_MTP_STEPS);

/** Checks SGLang makes of every worker shape (sglang and dynamo-sglang). */
export function sglangShapeProblems(d: Deployment): string[] {
  const problems: string[] = [...noContextParallel(d, 'SGLang')];
  for (const [name, w] of shapesOf(d)) {
    // The MoE expert-parallel group lives inside the TP group (server_args: tp_size % ep_size == 0).
    if (w.ep > w.tp || w.tp % w.ep !== 0)
      problems.push(
        `${name} ep ${w.ep}: SGLang's --ep-size must divide --tensor-parallel-size (${w.tp}); set ep to a divisor of tp`,
      );
  }
  return problems;
}

export function parseSglangOptions(d: Deployment): void {
  parseCommonOptions(d);
  optNumber(d, 'mem-fraction-static');
  optBool(d, 'trust-remote-code');
  optNumber(d, 'mtp-tokens');
}

/** SGLang server arguments of one worker, shared by `sglang.launch_server` and `dynamo.sglang`. */
export function sglangEngineArgs(d: Deployment, w: WorkerShape): string[] {
  const args = ['--tensor-parallel-size', String(w.tp)];
  if (w.pp > 1) args.push('--pipeline-parallel-size', String(w.pp));
  // DP attention as InferenceX runs it: --data-parallel-size="$TP" --enable-dp-attention.
  if (w.dpAttn) args.push('--data-parallel-size', String(dpRanks(w)), '--enable-dp-attention');
  if (w.ep > 1) args.push('--ep-size', String(w.ep));
  // --max-running-requests is the server's total (SGLang divides it among DP ranks);
  // CUDA graphs are captured per rank.
  args.push(
    '--context-length',
    String(d.maxModelLen),
    '--max-running-requests',
    String(Math.max(1, d.maxConcurrency)),
    '--cuda-graph-max-bs',
    String(perRankBatch(d, w)),
  );
  const kv = kvCacheDtype(d);
  // SGLang spells the fp8 KV cache fp8_e4m3 (InferenceX --kv-cache-dtype fp8_e4m3).
  if (kv !== undefined) args.push('--kv-cache-dtype', kv === 'fp8' ? 'fp8_e4m3' : kv);
  if (d.specDecoding === 'mtp') {
    const steps = sglangDraftTokens(d);
    args.push(
      '--speculative-algorithm',
      'EAGLE',
      '--speculative-num-steps',
      String(steps),
      '--speculative-eagle-topk',
      '1',
      '--speculative-num-draft-tokens',
      String(steps + 1),
    );
  }
  const mem = optNumber(d, 'mem-fraction-static');
  if (mem !== undefined) args.push('--mem-fraction-static', String(mem));
  if (optBool(d, 'trust-remote-code')) args.push('--trust-remote-code');
  return args;
}

/** SGLang's simulated acceptance, as InferenceX's injector sets it in every worker environment (runners/synthetic_injectors/sglang.py). */
export function sglangSyntheticEnv(d: Deployment): Record<string, string> {
  if (d.specDecoding !== 'mtp' || !d.syntheticAcceptance) return {};
  return {
    SGLANG_SIMULATE_ACC_LEN: String(syntheticAl(d.syntheticAcceptance, sglangDraftTokens(d))),
    SGLANG_SIMULATE_ACC_METHOD: 'match-expected',
    SGLANG_SIMULATE_ACC_TOKEN_MODE: 'real-draft-token',
  };
}

/** --dist-init-addr/--nnodes/--node-rank for node `k` of a worker spanning nodes (none on one node). */
export function sglangNodeArgs(worker: WorkerPlacement, k: number, distInitPort: number | undefined): string[] {
  if (worker.hosts.length < 2) return [];
  return [
    '--dist-init-addr',
    `${worker.hosts[0]}:${distInitPort}`,
    '--nnodes',
    String(worker.hosts.length),
    '--node-rank',
    String(k),
  ];
}

export const sglang: EngineAdapter = {
  frameworks: ['sglang'],

  check(d) {
    return [
      ...commonProblems(d, this.frameworks),
      ...aggregatedOnly(d, 'SGLang', 'dynamo-sglang'),
      ...(d.layout.kind === 'aggregated' ? sglangShapeProblems(d) : []),
      ...optionProblems(d, SGLANG_OPTIONS, parseSglangOptions),
    ];
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    if (d.layout.kind !== 'aggregated') throw new Error(aggregatedOnly(d, 'SGLang', 'dynamo-sglang')[0]);
    const w = d.layout.worker;
    const worker = onlyWorker(placement, 'SGLang');
    const leader = worker.hosts[0]!;
    const port = ports.next(leader);
    const distInitPort = worker.hosts.length > 1 ? ports.next(leader) : undefined;
    const engine = sglangEngineArgs(d, w);
    const extra = optArgs(d, 'extra-args');
    const processes: EngineProcess[] = worker.hosts.map((host, k) =>
      engineProcess(d, {
        name: processName('server', k),
        role: 'server',
        host,
        gpus: worker.gpus[k] ?? [],
        command: [
          'python3',
          '-m',
          'sglang.launch_server',
          '--model-path',
          d.modelPath,
          '--served-model-name',
          d.servedModelName,
          '--host',
          '0.0.0.0',
          '--port',
          String(port),
          ...engine,
          ...sglangNodeArgs(worker, k, distInitPort),
          '--enable-metrics',
          ...extra,
        ],
        env: sglangSyntheticEnv(d),
        ...(k === 0 ? { port, ready: [{ path: '/health' }] } : {}),
      }),
    );
    return {
      processes,
      endpoint: { host: leader, port },
      ready: [{ path: '/health' }, modelsProbe(d.servedModelName)],
      metricsPath: '/metrics',
      client: clientSettings(d, true, () => sglangDraftTokens(d)),
    };
  },
};
