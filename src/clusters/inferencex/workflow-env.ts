import type { MultiNodeRow, SingleNodeRow } from '../../matrix/index.js';

// What InferenceX's workflows hand a row's launcher and scripts: the variables launcher routing is
// evaluated against (routed-rows.ts), and that src/launch gives the scripts it runs.

/**
 * The environment InferenceX's benchmark workflow (`.github/workflows/benchmark-tmpl.yml`: its
 * `env:` block and the "Launch job script" step) and the launcher give a single-node row's
 * benchmark script. Values are strings as GitHub Actions renders its inputs (booleans `true` /
 * `false`, absent optional inputs empty). Secrets (HF_TOKEN, MODAL_TOKEN_*) are not part of it:
 * a site adds them to its own environment.
 */

export interface ContractSettings {
  /** RESULT_FILENAME: the point's, as the run names it. */
  resultFilename: string;
  /** The InferenceX runner the row stands on (`h200-cw_00`): RUNNER_NAME. */
  runnerName: string;
  /** The port the launcher exports. */
  port: number;
  /** HF_HUB_CACHE inside the container (the workflow's default unless a site moves it). */
  hfHubCache?: string;
}

/**
 * Row fields that describe a deployment and travel to its run as one variable each, with the
 * variable. The workflow also names its jobs and the result writers record them, but only a run
 * that reads the variable (route-reads.ts) measures something else when one changes. Every
 * other field changes what runs, always: the workflow and the launchers use it beyond the text a
 * reader of the route's files sees (the runner, the image, the script chosen by name).
 */
export const DESCRIPTIVE_VARIABLES: Readonly<Record<string, string>> = {
  disagg: 'DISAGG',
  'kv-offloading': 'KV_OFFLOADING',
  'kv-offload-backend': 'KV_OFFLOAD_BACKEND',
  'kv-offload-backend-metadata': 'KV_OFFLOAD_BACKEND_METADATA',
  router: 'ROUTER_METADATA',
  'kv-p2p-transfer': 'KV_P2P_TRANSFER',
  'total-cpu-dram-gb': 'TOTAL_CPU_DRAM_GB',
};

/** The row fields that can describe a row. */
export const DESCRIPTIVE_FIELDS: readonly string[] = Object.keys(DESCRIPTIVE_VARIABLES);

const str = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** GitHub's `toJson(x) || ''`: pretty-printed with two spaces, empty when absent. */
const toJson = (v: unknown): string => (v === undefined || v === null || v === '' ? '' : JSON.stringify(v, null, 2));

/**
 * The inputs run-sweep.yml's single-node agentic job passes where they differ from a fixed-length
 * row's: no sequence lengths, the KV-offload backend by its name with the whole object as metadata,
 * the router as JSON, no eval.
 */
function agenticInputs(r: Record<string, unknown>): Record<string, string> {
  const backend = r['kv-offload-backend'] as { name?: string } | undefined;
  return {
    ISL: '0',
    OSL: '0',
    MAX_MODEL_LEN: '0',
    DISAGG: 'false',
    RUN_EVAL: 'false',
    KV_OFFLOAD_BACKEND: str(backend?.name),
    KV_OFFLOAD_BACKEND_METADATA: toJson(backend),
    ROUTER_METADATA: toJson(r.router),
    TOTAL_CPU_DRAM_GB: str(r['total-cpu-dram-gb']),
  };
}

export function workflowEnv(row: SingleNodeRow, s: ContractSettings): Record<string, string> {
  const r = row as SingleNodeRow & Record<string, unknown>;
  const agentic = r['scenario-type'] === 'agentic-coding';
  return {
    RANDOM_RANGE_RATIO: '0.8',
    HF_HUB_CACHE: s.hfHubCache ?? '/mnt/hf_hub_cache/',
    EXP_NAME: row['exp-name'],
    RECIPE_FINGERPRINT: str(r['recipe-fingerprint']),
    MODEL: row.model,
    MODEL_PREFIX: row['model-prefix'],
    ISL: str(row.isl),
    OSL: str(row.osl),
    MAX_MODEL_LEN: str(row['max-model-len']),
    IMAGE: row.image,
    FRAMEWORK: row.framework,
    PRECISION: row.precision,
    TP: str(row.tp),
    PP_SIZE: str(row.pp),
    DCP_SIZE: str(row['dcp-size']),
    PCP_SIZE: str(row['pcp-size']),
    EP_SIZE: str(row.ep),
    DP_ATTENTION: str(row['dp-attn']),
    CONC: str(row.conc),
    SPEC_DECODING: row['spec-decoding'],
    DISAGG: str(row.disagg),
    RUN_EVAL: str(row['run-eval'] ?? false),
    EVAL_ONLY: str(row['eval-only'] ?? false),
    SCENARIO_TYPE: str(r['scenario-type'] ?? 'fixed-seq-len'),
    SCENARIO_SUBDIR: agentic ? 'agentic/' : 'fixed_seq_len/',
    IS_AGENTIC: agentic ? '1' : '0',
    KV_OFFLOADING: str(r['kv-offloading']),
    KV_OFFLOAD_BACKEND: str(r['kv-offload-backend']),
    KV_OFFLOAD_BACKEND_METADATA: '',
    ROUTER_METADATA: str(r.router),
    KV_P2P_TRANSFER: str(r['kv-p2p-transfer']),
    TOTAL_CPU_DRAM_GB: str(r['total-cpu-dram-gb'] ?? 0),
    DURATION: str(r.duration ?? 3600),
    REQUIRE_POWER: '0',
    AIPERF_EXPERIMENTAL_FAST: '0',
    EVAL_LIMIT: '',
    SWEBENCH_GEN_MODE: '',
    AIPERF_FAILED_REQUEST_THRESHOLD: '0.10',
    RESULT_DIR: '/workspace/results',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONPYCACHEPREFIX: '/tmp/inferencex-pycache',
    SWEBENCH_USE_MODAL: 'true',
    SALLOC_EXCLUDE: 'b300-005,b300-006',
    ...(agentic ? agenticInputs(r) : {}),
    // The "Launch job script" step.
    RUNNER_NAME: s.runnerName,
    RUNNER_TYPE: row.runner,
    RESULT_FILENAME: s.resultFilename,
    GPU_COUNT: str(row.tp * row.pp * row['pcp-size']),
    GITHUB_STEP_SUMMARY: '',
    // The launcher (`srun --export=ALL,PORT=…`).
    PORT: str(s.port),
  };
}

/**
 * The environment InferenceX's multi-node workflow (`benchmark-multinode-tmpl.yml`: its `env:`
 * block and the "Launch multi-node job script" step, which also exports each role's
 * additional-settings and IS_MULTINODE) gives the launcher of a multi-node row. `resultFilename`
 * is RESULT_FILENAME: the row's, without a point's suffix.
 */
export function multiNodeWorkflowEnv(
  row: MultiNodeRow,
  s: { resultFilename: string; runnerName: string },
): Record<string, string> {
  const r = row as MultiNodeRow & Record<string, unknown>;
  const agentic = r['scenario-type'] === 'agentic-coding';
  const role = (prefix: string, w: MultiNodeRow['prefill']): Record<string, string> => ({
    [`${prefix}_NUM_WORKERS`]: str(w['num-worker']),
    [`${prefix}_TP`]: str(w.tp),
    [`${prefix}_PP_SIZE`]: str(w.pp),
    [`${prefix}_DCP_SIZE`]: str(w['dcp-size']),
    [`${prefix}_PCP_SIZE`]: str(w['pcp-size']),
    [`${prefix}_EP`]: str(w.ep),
    [`${prefix}_DP_ATTN`]: str(w['dp-attn']),
  });
  const settings = [...(row.prefill['additional-settings'] ?? []), ...(row.decode['additional-settings'] ?? [])];
  return {
    RANDOM_RANGE_RATIO: '0.8',
    EXP_NAME: row['exp-name'],
    RECIPE_FINGERPRINT: str(r['recipe-fingerprint']),
    IMAGE: row.image,
    MODEL_PREFIX: row['model-prefix'],
    MODEL: row.model,
    FRAMEWORK: row.framework,
    PRECISION: row.precision,
    ISL: str(row.isl),
    OSL: str(row.osl),
    MAX_MODEL_LEN: str(row['max-model-len']),
    CONC_LIST: row.conc.join(' '),
    SPEC_DECODING: row['spec-decoding'],
    DISAGG: str(row.disagg),
    PREFILL_HARDWARE: str((row.prefill as Record<string, unknown>).hardware),
    DECODE_HARDWARE: str((row.decode as Record<string, unknown>).hardware),
    RUN_EVAL: str(row['run-eval'] ?? false),
    EVAL_ONLY: str(r['eval-only'] ?? false),
    EVAL_CONC: str(r['eval-conc']),
    EVAL_LIMIT: '',
    SWEBENCH_GEN_MODE: '',
    SWEBENCH_USE_MODAL: 'true',
    REQUIRE_POWER: '0',
    POWER_PRODUCER_SHA: '',
    SCENARIO_TYPE: str(r['scenario-type']),
    SCENARIO_SUBDIR: agentic ? 'agentic/' : 'fixed_seq_len/',
    IS_AGENTIC: agentic ? '1' : '0',
    CONC: '',
    DURATION: str(r.duration),
    AIPERF_EXPERIMENTAL_FAST: '0',
    KV_OFFLOADING: str(r['kv-offloading']),
    KV_OFFLOAD_BACKEND: str(r['kv-offload-backend']),
    KV_OFFLOAD_BACKEND_METADATA: str(r['kv-offload-backend-metadata']),
    ROUTER_METADATA: str(r.router),
    KV_P2P_TRANSFER: str(r['kv-p2p-transfer']),
    TOTAL_CPU_DRAM_GB: str(r['total-cpu-dram-gb'] ?? 600),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONPYCACHEPREFIX: '/tmp/inferencex-pycache',
    ...role('PREFILL', row.prefill),
    ...role('DECODE', row.decode),
    // The launch step.
    RUNNER_NAME: s.runnerName,
    RUNNER_TYPE: row.runner,
    RESULT_FILENAME: s.resultFilename,
    ...Object.fromEntries(settings.map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)])),
    IS_MULTINODE: 'true',
  };
}
