import { json, optBool, optString, perRankBatch } from './common.js';
import { DYNAMO_OPTIONS, dynamoLaunch, dynamoProblems } from './dynamo.js';
import type { DynamoEngine, WorkerContext } from './dynamo.js';
import type { OptionSpecs } from './common.js';
import {
  TRT_OPTIONS,
  llmApiOptions,
  parseTrtOptions,
  singleNode,
  trtMaxNumTokens,
  trtShapeProblems,
  trtMtpLayers,
  trtSyntheticEnv,
} from './trt.js';
import type { Deployment, EngineAdapter, Launch, Placement, Ports } from './types.js';

/**
 * TensorRT-LLM under Dynamo:
 *
 *   python3 -m dynamo.trtllm --model-path <path> --served-model-name <name>
 *     [--disaggregation-mode prefill|decode] [--extra-engine-args <yaml>]
 *     --override-engine-args <JSON engine arguments>
 *
 * srt-slurm (NVIDIA/srt-slurm src/srtctl/backends/trtllm.py) writes the worker's trtllm_config to
 * a YAML file for --extra-engine-args; the same dictionary goes here as --override-engine-args
 * JSON (ai-dynamo/dynamo components/src/dynamo/trtllm/backend_args.py: "Python dictionary string
 * to override specific engine arguments"), so nothing has to be written on the node first. Its keys
 * are srt-slurm's and Dynamo's example engine configs' (examples/backends/trtllm/engine_configs):
 * tensor_parallel_size, moe_expert_parallel_size, pipeline_parallel_size, enable_attention_dp,
 * max_batch_size, max_num_tokens, max_seq_len, cuda_graph_config, kv_cache_config,
 * speculative_config, cache_transceiver_config (disaggregated), disable_overlap_scheduler (prefill:
 * "Overlap scheduler not currently supported in prefill only workers").
 *
 * A worker is one process on one node, as in Dynamo's launch scripts
 * (examples/backends/trtllm/launch/disagg.sh); a worker across nodes is one MPI job in srt-slurm
 * (srun --mpi=pmix, trtllm-llmapi-launch), which the per-node process contract cannot express.
 */

export const DYNAMO_TRT_OPTIONS: OptionSpecs = {
  ...DYNAMO_OPTIONS,
  'kv-cache-free-gpu-memory-fraction': TRT_OPTIONS['kv-cache-free-gpu-memory-fraction']!,
  'llm-api-options': { type: 'string', doc: 'a JSON object merged over the rendered engine arguments (--override-engine-args)' },
  'extra-engine-args': {
    type: 'string',
    doc: 'a YAML file on the nodes passed as --extra-engine-args (the rendered JSON overrides it)',
  },
};

/** kv-p2p-transfer values and TRT-LLM's cache_transceiver_config.backend for them. */
const CACHE_TRANSCEIVERS: Record<string, string> = { nixl: 'NIXL', ucx: 'UCX' };

/** The engine arguments of one dynamo-trt worker, as --override-engine-args JSON. */
export function dynamoTrtEngineArgs(ctx: WorkerContext): Record<string, unknown> {
  const { d, shape, mode } = ctx;
  const base: Record<string, unknown> = {
    tensor_parallel_size: shape.tp,
    moe_expert_parallel_size: shape.ep,
    pipeline_parallel_size: shape.pp,
    max_batch_size: perRankBatch(d, shape),
    max_num_tokens: trtMaxNumTokens(d, shape),
    max_seq_len: d.maxModelLen,
  };
  if (optBool(d, 'trust-remote-code')) base.trust_remote_code = true;
  if (mode === 'prefill') base.disable_overlap_scheduler = true;
  if (mode !== undefined) base.cache_transceiver_config = { backend: CACHE_TRANSCEIVERS[d.kvTransfer ?? 'nixl'] ?? 'DEFAULT' };
  return llmApiOptions(d, shape, base);
}

const engine: DynamoEngine = {
  name: 'dynamo-trt',
  draftTokens: trtMtpLayers,

  prepare({ worker }: WorkerContext) {
    singleNode(worker, 'dynamo-trt');
  },

  node(ctx: WorkerContext) {
    const { d, mode } = ctx;
    const command = ['python3', '-m', 'dynamo.trtllm', '--model-path', d.modelPath, '--served-model-name', d.servedModelName];
    if (mode !== undefined) command.push('--disaggregation-mode', mode);
    const file = optString(d, 'extra-engine-args');
    if (file !== undefined) command.push('--extra-engine-args', file);
    command.push('--override-engine-args', json(dynamoTrtEngineArgs(ctx)), ...ctx.tail);
    return { command, env: trtSyntheticEnv(d, ctx.shape) };
  },
};

export const dynamoTrt: EngineAdapter = {
  frameworks: ['dynamo-trt'],

  check(d) {
    const problems = [...dynamoProblems(d, this.frameworks, DYNAMO_TRT_OPTIONS, parseTrtOptions), ...trtShapeProblems(d)];
    if (
      d.layout.kind === 'disaggregated' &&
      CACHE_TRANSCEIVERS[d.kvTransfer ?? 'nixl'] === undefined &&
      d.options['llm-api-options'] === undefined
    )
      problems.push(
        `kv-p2p-transfer ${d.kvTransfer}: TensorRT-LLM's cache transceiver takes ${Object.keys(CACHE_TRANSCEIVERS).join(', ')} here; use one, or set option llm-api-options to {"cache_transceiver_config":{"backend":"…"}}`,
      );
    return problems;
  },

  launch(d: Deployment, placement: Placement, ports: Ports): Launch {
    return dynamoLaunch(d, placement, ports, engine);
  },
};
