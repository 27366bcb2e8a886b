/**
 * Queue priority for the sweep's jobs, as InferenceX's `utils/ci_priority.py` assigns it: every
 * job of the matrix (an object with `runner` and `framework`) gets a score (higher runs sooner),
 * a queue token naming it uniquely within the run attempt, and, when the pull request asked to
 * skip the queue, that pull request's number. The annotated matrix prints byte for byte as the
 * reference prints it.
 */
import { createHash } from 'node:crypto';
import { pyRepr, pyStr } from '../pycompat/builtins.js';
import { PyFloat } from '../pycompat/float.js';
import { dumps } from '../pycompat/json.js';
import { UserError } from '../util/user-error.js';
import { ZERO, add, decimalOf, decimalText, quantize } from '../pycompat/decimal.js';
import type { Decimal } from '../pycompat/decimal.js';
import type { PriorityPolicy } from './priority-policy.js';

/** What the score depends on besides the job: the run's event, the pull request's labels and number, the classifier's criteria. */
export interface PriorityContext {
  eventName: string;
  labels: ReadonlySet<string>;
  /** Makes queue tokens unique per run attempt: `<run id>:<run attempt>` in Actions. */
  queueNamespace: string;
  prNumber?: number | undefined;
  /** The classifier's facts about the change; when given, they (not the job's own fields) earn the adjustments. */
  criteria?: ReadonlySet<string> | undefined;
}

export const DEFAULT_CONTEXT: PriorityContext = { eventName: '', labels: new Set(), queueNamespace: 'local' };

type Job = Record<string, unknown>;
type Score = number | string;
type Table = Record<string, Score> | undefined;

/** One adjustment that applied to a job: what earned it and how much. */
export interface PriorityTerm {
  reason: string;
  amount: Decimal;
}

/** A job's score and the adjustments that made it (the base score first). */
export interface PriorityExplanation {
  score: Decimal;
  terms: PriorityTerm[];
  /** Set when a patchwork label or criterion pinned the score. */
  patchwork?: string;
}

/** `dict.get(key, 0)` on an adjustment table, as a number. */
const lookup = (table: Table, key: string): Score | undefined =>
  table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

const matchesPrefix = (value: string, prefix: string): boolean => value === prefix || value.startsWith(`${prefix}-`);

/** A score's exponent: the reference quantizes to `Decimal("0.001")`. */
const SCORE_EXP = -3;

/** `d.quantize(Decimal("0.001"), ROUND_HALF_UP)`; a score too large for that (Python's InvalidOperation) is refused. */
export function quantizeScore(d: Decimal): Decimal {
  const quantized = quantize(d, SCORE_EXP);
  if (quantized === undefined) {
    throw new UserError(`a CI priority score of ${decimalText(d)} has more than 28 digits to the thousandth`, {
      hint: 'keep base-score and the adjustments in configs/ci-priority.yaml to sensible sizes',
    });
  }
  return quantized;
}

/** `f"{d:.3f}"` of a score: "-0.000" keeps its sign, as Python prints it. */
export const formatScore = (d: Decimal): string => decimalText(d.exp === SCORE_EXP ? d : quantizeScore(d));

/** The facts a classifier may report: the fixed ones and every key of the policy's fact tables. */
export function supportedCriteria(policy: PriorityPolicy): Set<string> {
  const a = policy.adjustments;
  return new Set([
    'multi-node',
    'agentic',
    'eval-only',
    'checklist-complete',
    'patchwork',
    ...Object.keys(a.precision ?? {}),
    ...Object.keys(a['spec-decoding'] ?? {}),
    ...Object.keys(a['framework-prefix'] ?? {}),
    ...Object.keys(a['model-prefix'] ?? {}),
  ]);
}

/** The job as the criteria describe it: each field kept only where a criterion vouches for it. */
function jobFromCriteria(criteria: ReadonlySet<string>, policy: PriorityPolicy, job: Job): Job {
  const supported = supportedCriteria(policy);
  const unknown = [...criteria].filter((c) => !supported.has(c)).sort();
  if (unknown.length > 0) {
    throw new UserError(`Unknown CI priority criteria: ${pyRepr(unknown)}`, {
      hint: `the criteria ${policy.file} knows: ${[...supported].sort().join(', ')}`,
    });
  }
  const field = (key: string): string => (Object.hasOwn(job, key) ? pyStr(job[key]) : '');
  const vouched = (value: string, table: Table): string =>
    Object.keys(table ?? {}).some((c) => criteria.has(c) && matchesPrefix(value, c)) ? value : '';
  const precision = field('precision');
  const specDecoding = field('spec-decoding');
  return {
    prefill: criteria.has('multi-node') && job.prefill != null ? {} : null,
    'scenario-type': criteria.has('agentic') && job['scenario-type'] === 'agentic-coding' ? 'agentic-coding' : '',
    'eval-only': criteria.has('eval-only') && job['eval-only'] === true,
    precision: criteria.has(precision) ? precision : '',
    'spec-decoding': criteria.has(specDecoding) ? specDecoding : '',
    framework: vouched(field('framework'), policy.adjustments['framework-prefix']),
    'model-prefix': vouched(field('model-prefix'), policy.adjustments['model-prefix']),
  };
}

const intersect = (labels: ReadonlySet<string>, names: readonly string[] | undefined): string[] =>
  (names ?? []).filter((n) => labels.has(n));

/** A job's score with the adjustments behind it, in the reference's order of addition. */
export function explainPriority(
  job: Job,
  policy: PriorityPolicy,
  context: PriorityContext = DEFAULT_CONTEXT,
): PriorityExplanation {
  const { patchwork } = policy.labels;
  const { criteria, labels } = context;
  const patchLabels = intersect(labels, patchwork.names);
  if ((criteria?.has('patchwork') || patchLabels.length > 0) && intersect(labels, patchwork['waived-by']).length === 0) {
    const score = quantizeScore(decimalOf(patchwork.score));
    const why = patchLabels.length > 0 ? `label ${patchLabels.join(', ')}` : 'criterion patchwork';
    return { score, terms: [{ reason: `patchwork (${why})`, amount: score }], patchwork: why };
  }

  const entry = criteria === undefined ? job : jobFromCriteria(criteria, policy, job);
  const a = policy.adjustments;
  const terms: PriorityTerm[] = [{ reason: 'base', amount: decimalOf(policy['base-score']) }];
  let score = terms[0]!.amount;
  // Every term is added, matched or not (a zero changes the sign of a negative zero, as in Python);
  // only those that matched are listed.
  const term = (reason: string, value: Score | undefined): void => {
    const amount = value === undefined ? ZERO : decimalOf(value);
    score = add(score, amount);
    if (value !== undefined) terms.push({ reason, amount });
  };
  const field = (key: string): string => (Object.hasOwn(entry, key) ? pyStr(entry[key]) : '');

  term(context.eventName, lookup(a.event, context.eventName));
  if (entry.prefill != null) term('multi-node', a['multi-node'] ?? 0);
  if (entry['scenario-type'] === 'agentic-coding') term('agentic', a.agentic ?? 0);
  if (entry['eval-only'] === true) term('eval-only', a['eval-only'] ?? 0);
  const precision = field('precision');
  term(precision, lookup(a.precision, precision));
  const specDecoding = field('spec-decoding');
  term(specDecoding, lookup(a['spec-decoding'], specDecoding));
  const framework = field('framework');
  const prefix = Object.keys(a['framework-prefix'] ?? {}).find((p) => matchesPrefix(framework, p));
  term(prefix ?? '', prefix === undefined ? undefined : a['framework-prefix']![prefix]);
  const model = field('model-prefix');
  term(model, lookup(a['model-prefix'], model));

  const checklist = policy.labels['checklist-complete'];
  const checklistLabels = intersect(labels, checklist?.names);
  if (criteria?.has('checklist-complete') || checklistLabels.length > 0) {
    term(`checklist (${checklistLabels.length > 0 ? checklistLabels.join(', ') : 'criterion'})`, checklist?.adjustment ?? 0);
  }
  return { score: quantizeScore(score), terms };
}

/** A job's score, rounded half-up to the thousandth. */
export function calculatePriority(job: Job, policy: PriorityPolicy, context: PriorityContext = DEFAULT_CONTEXT): Decimal {
  return explainPriority(job, policy, context).score;
}

/**
 * The job's queue token: the first 32 hex digits of the sha256 of
 * `<namespace>:<path joined by />:<the job as canonical JSON>` (the reference's hash input).
 */
export function queueToken(job: unknown, namespace: string, path: readonly string[]): string {
  const canonical = dumps(job, { sortKeys: true, separators: [',', ':'] });
  return createHash('sha256')
    .update(`${namespace}:${path.join('/')}:${canonical}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}

/** One job of the matrix, where it is and what it was given. */
export interface ScoredJob {
  path: string[];
  job: Job;
  explanation: PriorityExplanation;
  priority: string;
  queueToken: string;
  skipQueuePr?: number;
}

const isDict = (value: unknown): value is Job =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof PyFloat);

// defineProperty, not assignment: a key named "__proto__" is data like any other.
const put = (target: Job, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
};

/**
 * A copy of the matrix (as `loads` parsed it) with `priority`, `queue-token` and, when the pull
 * request carries the skip-queue label, `skip-queue-pr` added to every job, after its own keys
 * (a key it already had keeps its place); and the jobs in matrix order.
 */
export function annotateMatrix(
  matrix: unknown,
  policy: PriorityPolicy,
  context: PriorityContext = DEFAULT_CONTEXT,
): { annotated: unknown; jobs: ScoredJob[] } {
  const jobs: ScoredJob[] = [];
  const skipQueue = context.prNumber !== undefined && context.labels.has(policy.labels['skip-queue'].name);
  const walk = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, String(i)]));
    if (!isDict(value)) return value;
    const out: Job = {};
    for (const [key, item] of Object.entries(value)) put(out, key, walk(item, [...path, key]));
    if (Object.hasOwn(value, 'runner') && Object.hasOwn(value, 'framework')) {
      const explanation = explainPriority(value, policy, context);
      const scored: ScoredJob = {
        path,
        job: value,
        explanation,
        priority: formatScore(explanation.score),
        queueToken: queueToken(value, context.queueNamespace, path),
      };
      put(out, 'priority', scored.priority);
      put(out, 'queue-token', scored.queueToken);
      if (skipQueue) put(out, 'skip-queue-pr', (scored.skipQueuePr = context.prNumber!));
      jobs.push(scored);
    }
    return out;
  };
  return { annotated: walk(matrix, []), jobs };
}

/** The annotated matrix as the reference prints it: compact JSON, ASCII only, one line. */
export function annotatedMatrixJson(annotated: unknown): string {
  return dumps(annotated, { separators: [',', ':'] });
}

/**
 * A list of names from the command line: a JSON array of strings (what `toJson` gives in a
 * workflow), `null`, or a comma list. Blank is `undefined`: for criteria that means "no
 * classifier ran", which is not the same as `[]`, "the classifier found nothing".
 */
export function namesFromArg(raw: string | undefined, flag: string): Set<string> | undefined {
  const text = raw?.trim() ?? '';
  if (text === '' || text === 'null') return undefined;
  if (!text.startsWith('['))
    return new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${flag}: not JSON: ${(e as Error).message}`, {
      hint: `give ${flag} as a JSON array of strings or a comma list`,
    });
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new UserError(`${flag} must be a JSON array of strings`, { hint: `e.g. ${flag} '["fp4","mtp"]' or ${flag} fp4,mtp` });
  }
  return new Set(value);
}
