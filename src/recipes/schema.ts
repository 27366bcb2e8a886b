import * as z from 'zod';

/**
 * srt-slurm recipes (srtctl's `SrtConfig`, reference: srt-slurm-and-peers.md §1.4) as InferenceX
 * uses them. srtctl rejects unknown keys; so do the sections modelled here. Engine flag maps
 * (`sglang_config`, `vllm_config`, `trtllm_config`), environments and sbatch/srun options stay
 * free-form: they are the engines' business.
 */

const expect = (text: string) => ({ error: text });
const str = z.string(expect('a string'));
const int = z.int(expect('an integer'));
const nonNegInt = z.int(expect('a non-negative integer')).nonnegative(expect('a non-negative integer'));
const bool = z.boolean(expect('true or false'));
const num = z.number(expect('a number'));
const freeMap = z.record(z.string(), z.unknown(), expect('a mapping'));
const env = z.record(z.string(), z.unknown(), expect('a mapping of environment variables')).nullable();

export const ModelSection = z.strictObject(
  {
    path: str.meta({ description: 'Model path or alias (srtslurm.yaml model_paths).' }),
    container: str.meta({ description: 'Container image.' }),
    precision: str.meta({ description: 'Informational precision (fp4, fp8, …).' }),
    stage_dir: str.optional(),
  },
  expect('a mapping with path, container and precision'),
);

export const ResourcesSection = z.strictObject(
  {
    gpu_type: str,
    gpus_per_node: nonNegInt.optional(),
    prefill_nodes: nonNegInt.optional(),
    decode_nodes: nonNegInt.optional(),
    prefill_workers: nonNegInt.optional(),
    decode_workers: nonNegInt.optional(),
    agg_nodes: nonNegInt.optional(),
    agg_workers: nonNegInt.optional(),
    gpus_per_prefill: nonNegInt.optional(),
    gpus_per_decode: nonNegInt.optional(),
    gpus_per_agg: nonNegInt.optional(),
    spread_workers: bool.optional(),
    het_jobs: bool.nullable().optional(),
  },
  expect('a mapping (resources: gpu_type, gpus_per_node, nodes and workers per role)'),
);

const ROLES = ['prefill', 'decode', 'aggregated'] as const;
const engineConfig = z
  .strictObject(
    Object.fromEntries(ROLES.map((r) => [r, freeMap.nullable().optional()])),
    expect('a mapping of prefill/decode/aggregated flags'),
  )
  .nullable();

const backendCommon = {
  prefill_environment: env.optional(),
  decode_environment: env.optional(),
  aggregated_environment: env.optional(),
  kv_events_config: z.union([bool, freeMap]).optional(),
  mooncake_kv_store: freeMap.optional(),
};

export const BackendSection = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('sglang'),
      sglang_config: engineConfig.optional(),
      gpu_type: str.optional(),
      ...backendCommon,
    }),
    z.strictObject({
      type: z.literal('vllm'),
      vllm_config: engineConfig.optional(),
      connector: z.union([str, freeMap]).nullable().optional(),
      set_cuda_visible_devices: bool.optional(),
      allow_prefill_decode_colocation: bool.optional(),
      allow_prefill_decode_colocation_across_nodes: bool.optional(),
      dp_launch_mode: z.enum(['per_node', 'per_gpu'], expect('"per_node" or "per_gpu"')).optional(),
      ...backendCommon,
    }),
    z.strictObject({
      type: z.literal('trtllm'),
      trtllm_config: engineConfig.optional(),
      publish_events_and_metrics: bool.optional(),
      sequential_node_start: int.optional(),
      numa_memory_bind: z.unknown().optional(),
      ...backendCommon,
    }),
    z.looseObject({ type: z.literal('mocker') }),
  ],
  expect('a backend of type sglang, vllm, trtllm or mocker'),
);

export const FrontendSection = z.strictObject(
  {
    type: z.enum(['dynamo', 'sglang', 'trtllm_serve', 'vllm'], expect('one of dynamo, sglang, trtllm_serve, vllm')).optional(),
    enable_multiple_frontends: bool.optional(),
    num_additional_frontends: nonNegInt.optional(),
    nginx_container: str.optional(),
    nginx_raise_ulimit: bool.optional(),
    nginx_session_affinity: bool.optional(),
    nginx_session_affinity_header: str.optional(),
    nginx_keepalive_timeout: str.optional(),
    args: freeMap.nullable().optional(),
    env: env.optional(),
    ctx_router: z.unknown().optional(),
    gen_router: z.unknown().optional(),
    server_config_extra: z.unknown().optional(),
    orchestrator_placement: z.enum(['head', 'first_decode'], expect('"head" or "first_decode"')).optional(),
    dedicated_node: bool.optional(),
  },
  expect('a mapping (frontend)'),
);

export const DynamoSection = z.strictObject(
  {
    install: bool.optional(),
    version: str.optional(),
    hash: str.optional(),
    top_of_tree: bool.optional(),
    wheel: str.optional(),
    request_plane: z.enum(['tcp', 'nats', 'http'], expect('"tcp", "nats" or "http"')).optional(),
    event_plane: z.enum(['nats', 'zmq'], expect('"nats" or "zmq"')).optional(),
    cargo_patches: z.unknown().optional(),
  },
  expect('a mapping (dynamo)'),
);

export const BenchmarkSection = z.looseObject({
  type: str.optional(),
  isl: int.optional(),
  osl: int.optional(),
  concurrencies: z.union([z.array(int), str], expect('a list of concurrencies or "AxBxC"')).optional(),
  req_rate: z.union([str, num]).optional(),
});

export const HealthCheckSection = z.strictObject(
  { max_attempts: nonNegInt.optional(), interval_seconds: num.optional() },
  expect('a mapping with max_attempts and interval_seconds'),
);

export const SlurmSection = z.strictObject(
  { account: str.optional(), partition: str.optional(), time_limit: str.optional() },
  expect('a mapping with account, partition, time_limit'),
);

/** A complete recipe: one srtctl job. */
export const Recipe = z.strictObject(
  {
    name: str,
    model: ModelSection,
    resources: ResourcesSection,
    backend: z
      .preprocess((v) => (v && typeof v === 'object' && !('type' in v) ? { ...v, type: 'sglang' } : v), BackendSection)
      .optional(),
    frontend: FrontendSection.optional(),
    dynamo: DynamoSection.optional(),
    benchmark: BenchmarkSection.optional(),
    slurm: SlurmSection.optional(),
    health_check: HealthCheckSection.optional(),
    infra: z.strictObject({ etcd_nats_dedicated_node: bool.optional(), nats_max_payload_mb: int.optional() }).optional(),
    identity: freeMap.optional(),
    profiling: freeMap.optional(),
    output: freeMap.optional(),
    observability: freeMap.optional(),
    telemetry: freeMap.optional(),
    reporting: freeMap.optional(),
    environment: env.optional(),
    container_mounts: freeMap.optional(),
    extra_mount: z.array(str).optional(),
    srun_options: freeMap.optional(),
    sbatch_directives: freeMap.optional(),
    enable_config_dump: bool.optional(),
    setup_script: str.optional(),
    sweep: freeMap.optional(),
  },
  expect('a recipe mapping'),
);

export type Recipe = z.infer<typeof Recipe>;
export type ResourcesSection = z.infer<typeof ResourcesSection>;
export type Role = (typeof ROLES)[number];
export const RECIPE_ROLES = ROLES;

/** Top-level keys a recipe may have (for file:line reports of unknown ones). */
export const RECIPE_KEYS = Object.keys(Recipe.shape);
