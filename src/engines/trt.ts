import {
  COMMON_OPTIONS,
  aggregatedOnly,
  clientSettings,
  commonProblems,
  engineProcess,
  json,
  kvCacheDtype,
  merge,
  modelsProbe,
  mtpTokens,
  noContextParallel,
  onlyWorker,
  optArgs,
  optBool,
  optJsonObject,
  optNumber,
  optString,
  optionProblems,
  parseCommonOptions,
  perRankBatch,
  shapesOf,
  syntheticAl,
} from './common.js';
import type { OptionSpecs } from './common.js';
import type { Deployment, EngineAdapter, Launch, Placement, Ports, WorkerPlacement, WorkerShape } from './types.js';

/**
 * TensorRT-LLM's OpenAI server, as InferenceX's single-node scripts start it
 * (SemiAnalysisAI/InferenceX benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200_trt.sh,
 * dsr1_fp8_b200_trt_mtp.sh, gptoss_fp4_h200_trt.sh):
 *
 *   mpirun -n 1 --oversubscribe --allow-run-as-root trtllm-serve <path> --host 0.0.0.0
 *     --port <port> --backend pytorch --tp_size <tp> --pp_size <pp> --ep_size <ep>
 *     --max_batch_size <batch per DP rank> --max_num_tokens <n> --max_seq_len <len>
 *     --extra_llm_api_options <file>
 *
 * The file (LLM API options: CUDA graphs, attention DP, KV dtype, MTP) is what the scripts
 * write with a heredoc; here its content travels in FRONTIER_EXTRA_LLM_API_OPTIONS (JSON, which
 * the server's yaml.safe_load reads as YAML) and `bash -c` writes it to a mktemp file on the
 * node, so the command needs nothing prepared beforehand. Option `extra-llm-api-config` names a
 * file on the nodes to use instead.
 *
 * trtllm-serve has no served-name option (tensorrt_llm/commands/serve.py): /v1/models lists the
 * model directory's name, or the name it was given (tensorrt_llm/serve/openai_server.py), so
 * readiness looks for the last segment of the model path. Its /metrics is JSON iteration stats;
 * Prometheus metrics are at /prometheus/metrics only with return_perf_metrics (option
 * `prometheus-metrics`).
 */

export const TRT_OPTIONS: OptionSpecs = {
  ...COMMON_OPTIONS,
  'kv-cache-free-gpu-memory-fraction': {
    type: 'number',
    doc: 'trtllm-serve --kv_cache_free_gpu_memory_fraction (free memory after weights given to the KV cache)',
  },
  'llm-api-options': {
    type: 'string',
    doc: 'a JSON object merged over the rendered LLM API options, e.g. {"moe_config":{"backend":"TRTLLM"}}',
  },
  'extra-llm-api-config': {
    type: 'string',
    doc: 'a YAML file on the nodes used as --extra_llm_api_options instead of the rendered options',
  },
  mpirun: {
    type: 'boolean',
    doc: 'wrap trtllm-serve in mpirun -n 1 --oversubscribe --allow-run-as-root as InferenceX does (default true)',
  },
  'prometheus-metrics': {
    type: 'boolean',
    doc: 'set return_perf_metrics so trtllm-serve serves Prometheus metrics at /prometheus/metrics (off by default: it costs time)',
  },
};

/** What trtllm-serve's /v1/models lists for a model path: its last segment is in it either way. */
export const modelId = (path: string): string => path.replace(/\/+$/, '').split('/').pop() ?? path;

/** The environment variable carrying the rendered LLM API options to the node. */
export const LLM_API_ENV = 'FRONTIER_EXTRA_LLM_API_OPTIONS';

/** Writes $FRONTIER_EXTRA_LLM_API_OPTIONS to a temp file and runs "$@" with it (no single quotes inside). */
const WRITE_AND_RUN = `f=$(mktemp) && printf "%s\\n" "$${LLM_API_ENV}" >"$f" && exec "$@" --extra_llm_api_options "$f"`;

/** MTP layers: InferenceX dsr1_fp8_b200_trt_mtp.sh uses MTP=3, and MTP=1 with attention DP. */
export const trtMtpLayers = (d: Deployment, w: WorkerShape): number => mtpTokens(d, w.dpAttn ? 1 : 3);

/**
 * TensorRT-LLM's forced acceptance: accepted draft tokens per step, the golden AL minus the
 * verified token (golden_al_distribution/README.md).
 */
export function trtSyntheticEnv(d: Deployment, w: WorkerShape): Record<string, string> {
  if (d.specDecoding !== 'mtp' || !d.syntheticAcceptance) return {};
  const al = syntheticAl(d.syntheticAcceptance, trtMtpLayers(d, w));
  return { TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: String(Number((al - 1).toFixed(4))) };
}

/** Checks TRT-LLM makes of every worker shape (trt and dynamo-trt). */
export function trtShapeProblems(d: Deployment): string[] {
  const problems: string[] = [...noContextParallel(d, 'TensorRT-LLM')];
  for (const [name, w] of shapesOf(d)) {
    // moe_tp_size × moe_ep_size = tp_size in TRT-LLM's Mapping.
    if (w.ep > w.tp || w.tp % w.ep !== 0)
      problems.push(`${name} ep ${w.ep}: TensorRT-LLM's expert parallelism must divide tp (${w.tp}); set ep to a divisor of tp`);
  }
  return problems;
}

export function parseTrtOptions(d: Deployment): void {
  parseCommonOptions(d);
  optJsonObject(d, 'llm-api-options');
  optNumber(d, 'kv-cache-free-gpu-memory-fraction');
  optNumber(d, 'mtp-tokens');
  optBool(d, 'trust-remote-code');
  optBool(d, 'mpirun');
  optBool(d, 'prometheus-metrics');
}

/** `--max_num_tokens`: InferenceX's ((MTP+1)·batch + ISL + 64 + 63)/64·64, at least 8192. */
export function trtMaxNumTokens(d: Deployment, w: WorkerShape): number {
  const mtp = d.specDecoding === 'mtp' ? trtMtpLayers(d, w) : 0;
  return Math.max(8192, Math.floor(((mtp + 1) * perRankBatch(d, w) + d.isl + 64 + 63) / 64) * 64);
}

/**
 * LLM API options of one worker beyond what trtllm-serve takes as flags, with the
 * `llm-api-options` option merged over them. Keys as in InferenceX's heredocs and srt-slurm's
 * trtllm_config (cuda_graph_config, enable_attention_dp, kv_cache_config, speculative_config).
 */
export function llmApiOptions(d: Deployment, w: WorkerShape, base: Record<string, unknown> = {}): Record<string, unknown> {
  const o: Record<string, unknown> = { ...base };
  o.cuda_graph_config = { enable_padding: true, max_batch_size: perRankBatch(d, w) };
  o.enable_attention_dp = w.dpAttn;
  const kv: Record<string, unknown> = {};
  const dtype = kvCacheDtype(d);
  if (dtype !== undefined) kv.dtype = dtype;
  const fraction = optNumber(d, 'kv-cache-free-gpu-memory-fraction');
  if (fraction !== undefined) kv.free_gpu_memory_fraction = fraction;
  if (Object.keys(kv).length > 0) o.kv_cache_config = kv;
  if (d.specDecoding === 'mtp') o.speculative_config = { decoding_type: 'MTP', num_nextn_predict_layers: trtMtpLayers(d, w) };
  return merge(o, optJsonObject(d, 'llm-api-options') ?? {});
}

/** TRT-LLM runs a multi-node worker as one MPI job (srun --mpi pmix, trtllm-llmapi-launch). */
export function singleNode(worker: WorkerPlacement, engine: string): void {
  if (worker.hosts.length > 1)
    throw new Error(
      `${engine}: the ${worker.role} worker ${worker.index} spans ${worker.hosts.length} nodes; TensorRT-LLM starts such a worker as one MPI job across them (srun --mpi=pmix, trtllm-llmapi-launch), which a per-node process cannot express: use a worker within one node`,
    );
}

export const trt: EngineAdapter = {
  frameworks: ['trt'],

  check(d) {
    return [
      ...commonProblems(d, this.frameworks),
      ...aggregatedOnly(d, 'TensorRT-LLM (trtllm-serve)', 'dynamo-trt'),
      ...(d.layout.kind === 'aggregated' ? trtShapeProblems(d) : []),
      ...optionProblems(d, TRT_OPTIONS, parseTrtOptions),
    ];
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    if (d.layout.kind !== 'aggregated') throw new Error(aggregatedOnly(d, 'TensorRT-LLM (trtllm-serve)', 'dynamo-trt')[0]);
    const w = d.layout.worker;
    const worker = onlyWorker(placement, 'TensorRT-LLM');
    singleNode(worker, 'TensorRT-LLM');
    const host = worker.hosts[0]!;
    const port = ports.next(host);
    const fraction = optNumber(d, 'kv-cache-free-gpu-memory-fraction');
    const serve = [
      'trtllm-serve',
      d.modelPath,
      '--host',
      '0.0.0.0',
      '--port',
      String(port),
      '--backend',
      'pytorch',
      '--tp_size',
      String(w.tp),
      '--pp_size',
      String(w.pp),
      '--ep_size',
      String(w.ep),
      '--max_batch_size',
      String(perRankBatch(d, w)),
      '--max_num_tokens',
      String(trtMaxNumTokens(d, w)),
      '--max_seq_len',
      String(d.maxModelLen),
      ...(fraction === undefined ? [] : ['--kv_cache_free_gpu_memory_fraction', String(fraction)]),
      ...(optBool(d, 'trust-remote-code') ? ['--trust_remote_code'] : []),
      ...optArgs(d, 'extra-args'),
    ];
    const mpirun =
      d.options.mpirun === undefined || optBool(d, 'mpirun')
        ? ['mpirun', '-n', '1', '--oversubscribe', '--allow-run-as-root']
        : [];
    const configFile = optString(d, 'extra-llm-api-config');
    const command =
      configFile === undefined
        ? ['bash', '-c', WRITE_AND_RUN, 'bash', ...mpirun, ...serve]
        : [...mpirun, ...serve, '--extra_llm_api_options', configFile];
    const prometheus = optBool(d, 'prometheus-metrics');
    const options = llmApiOptions(d, w, prometheus ? { return_perf_metrics: true } : {});
    const env: Record<string, string> = {
      ...(configFile === undefined ? { [LLM_API_ENV]: json(options) } : {}),
      ...trtSyntheticEnv(d, w),
    };
    return {
      processes: [
        engineProcess(d, {
          name: 'server',
          role: 'server',
          host,
          gpus: worker.gpus[0] ?? [],
          command,
          env,
          port,
          ready: [{ path: '/health' }],
        }),
      ],
      endpoint: { host, port },
      ready: [{ path: '/health' }, modelsProbe(modelId(d.modelPath))],
      ...(prometheus ? { metricsPath: '/prometheus/metrics' } : {}),
      client: clientSettings(d, false, (w) => trtMtpLayers(d, w)),
    };
  },
};
