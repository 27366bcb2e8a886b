import { stringify } from 'yaml';
import type { TopologyRole } from '../contract/index.js';
import { findHardware } from '../sim/index.js';
import type { Plan, PlannedDeployment } from './plan.js';

/**
 * The srt-slurm recipe of one disaggregated frontier deployment, in the layout and format
 * InferenceX keeps them (`benchmarks/multi_node/srt-slurm-recipes/<backend>/<model>/<gpu>-<precision>/<8k1k>/…yaml`,
 * named from the master config by `CONFIG_FILE=recipes/<that path>`). Modelled on the fixture
 * recipes of each backend, with engine flags kept to what sets the topology, the KV transfer and
 * the context length: resources, worker counts and TP/EP/DP-attention agree with the search-space
 * row, the benchmark section with its ISL/OSL and conc-list.
 */

export interface PlannedRecipe {
  /** Path relative to the recipes folder (what follows `recipes/` in CONFIG_FILE). */
  path: string;
  yaml: string;
}

export interface RecipeIdentity {
  image: string;
  model: string;
  'model-prefix': string;
}

type Backend = 'vllm' | 'sglang' | 'trtllm';
type Flags = Record<string, unknown>;

/** The srtctl backend that runs a Dynamo framework: dynamo-trt → trtllm, dynamo-sglang → sglang, else vllm. */
export function recipeBackend(framework: string): Backend {
  if (/trt/.test(framework)) return 'trtllm';
  if (/sglang/.test(framework)) return 'sglang';
  return 'vllm';
}

/** 8192 → "8k", 1000 → "1000": InferenceX's sequence-length folder names (8k1k, 1k1k). */
const seqTag = (n: number): string => (n % 1024 === 0 ? `${n / 1024}k` : String(n));

/** tp4, dep8, tep4: the role names InferenceX recipe file names use. */
function roleName(r: TopologyRole): string {
  if (r.ep <= 1) return r.dpAttn ? `dpatp${r.tp}` : `tp${r.tp}`;
  return `${r.dpAttn ? 'dep' : 'tep'}${r.tp}`;
}

/** GPUs one worker of this role holds (the planner's roles: DP ranks live inside the TP group). */
const roleGpus = (r: TopologyRole): number => r.tp * r.pp;

function vllmFlags(r: TopologyRole, maxModelLen: number): Flags {
  const dp = r.dpAttn ? r.tp : 1;
  return {
    'tensor-parallel-size': r.tp / dp,
    ...(dp > 1 ? { 'data-parallel-size': dp, 'data-parallel-rpc-port': 13345 } : {}),
    'enable-expert-parallel': r.ep > 1,
    'trust-remote-code': true,
    'no-enable-prefix-caching': true,
    'kv-transfer-config': '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}',
    'gpu-memory-utilization': 0.9,
    'max-model-len': maxModelLen,
  };
}

function sglangFlags(r: TopologyRole, role: 'prefill' | 'decode', maxModelLen: number): Flags {
  return {
    'model-path': '/model/',
    'trust-remote-code': true,
    'disable-radix-cache': true,
    'disaggregation-mode': role,
    'disaggregation-transfer-backend': 'nixl',
    'tensor-parallel-size': r.tp,
    'data-parallel-size': r.dpAttn ? r.tp : 1,
    'expert-parallel-size': r.ep,
    ...(r.dpAttn ? { 'enable-dp-attention': true } : {}),
    'mem-fraction-static': 0.9,
    'context-length': maxModelLen,
  };
}

function trtllmFlags(r: TopologyRole, maxModelLen: number): Flags {
  return {
    tensor_parallel_size: r.tp,
    moe_expert_parallel_size: r.ep,
    pipeline_parallel_size: r.pp,
    enable_attention_dp: r.dpAttn,
    max_seq_len: maxModelLen,
    cache_transceiver_config: { backend: 'NIXL' },
    kv_cache_config: { free_gpu_memory_fraction: 0.8 },
  };
}

function engineFlags(backend: Backend, r: TopologyRole, role: 'prefill' | 'decode', maxModelLen: number): Flags {
  if (backend === 'sglang') return sglangFlags(r, role, maxModelLen);
  if (backend === 'trtllm') return trtllmFlags(r, maxModelLen);
  return vllmFlags(r, maxModelLen);
}

/**
 * `resources` as srtctl reads it: each role on its own whole nodes, or (vLLM, a pair the planner
 * places on one node) decode colocated on the prefill node with `decode_nodes: 0`.
 */
function resources(d: PlannedDeployment, gpuType: string, gpusPerNode: number, backend: Backend): Flags {
  const shape = d.candidate.shape;
  if (shape.kind !== 'disaggregated') throw new Error(`${d.label} is not disaggregated`);
  const [p, q] = [roleGpus(shape.prefill), roleGpus(shape.decode)];
  const nodes = (workers: number, gpus: number): number => Math.ceil((workers * gpus) / gpusPerNode);
  const colocate = backend === 'vllm' && shape.prefillWorkers * p + shape.decodeWorkers * q <= gpusPerNode;
  return {
    gpu_type: gpuType,
    gpus_per_node: gpusPerNode,
    prefill_nodes: nodes(shape.prefillWorkers, p),
    decode_nodes: colocate ? 0 : nodes(shape.decodeWorkers, q),
    prefill_workers: shape.prefillWorkers,
    decode_workers: shape.decodeWorkers,
    gpus_per_prefill: p,
    gpus_per_decode: q,
  };
}

/** The recipe of `d`, a disaggregated frontier deployment, benchmarked at `concs`. */
export function plannedRecipe(
  plan: Plan,
  d: PlannedDeployment,
  concs: readonly number[],
  framework: string,
  id: RecipeIdentity,
): PlannedRecipe {
  const shape = d.candidate.shape;
  if (shape.kind !== 'disaggregated') throw new Error(`${d.label} is not disaggregated`);
  const { workload } = plan;
  const backend = recipeBackend(framework);
  const hardware = findHardware(workload.hardware);
  const seq = `${seqTag(workload.isl)}${seqTag(workload.osl)}`;
  const layout = `${shape.prefillWorkers}p${shape.decodeWorkers}d-${roleName(shape.prefill)}-${roleName(shape.decode)}`;
  const name = `${id['model-prefix']}-${backend}-disagg-${workload.hardware}-${layout}-${workload.precision}-${seq}-planned`;
  // Room for one request: the longest prompt (ISL) plus its output, rounded up to a 256-token block.
  const maxModelLen = Math.ceil((workload.isl + workload.osl) / 256) * 256 + 256;
  const res = resources(d, workload.hardware, hardware.gpusPerNode, backend);
  const recipe = {
    name,
    model: { path: id.model, container: id.image, precision: workload.precision },
    resources: res,
    dynamo: { install: true },
    frontend: { type: 'dynamo', enable_multiple_frontends: false },
    backend: {
      type: backend,
      ...(backend === 'vllm' ? { connector: null } : {}),
      [`${backend}_config`]: {
        prefill: engineFlags(backend, shape.prefill, 'prefill', maxModelLen),
        decode: engineFlags(backend, shape.decode, 'decode', maxModelLen),
      },
      ...(backend === 'vllm' && res.decode_nodes === 0 ? { allow_prefill_decode_colocation: true } : {}),
    },
    health_check: { max_attempts: 360, interval_seconds: 10 },
    benchmark: {
      type: 'sa-bench',
      isl: workload.isl,
      osl: workload.osl,
      concurrencies: concs.join('x'),
      req_rate: 'inf',
    },
  };
  const header = `# Planned by \`frontier plan\` for the ${d.label} frontier deployment of ${workload.model} ${workload.precision} on ${workload.hardware}: engine flags are minimal; tune before publishing.\n`;
  return {
    path: `${backend}/${id['model-prefix']}/${workload.hardware}-${workload.precision}/${seq}/${layout}-${seq}-planned.yaml`,
    yaml: header + stringify(recipe),
  };
}
