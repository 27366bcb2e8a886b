import { plainKind } from '../catalog/yaml/index.js';
import { locateInRecipe } from './load.js';
import type { RecipeFile } from './load.js';
import type { Resources } from './topology.js';
import type { Variant } from './variants.js';
import { endpointEnv, processEnv } from './render/env.js';
import type { EnvContext } from './render/env.js';
import { frontendProcesses } from './render/frontend.js';
import { endpoints, host, jobNodes, processes, resourceMath } from './render/processes.js';
import type { Process, VllmLayout } from './render/processes.js';
import type { FloatTest } from '../pycompat/index.js';
import { RenderError, UnknownFieldError } from './render/python.js';
import { sglangArgv, trtllmArgv, vllmArgv, vllmDpSize, vllmReplica } from './render/workers.js';
import type { Job } from './render/workers.js';

/**
 * What srtctl starts for a recipe: every worker srun (per process for SGLang and vLLM, per
 * endpoint for TRT-LLM), nginx and the frontends, with the argv and environment srtctl builds.
 * Host-dependent values are placeholders: `{host:N}`/`{ip:N}` for node N of the Slurm allocation
 * (0-based, Slurm's order), `{log_dir}` for the job's log directory, `{uuid}` for a uuid4 hex.
 * Ports, ranks and GPU lists are srtctl's own deterministic values.
 */

export { MODELED_SRTCTL, RenderError, UnknownFieldError } from './render/python.js';

export type RenderedRoleName = 'prefill' | 'decode' | 'aggregated' | 'frontend' | 'nginx';

export interface RenderedRole {
  role: RenderedRoleName;
  /** Worker index within its role; frontend index. */
  index: number;
  /** Allocation node indices the srun spans. */
  nodes: number[];
  /** GPU indices on each of those nodes (empty for frontends). */
  gpus: number[];
  argv: string[];
  env: Record<string, string>;
}

export interface RenderedRecipe {
  name: string;
  /** Nodes in the Slurm allocation. */
  nodes: number;
  roles: RenderedRole[];
}

export interface RenderOptions {
  /** Recipe file, for error messages. */
  file?: string;
  /** Which integral numbers YAML wrote as floats (`1.0`); see `yamlFloats`. */
  isFloat?: FloatTest;
}

type Obj = Record<string, unknown>;

// srtctl's BenchmarkConfig and TelemetryConfig fields (core/schema.py): its schema rejects others.
const BENCHMARK_KEYS = new Set(
  'type isl osl concurrencies req_rate client_placement client_dedicated_node colocate_with_frontend sweep num_examples max_tokens repeat num_threads max_context_length categories num_shots temperature top_p top_k num_requests concurrency prefix_ratios mooncake_workload ttft_threshold_ms itl_threshold_ms random_range_ratio num_prompts_mult num_warmup_mult dataset_name dataset_path trace_file custom_tokenizer use_chat_template reuse_http_connections command container_image env aiperf_package aiperf_args export_node_metrics slow_down_sleep_time slow_down_wait_time'.split(
    ' ',
  ),
);
const TELEMETRY_KEYS = new Set(
  'enabled dcgm_exporter default_frequency storage_subdir required startup_timeout_seconds request_timeout_seconds collector_join_timeout_seconds'.split(
    ' ',
  ),
);

const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

function checkKeys(recipe: Obj, section: string, known: Set<string>): void {
  for (const key of Object.keys(obj(recipe[section]))) if (!known.has(key)) throw new UnknownFieldError(`${section}.${key}`);
}

/** Features srtctl has that this renderer does not model: refused by name rather than guessed. */
function checkCovered(recipe: Obj): void {
  const on = (section: string, key: string): boolean => Boolean(obj(recipe[section])[key]);
  const profiling = obj(recipe.profiling).type;
  if (profiling !== undefined && profiling !== null && profiling !== 'none')
    throw new RenderError(`profiling.type: ${String(profiling)} is not rendered by Frontier yet`);
  if (on('observability', 'enabled') || on('observability', 'enable_otel'))
    throw new RenderError('observability: not rendered by Frontier yet');
  if (obj(recipe.resources).het_jobs === true)
    throw new RenderError('resources.het_jobs: heterogeneous jobs are not rendered by Frontier yet');
  if (obj(recipe.model).stage_dir) throw new RenderError('model.stage_dir: not rendered by Frontier yet');
}

function modelNames(path: string): { arg: string; name: string } {
  const hf = path.startsWith('hf:');
  const id = (hf ? path.slice(3) : path).replace(/\/+$/, '');
  const name =
    id
      .split('/')
      .filter((s) => s !== '' && s !== '.')
      .pop() ?? '';
  return { arg: hf ? id.replace(/\/+/g, '/') : '/model', name };
}

export function renderRecipe(recipe: Obj, options: RenderOptions = {}): RenderedRecipe {
  try {
    return render(recipe, options.isFloat ?? (() => false));
  } catch (e) {
    // Named with its file, keeping its class (an unknown field is told apart by the caller).
    if (e instanceof RenderError) e.message = `${options.file ?? 'recipe'}: ${e.message}`;
    throw e;
  }
}

function render(recipe: Obj, isFloat: FloatTest): RenderedRecipe {
  checkKeys(recipe, 'benchmark', BENCHMARK_KEYS);
  checkKeys(recipe, 'telemetry', TELEMETRY_KEYS);
  checkCovered(recipe);
  const backend = obj(recipe.backend);
  const backendType = String(backend.type ?? 'sglang');
  if (backendType !== 'sglang' && backendType !== 'vllm' && backendType !== 'trtllm')
    throw new RenderError(`backend.type: ${backendType} is not rendered by Frontier`);
  const resources = obj(recipe.resources) as Resources & Obj;
  const math = resourceMath(resources);
  const colocation = backendType === 'vllm' && backend.allow_prefill_decode_colocation === true;
  const across = backendType === 'vllm' && backend.allow_prefill_decode_colocation_across_nodes === true;
  const nodes = jobNodes(recipe, math, colocation, across);
  const model = modelNames(String(obj(recipe.model).path ?? ''));
  const job: Job = {
    backendType,
    backend,
    frontendType: String(obj(recipe.frontend).type ?? 'dynamo'),
    modelArg: model.arg,
    modelName: model.name,
    requestPlane: String(obj(recipe.dynamo).request_plane ?? 'tcp'),
    gpuType: String(resources.gpu_type ?? ''),
    isFloat,
  };
  const eps = endpoints(math, nodes, resources, { colocation, colocationAcrossNodes: across });
  const vllm: VllmLayout | undefined =
    backendType === 'vllm' && job.frontendType !== 'vllm'
      ? {
          dpSize: (mode) => vllmDpSize(job, mode),
          replicaSize: (mode) => vllmReplica(job, mode),
          launch: backend.dp_launch_mode === 'per_gpu' ? 'per_gpu' : 'per_node',
        }
      : undefined;
  const procs = processes(eps, vllm);
  const ctx: EnvContext = { recipe, job, nodes, gpusPerNode: math.gpusPerNode };
  const roles: RenderedRole[] = [];
  const groups = new Map<string, Process[]>();
  for (const p of procs) {
    const key = `${p.mode}_${p.index}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const roleName = { prefill: 'prefill', decode: 'decode', agg: 'aggregated' } as const;
  for (const endpoint of groups.values()) {
    const leader = endpoint[0]!;
    if (backendType === 'trtllm') {
      const spans = [...new Set(endpoint.map((p) => p.node))];
      const argv = trtllmArgv(job, { process: leader, endpoint, dumpConfig: '' });
      roles.push({
        role: roleName[leader.mode],
        index: leader.index,
        nodes: spans,
        gpus: leader.gpus,
        argv,
        env: endpointEnv(ctx, endpoint),
      });
      continue;
    }
    for (const process of endpoint) {
      const worker = { process, endpoint, dumpConfig: `{log_dir}/${host(process.node)}_config.json` };
      const argv = backendType === 'sglang' ? sglangArgv(job, worker) : vllmArgv(job, worker);
      roles.push({
        role: roleName[process.mode],
        index: process.index,
        nodes: [process.node],
        gpus: process.gpus,
        argv,
        env: processEnv(ctx, process, endpoint),
      });
    }
  }
  for (const f of frontendProcesses(recipe, job, nodes, procs))
    roles.push({ role: f.role, index: f.index, nodes: [f.node], gpus: [], argv: f.argv, env: f.env });
  return { name: String(recipe.name ?? ''), nodes: nodes.total, roles };
}

/**
 * The float test for a recipe read from YAML: a number is a float when its plain scalar, where the
 * variant takes it from, is spelled as one (`0.0`, `1e3`).
 */
export function yamlFloats(source: string, file: RecipeFile, variant?: Variant): FloatTest {
  const lines = source.split('\n');
  return (path) => {
    const pos = locateInRecipe(file, path.join('.'), variant);
    const token = /^[^\s,\]}#]+/.exec(lines[pos.line - 1]?.slice(pos.col - 1) ?? '')?.[0] ?? '';
    return plainKind(token) === 'float';
  };
}
