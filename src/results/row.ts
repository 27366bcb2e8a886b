/**
 * A point's identity from a matrix row: the environment the InferenceX benchmark workflows would
 * export for that row, read by `identityFromEnv`, so both paths give the same aggregate.
 */
import { z } from 'zod';
import { ResultsError } from './errors.js';
import { identityFromEnv } from './identity.js';
import type { Env, PointIdentity } from './identity.js';

/** The fields of a matrix row worker (`prefill`/`decode`) that a result records. */
export interface RowWorkerLike {
  'num-worker': number;
  tp: number;
  ep: number;
  'dp-attn': boolean;
  pp?: number;
  'dcp-size'?: number;
  'pcp-size'?: number;
  hardware?: string;
}

interface RowBaseLike {
  image: string;
  model: string;
  'model-prefix': string;
  precision: string;
  framework: string;
  runner: string;
  isl: number;
  osl: number;
  'spec-decoding': string;
  disagg: boolean;
  'exp-name'?: string;
  router?: { name: string; version: string };
  'kv-p2p-transfer'?: string;
  'recipe-fingerprint'?: string;
}

export interface SingleNodeRowLike extends RowBaseLike {
  tp: number;
  ep: number;
  'dp-attn': boolean;
  pp?: number;
  'dcp-size'?: number;
  'pcp-size'?: number;
  conc: number;
}

export interface MultiNodeRowLike extends RowBaseLike {
  prefill: RowWorkerLike;
  decode: RowWorkerLike;
  conc: number[];
}

/** A fixed-seq-len matrix row (as `frontier matrix` prints them), single-node or multinode. */
export type MatrixRowLike = SingleNodeRowLike | MultiNodeRowLike;

type SequenceFields = 'isl' | 'osl' | 'disagg';
/** Any matrix row, agentic ones included (they have no isl/osl, and single-node ones no disagg): what names a result. */
export type NamedRowLike = (Omit<SingleNodeRowLike, SequenceFields> | Omit<MultiNodeRowLike, SequenceFields>) &
  Partial<Pick<RowBaseLike, SequenceFields>>;

export interface RowExtra {
  /** Recorded as `hw` (RUNNER_TYPE); default the row's `runner`. */
  runner?: string;
  /** RESULT_FILENAME; default the workflow's name for the row (see `resultFilenameOf`). */
  resultFilename?: string;
}

const gpus = (w: RowWorkerLike): number => w['num-worker'] * w.tp * (w.pp ?? 1) * (w['pcp-size'] ?? 1);

/**
 * The base RESULT_FILENAME the benchmark workflows give a row, with `runner` standing in for the
 * machine's name. Multinode launchers append `_<config>_conc<c>_gpus_<g>[_ctx_<p>_gen_<d>]` per point.
 */
export function resultFilenameOf(row: NamedRowLike, runner: string): string {
  const exp = row['exp-name'] ?? `${row['model-prefix']}_${row.isl}_${row.osl}`;
  const fingerprint = row['recipe-fingerprint'] ? `_recipe-${row['recipe-fingerprint'].slice(0, 16)}` : '';
  const head = `${exp}_${row.precision}_${row.framework}`;
  // A single-node agentic row has no disagg key: the workflow's input defaults to false.
  const tail = `_disagg-${row.disagg ?? false}_spec-${row['spec-decoding']}`;
  if ('prefill' in row) {
    const w = (x: RowWorkerLike): string =>
      `tp${x.tp}-pp${x.pp ?? 1}-dcp${x['dcp-size'] ?? 1}-pcp${x['pcp-size'] ?? 1}-ep${x.ep}-dp${x['dp-attn']}-nw${x['num-worker']}`;
    return `${head}_prefill-${w(row.prefill)}_decode-${w(row.decode)}${tail}_conc${row.conc.join('x')}_${runner}${fingerprint}`;
  }
  const topology = `tp${row.tp}-pp${row.pp ?? 1}-dcp${row['dcp-size'] ?? 1}-pcp${row['pcp-size'] ?? 1}-ep${row.ep}-dpa${row['dp-attn']}`;
  return `${head}_${topology}${tail}_conc${row.conc}_${runner}${fingerprint}`;
}

/**
 * GPUs per role as the multinode workflow exports them: from the point's file name
 * (`…_gpus_<g>_ctx_<p>_gen_<d>`: p and d; `…_gpus_<g>` alone, an aggregated arm: g and 0), else
 * from the row's topology (workers × tp × pp × pcp per role).
 */
export function roleGpus(
  row: Pick<MultiNodeRowLike, 'prefill' | 'decode'>,
  resultFilename: string,
): { prefill: number; decode: number } {
  const m = /_gpus_(\d+)(?:_ctx_(\d+)_gen_(\d+))?$/.exec(resultFilename);
  if (m) return m[2] === undefined ? { prefill: Number(m[1]), decode: 0 } : { prefill: Number(m[2]), decode: Number(m[3]) };
  return { prefill: gpus(row.prefill), decode: gpus(row.decode) };
}

/** The environment the benchmark workflow exports for a row, as `process_result.py` reads it. */
export function rowEnv(row: NamedRowLike, extra: RowExtra = {}): Env {
  const runner = extra.runner ?? row.runner;
  const resultFilename = extra.resultFilename ?? resultFilenameOf(row, runner);
  const env: Env = {
    RUNNER_TYPE: runner,
    FRAMEWORK: row.framework,
    PRECISION: row.precision,
    SPEC_DECODING: row['spec-decoding'],
    RESULT_FILENAME: resultFilename,
    ISL: row.isl === undefined ? '' : String(row.isl),
    OSL: row.osl === undefined ? '' : String(row.osl),
    DISAGG: String(row.disagg ?? false),
    MODEL_PREFIX: row['model-prefix'],
    IMAGE: row.image,
    RECIPE_FINGERPRINT: row['recipe-fingerprint'] ?? '',
    // GitHub's toJson: pretty-printed with two spaces.
    ROUTER_METADATA: row.router ? JSON.stringify(row.router, null, 2) : '',
    KV_P2P_TRANSFER: row['kv-p2p-transfer'] ?? '',
    ...(isAgentic(row) ? agenticEnv(row) : {}),
  };
  if (!('prefill' in row)) {
    return {
      ...env,
      TP: String(row.tp),
      EP_SIZE: String(row.ep),
      DP_ATTENTION: String(row['dp-attn']),
      PP_SIZE: String(row.pp ?? 1),
      DCP_SIZE: String(row['dcp-size'] ?? 1),
      PCP_SIZE: String(row['pcp-size'] ?? 1),
    };
  }
  const role = (name: 'PREFILL' | 'DECODE', w: RowWorkerLike): Env => ({
    [`${name}_NUM_WORKERS`]: String(w['num-worker']),
    [`${name}_TP`]: String(w.tp),
    [`${name}_PP_SIZE`]: String(w.pp ?? 1),
    [`${name}_DCP_SIZE`]: String(w['dcp-size'] ?? 1),
    [`${name}_PCP_SIZE`]: String(w['pcp-size'] ?? 1),
    [`${name}_EP`]: String(w.ep),
    [`${name}_DP_ATTN`]: String(w['dp-attn']),
  });
  const { prefill, decode } = roleGpus(row, resultFilename);
  return {
    ...env,
    IS_MULTINODE: 'true',
    PREFILL_GPUS: String(prefill),
    DECODE_GPUS: String(decode),
    ...role('PREFILL', row.prefill),
    ...role('DECODE', row.decode),
    PREFILL_HARDWARE: row.prefill.hardware ?? '',
    DECODE_HARDWARE: row.decode.hardware ?? '',
  };
}

interface AgenticRowLike {
  'scenario-type': 'agentic-coding';
  model: string;
  conc: number | number[];
  'kv-offloading': string;
  'kv-offload-backend'?: { name: string; version?: string };
  'total-cpu-dram-gb': number;
  duration: number;
}

const isAgentic = (row: object): row is AgenticRowLike => (row as Partial<AgenticRowLike>)['scenario-type'] === 'agentic-coding';

/** What run-sweep.yml adds for an agentic row (process_agentic_result.py reads these). */
function agenticEnv(row: AgenticRowLike): Env {
  const backend = row['kv-offload-backend'];
  return {
    SCENARIO_TYPE: 'agentic-coding',
    MODEL: row.model,
    ...(typeof row.conc === 'number' ? { CONC: String(row.conc) } : {}),
    KV_OFFLOADING: row['kv-offloading'],
    KV_OFFLOAD_BACKEND: backend?.name ?? '',
    // GitHub's toJson: pretty-printed with two spaces.
    KV_OFFLOAD_BACKEND_METADATA: backend ? JSON.stringify(backend, null, 2) : '',
    TOTAL_CPU_DRAM_GB: String(row['total-cpu-dram-gb']),
    DURATION: String(row.duration),
  };
}

/** The identity of a point from its matrix row: the same as `identityFromEnv` of what the workflow exports. */
export function identityFromRow(row: MatrixRowLike, extra: RowExtra = {}): PointIdentity {
  return identityFromEnv(rowEnv(row, extra));
}

const int = z.number().int();
const str = z.string();
const worker = z.looseObject({
  'num-worker': int,
  tp: int,
  ep: int,
  'dp-attn': z.boolean(),
  pp: int.optional(),
  'dcp-size': int.optional(),
  'pcp-size': int.optional(),
  hardware: str.optional(),
});
const base = {
  image: str,
  model: str,
  'model-prefix': str,
  precision: str,
  framework: str,
  runner: str,
  isl: int,
  osl: int,
  'spec-decoding': str,
  disagg: z.boolean(),
  'exp-name': str.optional(),
  // Checked as the reference checks ROUTER_METADATA, with its message.
  router: z.record(z.string(), z.unknown()).optional(),
  'kv-p2p-transfer': str.optional(),
  'recipe-fingerprint': str.optional(),
};
const SingleNodeRowSchema = z.looseObject({
  ...base,
  tp: int,
  ep: int,
  'dp-attn': z.boolean(),
  pp: int.optional(),
  'dcp-size': int.optional(),
  'pcp-size': int.optional(),
  conc: int,
});
const MultiNodeRowSchema = z.looseObject({ ...base, prefill: worker, decode: worker, conc: z.array(int) });

/**
 * A matrix row read from JSON (one object, or an array holding one), checked for the fields a
 * result needs. `where` names the source in errors.
 */
export function parseRow(value: unknown, where: string): MatrixRowLike {
  if (Array.isArray(value)) {
    if (value.length !== 1) {
      throw new ResultsError(`${where}: holds ${value.length} rows; give one row (one object from \`frontier matrix\`)`);
    }
    value = value[0];
  }
  if (value === null || typeof value !== 'object') {
    throw new ResultsError(`${where}: not a matrix row (expected a JSON object from \`frontier matrix\`)`);
  }
  if ((value as Record<string, unknown>)['scenario-type'] === 'agentic-coding') {
    throw new ResultsError(
      `${where}: an agentic-coding row; process_result.py handles fixed-seq-len rows (agentic results have their own aggregation)`,
    );
  }
  const schema = 'prefill' in value ? MultiNodeRowSchema : SingleNodeRowSchema;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`);
    throw new ResultsError(`${where}: not a usable matrix row: ${problems.join('; ')}`);
  }
  return parsed.data as MatrixRowLike;
}
