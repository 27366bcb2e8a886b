import type { SingleNodeRow } from '../../matrix/index.js';

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

const str = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

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
