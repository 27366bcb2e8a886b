/**
 * `utils/collect_eval_results.py` (InferenceX 843c6254f, the collect-evals workflow): one row per
 * lm-eval task result found under a folder of downloaded eval artifacts, written as
 * `agg_eval_<exp>.json` (Python `json.dump(rows, f, indent=2)`), plus the markdown tables the
 * reference prints for the step summary.
 *
 * - Artifact folders: the root itself when it holds meta_env.json, and each immediate
 *   subfolder that does. The reference visits them in `Path.iterdir()` order (whatever the file
 *   system returns); here they are sorted by name, so the output is the same on every machine.
 * - Result files: every `*.json` but meta_env.json whose top level has `lm_eval_version`. A legacy
 *   folder gives its newest one (by mtime); a batched folder (meta_env.json has an `eval_concs`
 *   list) the newest per `_conc<N>` suffix, ascending, only for `completed_eval_concs`, and the
 *   row's conc is N.
 * - Per task: `<metric>,<filter>` of the filter whose name has "strict" or "resolved" is the
 *   strict score, one with "flex" or "extract" the flexible one; without filters `acc`, else the
 *   bare metric. `score` is the strict score when there is one, else the accuracy.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  PyFloat,
  byCodePoint,
  dumps,
  isDict,
  pyEquals,
  pyFixed,
  pyFloat,
  pyInt,
  pyIntFromString,
  pyPath,
  pyStr,
  pyTruthy,
  readPyJson,
} from '../pycompat/index.js';
import { columnWidths, textTable } from '../util/text-table.js';
import type { Align } from '../util/text-table.js';
import { EvalInputError } from './thresholds.js';

/** One row of agg_eval_all.json, keys in the reference's order. */
export interface EvalRow {
  is_multinode: boolean;
  model_prefix: unknown;
  model: unknown;
  hw: string;
  framework: string;
  precision: string;
  spec_decoding: unknown;
  isl: number;
  osl: number;
  tp: number;
  ep: number;
  prefill_tp: number;
  prefill_ep: number;
  prefill_num_workers: number;
  decode_tp: number;
  decode_ep: number;
  decode_num_workers: number;
  conc: number;
  dp_attention: string;
  prefill_dp_attention: string;
  decode_dp_attention: string;
  task: string;
  /** Values as the results JSON holds them (floats as PyFloat, so they print as Python wrote them). */
  em_strict: unknown;
  em_strict_se: unknown;
  em_flexible: unknown;
  em_flexible_se: unknown;
  n_eff: unknown;
  /** `str(Path(<root as given>) / <artifact dir> / <file>)`. */
  source: string;
  score: unknown;
  score_name: 'em_strict' | 'accuracy' | null;
  score_se: unknown;
}

interface TaskMetrics {
  task: string;
  strict: unknown;
  strictSe: unknown;
  flex: unknown;
  flexSe: unknown;
  accuracy: unknown;
  accuracySe: unknown;
  nEff: unknown;
  model: unknown;
  source: string;
}

const CONC_SUFFIX_RE = /_conc(\p{Nd}+)(?:_\p{Nd}+)?\.json(?=\n?$)/u;

const resultConcurrency = (name: string): number | undefined => {
  const m = CONC_SUFFIX_RE.exec(name);
  return m ? pyIntFromString(m[1]!, 'concurrency') : undefined;
};

/** `load_json`: the parsed file, or undefined for anything unreadable (the reference returns None). */
function loadJson(path: string): unknown {
  const read = readPyJson(path, path);
  return read.ok ? read.value : undefined;
}

const get = (obj: unknown, key: string, fallback: unknown = undefined): unknown =>
  isDict(obj) && Object.hasOwn(obj, key) ? obj[key] : fallback;

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};
const exists = (path: string): boolean => {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
};
const mtime = (path: string): number => statSync(path).mtimeMs;

/** `find_eval_sets`: folder names relative to the root ('' for the root itself). */
function findEvalSets(root: string): string[] {
  const out: string[] = [];
  if (exists(join(root, 'meta_env.json'))) out.push('');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return out;
  }
  for (const name of names.sort(byCodePoint)) {
    if (isDirectory(join(root, name)) && exists(join(root, name, 'meta_env.json'))) out.push(name);
  }
  return out;
}

/** `detect_lm_eval_jsons`: file names of the lm-eval results to use in one artifact folder. */
function detectLmEvalJsons(dir: string, batched: boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const lm = names
    .filter((name) => name.endsWith('.json') && !name.startsWith('.') && name !== 'meta_env.json')
    .sort(byCodePoint)
    .filter((name) => {
      const data = loadJson(join(dir, name));
      return isDict(data) && 'lm_eval_version' in data;
    });
  if (lm.length === 0) return [];
  // Newest by mtime; on a tie the later name (the reference's pick among equals is arbitrary).
  const newer = (a: string, b: string): boolean => mtime(join(dir, a)) >= mtime(join(dir, b));
  if (!batched) return [lm.reduce((best, name) => (newer(name, best) ? name : best))];
  const latest = new Map<number, string>();
  for (const name of lm) {
    const conc = resultConcurrency(name);
    if (conc === undefined) continue;
    const current = latest.get(conc);
    if (current === undefined || newer(name, current)) latest.set(conc, name);
  }
  return [...latest.keys()].sort((a, b) => a - b).map((conc) => latest.get(conc)!);
}

const contains = (name: unknown, part: string): boolean => typeof name === 'string' && name.includes(part);

/** `extract_lm_metrics`: one entry per task of an lm-eval results JSON. */
function extractLmMetrics(path: string, source: string): TaskMetrics[] {
  const data = loadJson(path) ?? {};
  const results = get(data, 'results', {});
  const configs = get(data, 'configs', {});
  if (!pyTruthy(results) || !isDict(results)) return [];
  const out: TaskMetrics[] = [];
  for (const [task, taskResults] of Object.entries(results)) {
    const taskConfig = get(configs, task, {});
    const metricList = get(taskConfig, 'metric_list', []);
    const baseMetric = Array.isArray(metricList) && metricList.length > 0 ? pyStr(get(metricList[0], 'metric')) : 'exact_match';
    const filterList = get(taskConfig, 'filter_list', []);
    const pair = (filter: string): [unknown, unknown] => [
      get(taskResults, `${baseMetric},${filter}`, null),
      get(taskResults, `${baseMetric}_stderr,${filter}`, null),
    ];
    let strict: [unknown, unknown] = [null, null];
    let flex: [unknown, unknown] = [null, null];
    let accuracy: [unknown, unknown] = [null, null];
    if (!pyTruthy(filterList) || !Array.isArray(filterList)) {
      if (isDict(taskResults) && 'acc' in taskResults)
        accuracy = [get(taskResults, 'acc', null), get(taskResults, 'acc_stderr', null)];
      else strict = [get(taskResults, baseMetric, null), get(taskResults, `${baseMetric}_stderr`, null)];
    } else {
      for (const f of filterList) {
        const name = get(f, 'name');
        // SWE-bench's primary score is its resolved rate.
        if (contains(name, 'strict') || contains(name, 'resolved')) strict = pair(pyStr(name));
        else if (contains(name, 'flex') || contains(name, 'extract')) flex = pair(pyStr(name));
      }
    }
    const model = get(data, 'model_name', null);
    out.push({
      task,
      strict: strict[0],
      strictSe: strict[1],
      flex: flex[0],
      flexSe: flex[1],
      accuracy: accuracy[0],
      accuracySe: accuracy[1],
      nEff: get(get(get(data, 'n-samples', {}), task, {}), 'effective', null),
      model: pyTruthy(model) ? model : get(get(taskConfig, 'metadata', {}), 'model', null),
      source,
    });
  }
  return out;
}

/** `as_int`: Python int(x), else the default. */
function asInt(x: unknown, fallback: number): number {
  try {
    return x === undefined ? fallback : pyInt(x, 'value');
  } catch {
    return fallback;
  }
}

/** `as_bool`: a bool as is, None → the default, anything else str(x).lower() == 'true'. */
function asBool(x: unknown, fallback: boolean): boolean {
  if (typeof x === 'boolean') return x;
  if (x === null || x === undefined) return fallback;
  return pyStr(x).toLowerCase() === 'true';
}

const lower = (x: unknown): string => pyStr(x).toLowerCase();

/** `build_row`: the metadata of the artifact and one task's metrics. */
function buildRow(meta: Record<string, unknown>, m: TaskMetrics): EvalRow {
  const metaGet = (key: string, fallback?: unknown): unknown => (Object.hasOwn(meta, key) ? meta[key] : fallback);
  const isMultinode = asBool(metaGet('is_multinode'), false);
  const prefillTp = asInt(metaGet('prefill_tp', metaGet('tp', 1)), 1);
  const prefillEp = asInt(metaGet('prefill_ep', metaGet('ep', 1)), 1);
  const decodeTp = asInt(metaGet('decode_tp', metaGet('tp', 1)), 1);
  const decodeEp = asInt(metaGet('decode_ep', metaGet('ep', 1)), 1);
  let dpAttention = metaGet('dp_attention', 'none');
  const prefillDp: unknown = metaGet('prefill_dp_attention') ?? dpAttention;
  const decodeDp: unknown = metaGet('decode_dp_attention') ?? dpAttention;
  if (isMultinode) {
    dpAttention = pyEquals(prefillDp, decodeDp) ? prefillDp : `prefill=${lower(prefillDp)},decode=${lower(decodeDp)}`;
  }
  const strict = m.strict ?? null;
  const accuracy = m.accuracy ?? null;
  const [score, scoreName, scoreSe]: [unknown, EvalRow['score_name'], unknown] =
    strict !== null
      ? [strict, 'em_strict', m.strictSe]
      : accuracy !== null
        ? [accuracy, 'accuracy', m.accuracySe]
        : [null, null, null];
  return {
    is_multinode: isMultinode,
    model_prefix: metaGet('infmax_model_prefix', 'unknown'),
    model: pyTruthy(m.model) ? m.model : metaGet('model', 'unknown'),
    hw: pyStr(metaGet('hw', 'unknown')).toUpperCase(),
    framework: lower(metaGet('framework', 'unknown')),
    precision: lower(metaGet('precision', 'unknown')),
    spec_decoding: metaGet('spec_decoding', 'unknown'),
    isl: asInt(metaGet('isl', 0), 0),
    osl: asInt(metaGet('osl', 0), 0),
    tp: asInt(metaGet('tp', prefillTp), prefillTp),
    ep: asInt(metaGet('ep', prefillEp), prefillEp),
    prefill_tp: prefillTp,
    prefill_ep: prefillEp,
    prefill_num_workers: asInt(metaGet('prefill_num_workers', 1), 1),
    decode_tp: decodeTp,
    decode_ep: decodeEp,
    decode_num_workers: asInt(metaGet('decode_num_workers', 1), 1),
    conc: asInt(metaGet('conc', 0), 0),
    dp_attention: lower(dpAttention),
    prefill_dp_attention: lower(prefillDp),
    decode_dp_attention: lower(decodeDp),
    task: m.task,
    em_strict: m.strict,
    em_strict_se: m.strictSe,
    em_flexible: m.flex,
    em_flexible_se: m.flexSe,
    n_eff: m.nEff,
    source: m.source,
    score,
    score_name: scoreName,
    score_se: scoreSe ?? null,
  };
}

export interface CollectOptions {
  /** Where a relative root starts (default: process.cwd()). `source` keeps the root as given. */
  cwd?: string;
}

/**
 * `collect_eval_rows(Path(root))`: every row under `root`, artifact folders in name order. A
 * root that does not exist gives no rows, as in the reference.
 */
export function collectEvalResults(root: string, options: CollectOptions = {}): EvalRow[] {
  const base = resolve(options.cwd ?? process.cwd(), root);
  const rows: EvalRow[] = [];
  for (const name of findEvalSets(base)) {
    const dir = join(base, name);
    const loaded = loadJson(join(dir, 'meta_env.json'));
    const meta = isDict(loaded) ? loaded : {};
    const batchConcs = get(meta, 'eval_concs');
    const batched = Array.isArray(batchConcs);
    let allowed: Set<number> | undefined;
    if (batched) {
      const completed = get(meta, 'completed_eval_concs', batchConcs);
      if (Array.isArray(completed)) allowed = new Set(completed.map((c) => asInt(c, -1)));
    }
    for (const file of detectLmEvalJsons(dir, batched)) {
      let rowMeta = meta;
      if (batched) {
        const conc = resultConcurrency(file);
        if (conc === undefined || (allowed !== undefined && !allowed.has(conc))) continue;
        rowMeta = { ...meta, conc };
      }
      const source = pyPath(name === '' ? `${root}/${file}` : `${root}/${name}/${file}`);
      for (const metrics of extractLmMetrics(join(dir, file), source)) rows.push(buildRow(rowMeta, metrics));
    }
  }
  return rows;
}

/** Check that `root` is a directory before collecting (the reference silently finds nothing). */
export function requireDirectory(root: string, cwd = process.cwd()): void {
  if (!isDirectory(resolve(cwd, root))) {
    throw new EvalInputError(
      `${root}: ${exists(resolve(cwd, root)) ? 'not a directory' : 'no such directory'}; ` +
        'give the folder of downloaded eval artifacts (each with a meta_env.json)',
    );
  }
}

/** `agg_eval_<exp>.json` as `json.dump(rows, f, indent=2)` writes it (no final newline). */
export const formatAggJson = (rows: readonly EvalRow[]): string => dumps(rows, { indent: 2 });

// ------------------------------------------------------------------------------ the tables

/** `pct`: `f"{float(x)*100:.2f}%"`, 'N/A' when x is not a number. */
function pct(x: unknown): string {
  try {
    return `${pyFixed(pyFloat(x instanceof PyFloat ? x.value : x, 'score') * 100, 2)}%`;
  } catch {
    return 'N/A';
  }
}

/** `se`: `f" ±{float(x)*100:.2f}%"`, '' when x is not a number. */
function se(x: unknown): string {
  try {
    return ` ±${pyFixed(pyFloat(x instanceof PyFloat ? x.value : x, 'stderr') * 100, 2)}%`;
  } catch {
    return '';
  }
}

type Cell = string | number;

/** Python's tuple order for the sort keys (None first, numbers before strings, where Python would raise). */
function compareKeys(a: readonly unknown[], b: readonly unknown[]): number {
  const rank = (v: unknown): number =>
    v === null || v === undefined ? 0 : typeof v === 'number' || typeof v === 'boolean' ? 1 : 2;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    const d = rank(x) - rank(y);
    if (d !== 0) return d;
    if (rank(x) === 1 && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (rank(x) === 2) {
      const c = byCodePoint(pyStr(x), pyStr(y));
      if (c !== 0) return c;
    }
  }
  return 0;
}

/** A pipe table in the layout of tabulate's "github" format (numbers right-aligned, others left). */
function table(headers: readonly string[], rows: readonly Cell[][]): string {
  const numeric = headers.map((_, c) => rows.every((r) => typeof r[c] === 'number'));
  const cells = [headers, ...rows.map((r) => r.map((cell) => String(cell)))];
  // tabulate keeps two spaces beside a header at least.
  const minWidths = headers.map((h) => [...h].length + 2);
  const align = numeric.map((n): Align => (n ? 'right' : 'left'));
  const [head, ...body] = textTable(cells, { align, minWidths, gap: ' | ', trimEnd: false }).map((l) => `| ${l} |`);
  const rule = `|${columnWidths(cells, minWidths)
    .map((w) => '-'.repeat(w + 2))
    .join('|')}|`;
  return [head!, rule, ...body].join('\n');
}

const SINGLE_NODE_HEADERS = [
  'Model Prefix',
  'Hardware',
  'Framework',
  'Precision',
  'Spec Decode',
  'ISL',
  'OSL',
  'TP',
  'EP',
  'Conc',
  'DP Attention',
  'Task',
  'Score',
  'EM Strict',
  'EM Flexible',
  'N (eff)',
  'Model',
];
const MULTI_NODE_HEADERS = [
  'Model Prefix',
  'Hardware',
  'Framework',
  'Precision',
  'Spec Decode',
  'ISL',
  'OSL',
  'Prefill TP',
  'Prefill EP',
  'Prefill DP Attn',
  'Prefill Workers',
  'Decode TP',
  'Decode EP',
  'Decode DP Attn',
  'Decode Workers',
  'Conc',
  'Task',
  'Score',
  'EM Strict',
  'EM Flexible',
  'N (eff)',
  'Model',
];

const cell = (v: unknown): Cell => (typeof v === 'number' ? v : v instanceof PyFloat ? v.value : pyStr(v));
const scores = (r: EvalRow): Cell[] => [
  `${pct(r.score)}${se(r.score_se)}`,
  `${pct(r.em_strict)}${se(r.em_strict_se)}`,
  `${pct(r.em_flexible)}${se(r.em_flexible_se)}`,
  pyTruthy(r.n_eff) ? cell(r.n_eff) : '',
  cell(r.model),
];

/**
 * What the reference's main() prints: the single-node and multi-node tables (sorted by model
 * prefix, or by hardware with sortBy 'hw'), or a note that there is nothing.
 */
export function formatEvalTables(rows: readonly EvalRow[], sortBy: 'model_prefix' | 'hw' = 'model_prefix'): string {
  if (rows.length === 0) return '> No eval results found to summarize.\n';
  const lead = (r: EvalRow): unknown[] =>
    sortBy === 'hw'
      ? [r.hw, r.framework, r.precision, r.spec_decoding, r.isl, r.osl]
      : [r.model_prefix, r.hw, r.framework, r.precision, r.spec_decoding, r.isl, r.osl];
  const single = rows
    .filter((r) => !r.is_multinode)
    .sort((a, b) => compareKeys([...lead(a), a.tp, a.ep, a.conc], [...lead(b), b.tp, b.ep, b.conc]));
  const multi = rows.filter((r) => r.is_multinode);
  const multiKey = (r: EvalRow): unknown[] => [
    ...lead(r),
    r.prefill_tp,
    r.prefill_ep,
    r.prefill_num_workers,
    r.decode_tp,
    r.decode_ep,
    r.decode_num_workers,
    r.conc,
  ];
  multi.sort((a, b) => compareKeys(multiKey(a), multiKey(b)));
  let out = '';
  if (single.length > 0) {
    const body = single.map((r): Cell[] => [
      cell(r.model_prefix),
      r.hw,
      r.framework.toUpperCase(),
      r.precision.toUpperCase(),
      cell(r.spec_decoding),
      r.isl,
      r.osl,
      r.tp,
      r.ep,
      r.conc,
      r.dp_attention,
      r.task,
      ...scores(r),
    ]);
    out += `### Single-Node Eval Results\n\n${table(SINGLE_NODE_HEADERS, body)}\n`;
  }
  if (multi.length > 0) {
    const body = multi.map((r): Cell[] => [
      cell(r.model_prefix),
      r.hw,
      r.framework.toUpperCase(),
      r.precision.toUpperCase(),
      cell(r.spec_decoding),
      r.isl,
      r.osl,
      r.prefill_tp,
      r.prefill_ep,
      r.prefill_dp_attention,
      r.prefill_num_workers,
      r.decode_tp,
      r.decode_ep,
      r.decode_dp_attention,
      r.decode_num_workers,
      r.conc,
      r.task,
      ...scores(r),
    ]);
    if (single.length > 0) out += '\n\n';
    out += `### Multi-Node Eval Results\n\n${table(MULTI_NODE_HEADERS, body)}\n`;
  }
  return out;
}
