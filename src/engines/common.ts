import type {
  ClientSettings,
  Deployment,
  EngineProcess,
  Launch,
  Placement,
  Pool,
  Probe,
  ProcessRole,
  ProcessTuning,
  SyntheticAcceptance,
  WorkerPlacement,
  WorkerShape,
} from './types.js';
import { UserError } from '../util/user-error.js';

/**
 * What the GPU engine adapters (vllm, sglang, trt, dynamo-*) share: their options (the cluster
 * profile's `engines.<framework>`, kebab-case keys with string, number or boolean values), the
 * checks every engine makes, batch sizing from the deployment's concurrency, and the client
 * settings. Pure: nothing here reads files or the environment.
 */

export interface OptionSpec {
  type: 'string' | 'number' | 'boolean';
  /** One line for `check()` messages and the README. */
  doc: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** Options every GPU adapter reads. */
export const COMMON_OPTIONS: OptionSpecs = {
  'extra-args': { type: 'string', doc: 'arguments appended to every engine command, split like a shell (quotes group words)' },
  env: { type: 'string', doc: 'NAME=value pairs, split like a shell, set on every engine process' },
  tokenizer: {
    type: 'string',
    doc: 'the load generator tokenizer: server (the engine /tokenize), model (the model path) or a path',
  },
  'trust-remote-code': { type: 'boolean', doc: 'let the engine run code from the model repository' },
  'kv-cache-dtype': {
    type: 'string',
    doc: 'KV cache dtype: auto keeps the engine default (default: fp8 for fp8 and fp4 checkpoints)',
  },
  'mtp-tokens': { type: 'number', doc: 'draft tokens per step for spec-decoding mtp' },
};

export class OptionError extends UserError {}

/** Split a string into words as a POSIX shell would: whitespace separates, quotes and backslashes group. */
export function splitArgs(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && next !== undefined && '"\\$`'.includes(next)) {
        word += next;
        i++;
      } else word += c;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      inWord = true;
      if (c === "'" || c === '"') quote = c;
      else if (c === '\\') {
        if (next === undefined) throw new OptionError(`a trailing backslash in ${JSON.stringify(text)}`);
        word += next;
        i++;
      } else word += c;
    }
  }
  if (quote !== undefined) throw new OptionError(`an unclosed ${quote} in ${JSON.stringify(text)}`);
  if (inWord) words.push(word);
  return words;
}

const raw = (d: Deployment, key: string): string | number | boolean | undefined => d.options[key];

export function optString(d: Deployment, key: string): string | undefined {
  const v = raw(d, key);
  return v === undefined ? undefined : String(v);
}

export function optNumber(d: Deployment, key: string): number | undefined {
  const v = raw(d, key);
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new OptionError(`option ${key} ${JSON.stringify(v)} is not a number`);
  return n;
}

export function optBool(d: Deployment, key: string): boolean {
  const v = raw(d, key);
  if (v === undefined || v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  throw new OptionError(`option ${key} ${JSON.stringify(v)} is not true or false`);
}

/** An option holding arguments (split like a shell); empty when unset. */
export function optArgs(d: Deployment, key: string): string[] {
  const v = optString(d, key);
  return v === undefined ? [] : splitArgs(v);
}

/** The `env` option as a record. */
export function optEnv(d: Deployment): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of optArgs(d, 'env')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
    if (!m) throw new OptionError(`option env: "${pair}" is not NAME=value`);
    env[m[1]!] = m[2]!;
  }
  return env;
}

/** An option holding a JSON object; undefined when unset. */
export function optJsonObject(d: Deployment, key: string): Record<string, unknown> | undefined {
  const v = optString(d, key);
  if (v === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch (e) {
    throw new OptionError(`option ${key} is not JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new OptionError(`option ${key} is not a JSON object ({"key": value, …})`);
  return parsed as Record<string, unknown>;
}

/**
 * Problems with the options: unknown keys (with the known ones), wrong types, strings that do
 * not parse. `parse` runs the adapter's own readers so that what `launch` would throw shows here.
 */
export function optionProblems(d: Deployment, specs: OptionSpecs, parse: (d: Deployment) => void = () => {}): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(d.options)) {
    const spec = specs[key];
    if (spec === undefined) {
      problems.push(`unknown ${d.framework} option "${key}": use one of ${Object.keys(specs).sort().join(', ')}`);
      continue;
    }
    try {
      if (spec.type === 'number') optNumber(d, key);
      else if (spec.type === 'boolean') optBool(d, key);
    } catch (e) {
      problems.push(
        `${(e as Error).message}: set ${key} to ${spec.type === 'number' ? 'a number' : 'true or false'} (${spec.doc})`,
      );
      continue;
    }
    if (spec.type === 'string' && typeof value !== 'string')
      problems.push(`option ${key} ${JSON.stringify(value)} is not a string: quote it (${spec.doc})`);
  }
  if (problems.length > 0) return problems;
  try {
    parse(d);
  } catch (e) {
    if (!(e instanceof OptionError)) throw e;
    problems.push(`${e.message}: fix the option in the cluster profile (engines.${d.framework})`);
  }
  return problems;
}

/** The option readers every adapter's `launch` runs (so `check` reports what they would throw). */
export function parseCommonOptions(d: Deployment): void {
  optArgs(d, 'extra-args');
  optEnv(d);
}

/** Shapes of a layout, named as the catalog names them. */
export function shapesOf(d: Deployment): [string, WorkerShape][] {
  return d.layout.kind === 'aggregated'
    ? [['worker', d.layout.worker]]
    : [
        ['prefill', d.layout.prefill],
        ['decode', d.layout.decode],
      ];
}

/** Checks every GPU engine makes: its framework, sizes, spec decoding, lengths. */
export function commonProblems(d: Deployment, frameworks: readonly string[]): string[] {
  const problems: string[] = [];
  if (!frameworks.includes(d.framework))
    problems.push(
      `framework ${d.framework} is not served by this adapter (it serves ${frameworks.join(', ')}): pick the adapter of the framework`,
    );
  for (const [name, w] of shapesOf(d)) {
    for (const key of ['tp', 'pp', 'ep', 'dcp', 'pcp'] as const)
      if (!Number.isInteger(w[key]) || w[key] < 1) problems.push(`${name} ${key} ${w[key]}: must be a whole number ≥ 1`);
    if ('workers' in w && (!Number.isInteger((w as Pool).workers) || (w as Pool).workers < 1))
      problems.push(`${name} num-worker ${(w as Pool).workers}: a disaggregated deployment needs at least one ${name} worker`);
  }
  if (d.specDecoding === 'draft_model')
    problems.push(
      'spec-decoding draft_model needs a draft checkpoint the deployment does not name: use spec-decoding mtp or none, or pass the engine flags in extra-args with spec-decoding none',
    );
  if (!(d.maxConcurrency >= 1)) problems.push(`max concurrency ${d.maxConcurrency}: must be at least 1`);
  if (d.maxModelLen < d.isl + d.osl)
    problems.push(
      `max-model-len ${d.maxModelLen} is below isl + osl (${d.isl + d.osl}): requests that long would be rejected; raise max-model-len`,
    );
  return problems;
}

/** A plain engine serves aggregated deployments only. */
export function aggregatedOnly(d: Deployment, engine: string, dynamoFramework: string): string[] {
  if (d.layout.kind === 'aggregated') return [];
  return [
    `${engine} alone cannot serve a disaggregated (prefill/decode) deployment: Frontier launches disaggregated deployments through the dynamo-* adapters; use framework ${dynamoFramework}`,
  ];
}

/** Context parallelism an engine does not implement. */
export function noContextParallel(d: Deployment, engine: string): string[] {
  const problems: string[] = [];
  for (const [name, w] of shapesOf(d)) {
    if (w.dcp > 1) problems.push(`${name} dcp ${w.dcp}: ${engine} has no decode context parallelism here; set dcp to 1`);
    if (w.pcp > 1) problems.push(`${name} pcp ${w.pcp}: ${engine} has no prefill context parallelism here; set pcp to 1`);
  }
  return problems;
}

/** Data-parallel ranks of a worker: with dp-attn, one per GPU of its tensor-parallel group. */
export const dpRanks = (w: WorkerShape): number => (w.dpAttn ? w.tp : 1);

/**
 * Requests one engine rank must hold: the run's highest concurrency split over the worker's DP
 * ranks (each rank schedules its own batch, as InferenceX's trt scripts size max_batch_size:
 * CONC/8 under attention DP). Workers are not divided: a router need not balance them evenly.
 */
export const perRankBatch = (d: Deployment, w: WorkerShape): number => Math.max(1, Math.ceil(d.maxConcurrency / dpRanks(w)));

/** The KV cache dtype to ask for, or undefined for the engine's default. */
export function kvCacheDtype(d: Deployment): string | undefined {
  const o = optString(d, 'kv-cache-dtype');
  if (o !== undefined) return o === 'auto' ? undefined : o;
  // fp8 KV for fp8/fp4 checkpoints, as nearly every InferenceX script and srt-slurm recipe of
  // those precisions sets it (e.g. benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh).
  return d.precision === 'fp8' || d.precision === 'fp4' ? 'fp8' : undefined;
}

export const mtpTokens = (d: Deployment, fallback: number): number => optNumber(d, 'mtp-tokens') ?? fallback;

/** `{"kv_connector":…}`-style JSON for a flag value: compact, keys in the given order. */
export const json = (v: unknown): string => JSON.stringify(v);

/** Deep merge of plain objects (b wins). */
export function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      typeof prev === 'object' &&
      prev !== null &&
      !Array.isArray(prev) &&
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v)
        ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/**
 * The client as InferenceX runs it: `--backend vllm` against /v1/completions. `draftTokens`: the
 * engine's draft length for a worker shape, to know the AL injected into the decoding workers.
 */
export function clientSettings(d: Deployment, engineTokenizes: boolean, draftTokens: (w: WorkerShape) => number): ClientSettings {
  const mtp = d.specDecoding === 'mtp';
  const option = optString(d, 'tokenizer');
  // The server tokenizer carries no chat template; with mtp (every *_mtp.sh passes
  // --use-chat-template) the model's own tokenizer_config.json supplies it.
  const tokenizer =
    option === undefined ? (engineTokenizes && !mtp ? 'server' : d.modelPath) : option === 'model' ? d.modelPath : option;
  // DeepSeek-V4's template is its own encoder, which InferenceX's dsv4 scripts select with --dsv4.
  const dsv4 = mtp && /deepseek-v4/i.test(d.model);
  const expected = expectedAcceptanceLength(d, draftTokens);
  return {
    backend: 'vllm',
    endpoint: '/v1/completions',
    tokenizer,
    useChatTemplate: mtp,
    ...(dsv4 ? { dsv4 } : {}),
    ...(expected !== undefined ? { expectedAcceptanceLength: expected } : {}),
    timeScale: 1,
  };
}

/** The synthetic AL of the workers that decode (they are the ones whose acceptance is measured); undefined without one. */
export function expectedAcceptanceLength(d: Deployment, draftTokens: (w: WorkerShape) => number): number | undefined {
  if (d.specDecoding !== 'mtp' || !d.syntheticAcceptance) return undefined;
  const decoder = d.layout.kind === 'aggregated' ? d.layout.worker : d.layout.decode;
  return syntheticAl(d.syntheticAcceptance, draftTokens(decoder));
}

/** Ready when /v1/models lists the served name. */
export const modelsProbe = (name: string): Probe => ({ path: '/v1/models', contains: name });

/** Process names: `server`, `prefill-3`, with `-n1`… for the further nodes a worker spans. */
export const processName = (base: string, rank: number): string => (rank === 0 ? base : `${base}-n${rank}`);

/** The one aggregated worker a plain engine serves. */
export function onlyWorker(placement: Placement, engine: string): WorkerPlacement {
  const workers = placement.workers.filter((w) => w.role === 'aggregated');
  if (workers.length !== 1 || placement.workers.length !== 1)
    throw new Error(
      `${engine} serves one aggregated worker, the placement has ${placement.workers.length}: place one worker, or serve several behind a router with a dynamo-* framework`,
    );
  return workers[0]!;
}

/** An engine process with the option env merged in, then the deployment's tuning applied. */
export function engineProcess(d: Deployment, p: EngineProcess): EngineProcess {
  return tuneProcess(d, { ...p, env: { ...p.env, ...optEnv(d) } });
}

/**
 * The tuning of a process of `role`: a prefill or decode worker of a deployment tuned per role
 * gets its role's settings; every other engine process (aggregated workers) the flat settings.
 */
export function tuningFor(d: Deployment, role: ProcessRole): ProcessTuning | undefined {
  const t = d.tuning;
  if (!t) return undefined;
  if (role === 'prefill' || role === 'decode') return t.prefill !== undefined || t.decode !== undefined ? t[role] : t;
  return role === 'server' ? t : undefined;
}

/** A word that is a flag's value, not a flag: anything not starting with "-", and negative numbers. */
const isValueWord = (w: string | undefined): boolean => w !== undefined && (!w.startsWith('-') || /^-\d/.test(w));

/** Where `flag` is written in argv: [start, end) of the flag (or `flag=value`) and its value word, if any. */
export function flagSpans(argv: readonly string[], flag: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === flag) {
      const end = isValueWord(argv[i + 1]) ? i + 2 : i + 1;
      spans.push([i, end]);
      i = end - 1;
    } else if (w.startsWith(`${flag}=`)) spans.push([i, i + 1]);
  }
  return spans;
}

/** Whether argv has `flag` (as a word or `flag=value`). */
export const hasFlag = (argv: readonly string[], flag: string): boolean => flagSpans(argv, flag).length > 0;

/**
 * Apply tuning to an engine command: `remove` drops each flag (with its value) wherever it is
 * written; each of `args` replaces the first place its flag is written (dropping later ones, so a
 * flag is never given twice) or, when the command has no such flag, is appended.
 */
export function tuneCommand(argv: readonly string[], t: ProcessTuning): string[] {
  let out = [...argv];
  const drop = (flag: string, keepFirst: boolean): number | undefined => {
    const spans = flagSpans(out, flag);
    if (spans.length === 0) return undefined;
    for (const [start, end] of spans.slice(keepFirst ? 1 : 0).reverse()) out.splice(start, end - start);
    return spans[0]![0];
  };
  for (const flag of t.remove ?? []) drop(flag, false);
  for (const [flag, value] of Object.entries(t.args ?? {})) {
    const words = [flag, ...(value === true ? [] : typeof value === 'string' ? [value] : value)];
    const at = drop(flag, true);
    if (at === undefined) {
      out = [...out, ...words];
      continue;
    }
    const [start, end] = flagSpans(out, flag)[0]!;
    out.splice(start, end - start, ...words);
  }
  return out;
}

/** A process with its role's tuning applied: command edited, tuning env over the rest. */
export function tuneProcess(d: Deployment, p: EngineProcess): EngineProcess {
  const t = tuningFor(d, p.role);
  if (!t) return p;
  return { ...p, command: tuneCommand(p.command, t), env: { ...p.env, ...t.env } };
}

/**
 * Tuning that does nothing, found by rendering the launch without it: a `remove` of a flag no
 * process of its role has. Each a sentence with the fix.
 */
export function tuningProblems(d: Deployment, untuned: Launch): string[] {
  const problems: string[] = [];
  for (const role of ['server', 'prefill', 'decode'] as const) {
    const t = tuningFor(d, role);
    const processes = untuned.processes.filter((p) => p.role === role);
    if (!t || processes.length === 0) continue;
    for (const flag of t.remove ?? [])
      if (!processes.some((p) => hasFlag(p.command, flag)))
        problems.push(
          `engine-tuning removes ${flag}, which the ${d.framework} adapter does not render for ${role === 'server' ? 'this deployment' : `its ${role} workers`}: drop it from remove (the flags rendered are in frontier run --dry-run)`,
        );
  }
  return problems;
}

export class SyntheticAcceptanceError extends Error {}

/** The AL to inject at a draft length. */
export function syntheticAl(s: SyntheticAcceptance, draftTokens: number): number {
  const al = s.fixed ?? s.curve[draftTokens];
  if (al === undefined)
    throw new SyntheticAcceptanceError(
      `no golden AL at draft length ${draftTokens} (${s.source} has ${Object.keys(s.curve).join(', ')}); set the engine's mtp-tokens option to one of them`,
    );
  if (al > draftTokens + 1)
    throw new SyntheticAcceptanceError(
      `AL ${al} (${s.source}) cannot be reached with ${draftTokens} draft tokens (at most ${draftTokens + 1})`,
    );
  return al;
}
