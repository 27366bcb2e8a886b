/**
 * Result rows as the store keeps them, read from the aggregates InferenceX and `frontier run`
 * write (`agg_bmk.json`, `agg_eval_all.json`). Pure: each reader returns the row, or records every
 * problem it finds (file, index, field, why) so that one pass reports them all.
 */
import { isMeasurementKey, repeatedMetric } from '../results/index.js';
import type { RepeatScope } from '../contract/index.js';
import type { RepeatsBlock } from '../results/index.js';
import { keepMeasuredIfValid, powerVerdict } from './power.js';
import type { PowerVerdict } from './power.js';

export interface ConfigIdentity {
  hardware: string;
  framework: string;
  model: string;
  model_prefix: string;
  precision: string;
  spec_method: string;
  disagg: boolean;
  is_multinode: boolean;
  prefill: SideTopology;
  decode: SideTopology;
  image: string;
  recipe_fingerprint: string;
}

export interface SideTopology {
  tp: number;
  pp: number;
  dcp: number;
  pcp: number;
  ep: number;
  dp_attention: boolean;
  num_workers: number;
  num_gpu: number;
}

export interface BenchmarkInput {
  config: ConfigIdentity;
  isl: number;
  osl: number;
  conc: number;
  runner: string;
  /** Every numeric metric of the aggregate; the measured energy keys only when the power verdict is valid. */
  metrics: Record<string, number>;
  /** The power step's verdict (refined with the sidecar and the run's manifest by readArtifacts). */
  power: PowerVerdict;
  /** The aggregate's own power flags, as written. */
  power_flags: { power_valid?: unknown; power_metric_schema_version?: unknown };
  /** A repeated point's measurements (its `repeats` key), their statistics recomputed from the values; undefined for one sample. */
  repeats: RepeatsBlock | undefined;
}

export interface EvalInput {
  config: ConfigIdentity;
  task: string;
  isl: number;
  osl: number;
  conc: number;
  score: number;
  score_se: number | undefined;
  score_name: string;
  n_eff: number | undefined;
  /** The minimum score for this model and task, when the ingest knows the thresholds. */
  threshold?: number | undefined;
  metrics: Record<string, number>;
  source: string;
  samples: Record<string, number>;
}

export interface IngestProblem {
  file: string;
  /** The row's index in the file's array, when the problem is in a row. */
  index?: number;
  field?: string;
  message: string;
}

export function formatProblem(p: IngestProblem): string {
  const at = `${p.file}${p.index === undefined ? '' : `[${p.index}]`}${p.field === undefined ? '' : `.${p.field}`}`;
  return `${at}: ${p.message}`;
}

/** The canonical natural key of a config: every identity field, in a fixed order. */
export function configKey(c: ConfigIdentity): string {
  const side = (s: SideTopology) => [s.tp, s.pp, s.dcp, s.pcp, s.ep, s.dp_attention ? 1 : 0, s.num_workers, s.num_gpu];
  return JSON.stringify([
    c.hardware,
    c.framework,
    c.model,
    c.model_prefix,
    c.precision,
    c.spec_method,
    c.disagg ? 1 : 0,
    c.is_multinode ? 1 : 0,
    ...side(c.prefill),
    ...side(c.decode),
    c.image,
    c.recipe_fingerprint,
  ]);
}

/** The GPU a runner label names, as the reference's ingest reads it: `cluster:b200-dgxc_1` → `b200`. */
export function hardwareOf(runner: string): string {
  let hw = runner
    .toLowerCase()
    .replace(/^cluster:/, '')
    .replace(/_\d+$/, '');
  for (const suffix of [
    '-trt',
    '-multinode-slurm',
    '-multinode',
    '-nvs',
    '-disagg',
    '-amds',
    '-amd',
    '-nvd',
    '-dgxc-slurm',
    '-dgxc',
    '-nb',
    '-nv',
  ]) {
    if (hw.endsWith(suffix)) hw = hw.slice(0, -suffix.length);
  }
  return hw;
}

const FRAMEWORK_ALIASES: Record<string, string> = {
  'sglang-disagg': 'mori-sglang',
  trtllm: 'trt',
  'dynamo-trtllm': 'dynamo-trt',
};
const frameworkOf = (f: string): string => FRAMEWORK_ALIASES[f.toLowerCase()] ?? f.toLowerCase();
const precisionOf = (p: string): string => (/^(nv|mx)fp4$/i.test(p) ? 'fp4' : p.toLowerCase());

/** Reads typed fields of one row, recording problems instead of throwing. */
export class Fields {
  constructor(
    private readonly row: Record<string, unknown>,
    private readonly file: string,
    private readonly index: number | undefined,
    private readonly problems: IngestProblem[],
  ) {}

  private bad(field: string, expected: string): void {
    const got = this.row[field];
    const shown = got === undefined ? 'nothing' : JSON.stringify(got).slice(0, 60);
    this.problems.push({ file: this.file, index: this.index, field, message: `expected ${expected}, got ${shown}` });
  }

  has(field: string): boolean {
    return this.row[field] !== undefined && this.row[field] !== null;
  }

  text(field: string, fallback?: string): string {
    const v = this.row[field];
    if (typeof v === 'string' && (v !== '' || fallback !== undefined)) return v;
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    this.bad(field, fallback === undefined ? 'a non-empty string' : 'a string');
    return fallback ?? '';
  }

  int(field: string, fallback?: number, min = 1): number {
    const v = this.row[field];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v === 'number' && Number.isInteger(v) && v >= min) return v;
    this.bad(field, `an integer ≥ ${min}`);
    return fallback ?? min;
  }

  bool(field: string, fallback?: boolean): boolean {
    const v = this.row[field];
    if ((v === undefined || v === null) && fallback !== undefined) return fallback;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
    this.bad(field, 'true or false');
    return false;
  }

  number(field: string, optional = false): number | undefined {
    const v = this.row[field];
    if ((v === undefined || v === null) && optional) return undefined;
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
    this.bad(field, 'a finite number ≥ 0');
    return undefined;
  }

  /** Every finite numeric field that is not part of the identity. */
  metrics(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(this.row)) {
      if (typeof v === 'number' && Number.isFinite(v) && isMeasurementKey(k)) out[k] = v;
    }
    return out;
  }
}

function side(f: Fields, prefix: string, fallbackWorkers: number): SideTopology {
  // A multinode aggregated point has no decode side: its decode tp and ep are 0.
  const least = prefix === '' ? 1 : 0;
  const tp = f.int(`${prefix}tp`, undefined, least);
  const pp = f.int(`${prefix}pp`, 1);
  const pcp = f.int(`${prefix}pcp_size`, 1);
  return {
    tp,
    pp,
    dcp: f.int(`${prefix}dcp_size`, 1),
    pcp,
    ep: f.int(`${prefix}ep`, 1, least),
    dp_attention: f.bool(`${prefix}dp_attention`, false),
    num_workers: f.int(`${prefix}num_workers`, fallbackWorkers, 0),
    num_gpu: tp * pp * pcp,
  };
}

export function identity(f: Fields, modelPrefixKey: string): ConfigIdentity {
  const multinode = f.bool('is_multinode', false);
  let prefill: SideTopology;
  let decode: SideTopology;
  if (multinode) {
    prefill = side(f, 'prefill_', 1);
    decode = side(f, 'decode_', 1);
    // The aggregate's GPU counts win: a worker pool's GPUs are tp × workers, or what the recipe placed.
    if (f.has('num_prefill_gpu')) prefill.num_gpu = f.int('num_prefill_gpu', undefined, 0);
    if (f.has('num_decode_gpu')) decode.num_gpu = f.int('num_decode_gpu', undefined, 0);
  } else {
    prefill = side(f, '', 0);
    decode = { ...prefill };
  }
  return {
    hardware: hardwareOf(f.text('hw')),
    framework: frameworkOf(f.text('framework')),
    model: f.text('model'),
    model_prefix: f.text(modelPrefixKey),
    precision: precisionOf(f.text('precision')),
    spec_method: f.text('spec_decoding', 'none') || 'none',
    disagg: f.bool('disagg', multinode),
    is_multinode: multinode,
    prefill,
    decode,
    image: f.text('image', '').replace(/#/g, '/'),
    recipe_fingerprint: f.text('recipe_fingerprint', ''),
  };
}

export function asObject(
  row: unknown,
  file: string,
  index: number | undefined,
  problems: IngestProblem[],
): Record<string, unknown> | undefined {
  if (row !== null && typeof row === 'object' && !Array.isArray(row)) return row as Record<string, unknown>;
  problems.push({ file, index, message: `expected an object, got ${JSON.stringify(row)?.slice(0, 60)}` });
  return undefined;
}

/** One point of `agg_bmk.json` (a fixed-sequence-length aggregate); undefined when it has problems. */
export function readBenchmarkRow(
  row: unknown,
  file: string,
  index: number,
  problems: IngestProblem[],
): BenchmarkInput | undefined {
  const obj = asObject(row, file, index, problems);
  if (!obj) return undefined;
  const before = problems.length;
  const f = new Fields(obj, file, index, problems);
  const config = identity(f, 'infmax_model_prefix');
  const out: BenchmarkInput = {
    config,
    isl: f.int('isl'),
    osl: f.int('osl'),
    conc: f.int('conc'),
    runner: f.text('hw'),
    metrics: f.metrics(),
    power: powerVerdict(obj, undefined, false),
    power_flags: { power_valid: obj.power_valid, power_metric_schema_version: obj.power_metric_schema_version },
    repeats: readRepeats(obj.repeats, (message) => void problems.push({ file, index, field: 'repeats', message })),
  };
  keepMeasuredIfValid(out.metrics, out.power);
  if (out.repeats) for (const key of Object.keys(out.repeats.metrics)) if (!(key in out.metrics)) delete out.repeats.metrics[key];
  for (const k of ['tput_per_gpu', 'output_tput_per_gpu', 'input_tput_per_gpu']) f.number(k);
  for (const k of ['median_ttft', 'median_tpot', 'median_e2el']) f.number(k);
  return problems.length === before ? out : undefined;
}

const REPEAT_SCOPES: readonly RepeatScope[] = ['launch', 'point'];

/** An aggregate's `repeats` key (results/repeats.ts); absent is one sample. Statistics are recomputed from the values. */
function readRepeats(raw: unknown, problem: (message: string) => undefined): RepeatsBlock | undefined {
  if (raw === undefined || raw === null) return undefined;
  const r = raw as Partial<Record<keyof RepeatsBlock, unknown>>;
  if (typeof raw !== 'object' || Array.isArray(raw) || typeof r.metrics !== 'object' || r.metrics === null) {
    problem('expected { n, scope, metrics } (frontier run --repeats writes it)');
    return undefined;
  }
  const n = r.n;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    return problem(`expected n, an integer ≥ 1, got ${JSON.stringify(n)}`);
  if (!REPEAT_SCOPES.includes(r.scope as RepeatScope))
    return problem(`expected scope "launch" or "point", got ${JSON.stringify(r.scope)}`);
  const metrics: RepeatsBlock['metrics'] = {};
  for (const [key, m] of Object.entries(r.metrics as Record<string, { values?: unknown }>)) {
    const values = m?.values;
    if (!isMeasurementKey(key)) continue;
    if (!Array.isArray(values) || values.length !== n || !values.every((v) => typeof v === 'number' && Number.isFinite(v)))
      return problem(`metrics.${key}.values: expected ${n} finite numbers`);
    metrics[key] = repeatedMetric(values as number[]);
  }
  return { n, scope: r.scope as RepeatScope, metrics };
}

/** One row of `agg_eval_all.json`; undefined when it has problems. */
export function readEvalRow(row: unknown, file: string, index: number, problems: IngestProblem[]): EvalInput | undefined {
  const obj = asObject(row, file, index, problems);
  if (!obj) return undefined;
  const before = problems.length;
  const f = new Fields(obj, file, index, problems);
  // Eval rows carry the flat topology (tp, ep, dp_attention) and the per-side one; identity reads the one that applies.
  const config = identity(f, 'model_prefix');
  // collect_eval_results.py scores a row by em_strict only: a task whose filter is not a "strict"
  // one (GPQA's extract_abcd, AIME's extract_boxed) gets score null and its number in em_flexible.
  const primary = obj.score === null && typeof obj.em_flexible === 'number' ? 'em_flexible' : 'score';
  const score = f.number(primary);
  const out: EvalInput = {
    config,
    task: f.text('task').toLowerCase(),
    isl: f.int('isl', 0, 0),
    osl: f.int('osl', 0, 0),
    conc: f.int('conc', 0, 0),
    score: score ?? 0,
    score_se: f.number(primary === 'score' ? 'score_se' : 'em_flexible_se', true),
    score_name: primary === 'score' ? f.text('score_name', '') : 'em_flexible',
    n_eff: f.number('n_eff', true),
    metrics: f.metrics(),
    source: f.text('source', ''),
    samples: {},
  };
  return problems.length === before ? out : undefined;
}
