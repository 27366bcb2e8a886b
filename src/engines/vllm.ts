import {
  COMMON_OPTIONS,
  aggregatedOnly,
  clientSettings,
  commonProblems,
  dpRanks,
  engineProcess,
  json,
  kvCacheDtype,
  modelsProbe,
  mtpTokens,
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
 * vLLM's OpenAI server, `vllm serve`, as InferenceX's single-node scripts start it
 * (SemiAnalysisAI/InferenceX benchmarks/single_node/fixed_seq_len/*_vllm.sh, gptoss_fp4_h200.sh):
 *
 *   vllm serve <model path> --served-model-name <name> --host 0.0.0.0 --port <port>
 *     --tensor-parallel-size <tp> [--pipeline-parallel-size <pp>]
 *     [dp-attn: --tensor-parallel-size 1 --data-parallel-size <tp>] [--enable-expert-parallel]
 *     --max-model-len <len> --max-num-seqs <batch per DP rank> [--kv-cache-dtype fp8]
 *     [--speculative-config {"method":"mtp",…}]
 *
 * A worker spanning nodes runs one `vllm serve` per node, as vLLM documents
 * (vllm-project/vllm docs/serving/data_parallel_deployment.md, parallelism_scaling.md): with
 * dp-attn, DP ranks per node (--data-parallel-size-local, --data-parallel-start-rank,
 * --data-parallel-address, --data-parallel-rpc-port, --headless on the other nodes); without,
 * one TP/PP group across nodes (--nnodes, --node-rank, --master-addr, --headless).
 */

export const VLLM_OPTIONS: OptionSpecs = {
  ...COMMON_OPTIONS,
  'gpu-memory-utilization': { type: 'number', doc: 'vLLM --gpu-memory-utilization (fraction of each GPU vLLM may use)' },
};

/** Speculative tokens per step for mtp: InferenceX's *_vllm_mtp.sh scripts use 2 (NUM_SPEC_TOKENS=2). */
const VLLM_MTP_TOKENS = 2;
export const vllmDraftTokens = (d: Deployment): number => mtpTokens(d, VLLM_MTP_TOKENS);

/** Checks vLLM makes of every worker shape (vllm and dynamo-vllm). */
export function vllmShapeProblems(d: Deployment): string[] {
  const problems: string[] = [];
  for (const [name, w] of shapesOf(d)) {
    // vLLM has no expert-parallel size: --enable-expert-parallel makes the MoE group DP×TP.
    if (w.ep > 1 && w.ep !== w.tp)
      problems.push(
        `${name} ep ${w.ep}: vLLM's expert-parallel size is always DP×TP (${w.tp} here) with --enable-expert-parallel; set ep to 1 or ${w.tp}`,
      );
    // Decode context parallelism splits the KV cache within a TP group (vllm ParallelConfig).
    const rankTp = w.dpAttn ? 1 : w.tp;
    if (w.dcp > 1 && rankTp % w.dcp !== 0)
      problems.push(
        `${name} dcp ${w.dcp}: vLLM splits decode context within a TP group of ${rankTp}${w.dpAttn ? ' (dp-attn runs TP 1 per rank)' : ''}; set dcp to a divisor of ${rankTp}`,
      );
  }
  return problems;
}

/** Parse the vLLM options as `launch` reads them (for `check`). */
export function parseVllmOptions(d: Deployment): void {
  parseCommonOptions(d);
  optNumber(d, 'gpu-memory-utilization');
  optBool(d, 'trust-remote-code');
  optNumber(d, 'mtp-tokens');
}

/**
 * vLLM engine arguments of one worker: parallelism, lengths, batch, KV dtype, speculation. The
 * same for `vllm serve` and `python3 -m dynamo.vllm` (which takes vLLM's engine arguments).
 */
export function vllmEngineArgs(d: Deployment, w: WorkerShape): string[] {
  const dp = dpRanks(w);
  const args = ['--tensor-parallel-size', String(w.dpAttn ? 1 : w.tp)];
  if (w.pp > 1) args.push('--pipeline-parallel-size', String(w.pp));
  // DEP as InferenceX runs it: PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
  // when DP_ATTENTION=true (benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_vllm.sh).
  if (dp > 1) args.push('--data-parallel-size', String(dp));
  if (w.ep > 1) args.push('--enable-expert-parallel');
  if (w.dcp > 1) args.push('--decode-context-parallel-size', String(w.dcp));
  if (w.pcp > 1) args.push('--prefill-context-parallel-size', String(w.pcp));
  // --max-num-seqs applies per DP rank (data_parallel_deployment.md).
  args.push('--max-model-len', String(d.maxModelLen), '--max-num-seqs', String(perRankBatch(d, w)));
  const kv = kvCacheDtype(d);
  if (kv !== undefined) args.push('--kv-cache-dtype', kv);
  if (d.specDecoding === 'mtp') {
    const n = vllmDraftTokens(d);
    // Synthetic acceptance as InferenceX's injector writes it (runners/synthetic_injectors/vllm.py).
    const synthetic = d.syntheticAcceptance
      ? { rejection_sample_method: 'synthetic', synthetic_acceptance_length: syntheticAl(d.syntheticAcceptance, n) }
      : {};
    args.push('--speculative-config', json({ method: 'mtp', num_speculative_tokens: n, ...synthetic }));
  }
  const gmu = optNumber(d, 'gpu-memory-utilization');
  if (gmu !== undefined) args.push('--gpu-memory-utilization', String(gmu));
  if (optBool(d, 'trust-remote-code')) args.push('--trust-remote-code');
  return args;
}

/** DP ranks on each node of a worker with dp-attn (each rank: pp × pcp GPUs at TP 1). */
export function localDpRanks(w: WorkerShape, placement: WorkerPlacement, engine: string): number[] {
  const rankGpus = w.pp * w.pcp;
  return placement.gpus.map((gpus, k) => {
    if (gpus.length % rankGpus !== 0)
      throw new Error(
        `${engine}: node ${placement.hosts[k]} holds ${gpus.length} GPUs of the worker, not a whole number of DP ranks of ${rankGpus} GPUs; a DP rank cannot span nodes here`,
      );
    return gpus.length / rankGpus;
  });
}

export const vllm: EngineAdapter = {
  frameworks: ['vllm'],

  check(d) {
    return [
      ...commonProblems(d, this.frameworks),
      ...aggregatedOnly(d, 'vLLM', 'dynamo-vllm'),
      ...(d.layout.kind === 'aggregated' ? vllmShapeProblems(d) : []),
      ...optionProblems(d, VLLM_OPTIONS, parseVllmOptions),
    ];
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    if (d.layout.kind !== 'aggregated') throw new Error(aggregatedOnly(d, 'vLLM', 'dynamo-vllm')[0]);
    const w = d.layout.worker;
    const worker = onlyWorker(placement, 'vLLM');
    const leader = worker.hosts[0]!;
    const port = ports.next(leader);
    const engine = vllmEngineArgs(d, w);
    const extra = optArgs(d, 'extra-args');
    const multiNode = worker.hosts.length > 1;
    const rpcPort = multiNode && w.dpAttn ? ports.next(leader) : undefined;
    const local = multiNode && w.dpAttn ? localDpRanks(w, worker, 'vLLM') : [];
    const processes: EngineProcess[] = worker.hosts.map((host, k) => {
      const serve = ['vllm', 'serve', d.modelPath, '--served-model-name', d.servedModelName];
      if (k === 0) serve.push('--host', '0.0.0.0', '--port', String(port));
      const nodes: string[] = [];
      if (multiNode && w.dpAttn) {
        if (k > 0) nodes.push('--headless');
        nodes.push('--data-parallel-size-local', String(local[k]));
        if (k > 0) nodes.push('--data-parallel-start-rank', String(local.slice(0, k).reduce((a, b) => a + b, 0)));
        nodes.push('--data-parallel-address', leader, '--data-parallel-rpc-port', String(rpcPort));
      } else if (multiNode) {
        nodes.push('--nnodes', String(worker.hosts.length), '--node-rank', String(k), '--master-addr', leader);
        if (k > 0) nodes.push('--headless');
      }
      return engineProcess(d, {
        name: processName('server', k),
        role: 'server',
        host,
        gpus: worker.gpus[k] ?? [],
        command: [...serve, ...engine, ...nodes, ...extra],
        env: {},
        ...(k === 0 ? { port, ready: [{ path: '/health' }] } : {}),
      });
    });
    return {
      processes,
      endpoint: { host: leader, port },
      ready: [{ path: '/health' }, modelsProbe(d.servedModelName)],
      metricsPath: '/metrics',
      client: clientSettings(d, true, () => vllmDraftTokens(d)),
    };
  },
};
