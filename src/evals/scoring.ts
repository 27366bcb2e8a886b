import type { ExactMatchOptions, TaskFilter, TaskSpec } from './task-file.js';
import { targetText } from './template.js';

/**
 * Scoring as lm-evaluation-harness (b315ef3) scores a generate_until task: each filter of
 * filter_list maps a document's responses (one per repeat) through its steps (RegexFilter,
 * take_first, majority_vote…), then every metric compares the result with the target
 * (exact_match_hf_evaluate), and the task's number is the mean over documents with lm-eval's
 * mean_stderr. One extension: a filter that does not reduce the responses to one (no take_first
 * or majority_vote) scores each response and averages them per document (mean@n), where lm-eval
 * would compare a list; with one repeat the two agree.
 */

/** What the regex filter returns when nothing matched (RegexFilter's default fallback). */
export const INVALID = '[invalid]';

/** A filter's output for one document: one string, or one per response. */
export type Filtered = string | string[];

// str.strip() with no argument: the characters for which str.isspace() is true.
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
export const pyStrip = (s: string): string => s.replace(PY_STRIP, '');

/** Python `list[i]` with a negative i counting from the end; undefined when out of range. */
const pyIndex = <T>(list: readonly T[], i: number): T | undefined => list[i < 0 ? list.length + i : i];

/** Counter(xs).most_common(1): the most frequent, the first seen among ties. */
function majority(xs: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  let best = xs[0]!;
  for (const [x, n] of counts) if (n > counts.get(best)!) best = x;
  return best;
}

export function applyFilter(filter: TaskFilter, responses: readonly string[]): Filtered {
  let value: Filtered = [...responses];
  for (const step of filter.steps) {
    const list = value as string[];
    switch (step.function) {
      case 'regex':
        value = list.map((r) => {
          const match: string | string[] | undefined = pyIndex(step.regex.findall(r), step.groupSelect);
          if (match === undefined) return step.fallback;
          if (Array.isArray(match)) {
            const first = match.find((g) => g !== '');
            return first === undefined ? step.fallback : pyStrip(first);
          }
          return pyStrip(match);
        });
        break;
      case 'take_first':
        value = list[0]!;
        break;
      case 'take_first_k':
        value = list.slice(0, step.k);
        break;
      case 'majority_vote':
        value = [majority(list)];
        break;
      case 'lowercase':
        value = list.map((r) => r.toLowerCase());
        break;
      case 'uppercase':
        value = list.map((r) => r.toUpperCase());
        break;
    }
  }
  return value;
}

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// numpy keeps strings in fixed-width arrays, which drop trailing NULs: exact_match rebuilds the
// array after every regex, and compares the arrays that way.
const TRAILING_NUL = /\0+$/;

/** The string exact_match compares: each regexes_to_ignore removed in order, then case, punctuation, digits. */
export function normalizeForMatch(s: string, o: ExactMatchOptions): string {
  let out = s;
  for (const regex of o.regexesToIgnore) out = regex.sub(out, '').replace(TRAILING_NUL, '');
  out = out.replace(TRAILING_NUL, '');
  if (o.ignoreCase) out = out.toLowerCase();
  if (o.ignorePunctuation) out = out.replace(PUNCTUATION, '');
  if (o.ignoreNumbers) out = out.replace(/[0-9]/g, '');
  return out;
}

export const exactMatch = (prediction: string, target: string, o: ExactMatchOptions): boolean =>
  normalizeForMatch(prediction, o) === normalizeForMatch(target, o);

export interface DocScore {
  /** Filter name → what it extracted. */
  filtered: Record<string, Filtered>;
  /** `<metric>,<filter>` → the document's score (0 or 1; the mean of its responses for mean@n). */
  scores: Record<string, number>;
}

/** Every filter and metric of the task for one document's responses against its target. */
export function scoreDoc(task: TaskSpec, responses: readonly string[], target: unknown): DocScore {
  if (Array.isArray(target)) throw new Error(`${task.task}: a list target (several right answers) is not supported`);
  const gold = targetText(target);
  const filtered: Record<string, Filtered> = {};
  const scores: Record<string, number> = {};
  // Once per metric, not per filter: each regex walk is a round trip to the regex worker.
  const golds = task.metrics.map((m) => normalizeForMatch(gold, m.options));
  for (const filter of task.filters) {
    const value = applyFilter(filter, responses);
    filtered[filter.name] = value;
    for (const [i, m] of task.metrics.entries()) {
      const each = (typeof value === 'string' ? [value] : value).map((v) =>
        normalizeForMatch(v, m.options) === golds[i] ? 1 : 0,
      );
      scores[`${m.metric},${filter.name}`] = each.length === 0 ? 0 : each.reduce((a: number, b) => a + b, 0) / each.length;
    }
  }
  return { filtered, scores };
}

/** What lm-eval writes for the stderr of a metric over fewer than two documents. */
export const STDERR_NOT_AVAILABLE = 'N/A';

export interface Aggregate {
  /** `mean`: sum / n (NaN for n = 0, where lm-eval raises ZeroDivisionError). */
  mean: number;
  /**
   * `mean_stderr`: √(Σ(x − mean)² / (n − 1)) / √n, summed in order as Python ≤ 3.11 does.
   * NaN for n < 2: lm-eval then writes the string "N/A" (STDERR_NOT_AVAILABLE) instead of a
   * number (`stderr_fn(items) if len(items) > 1 else "N/A"`).
   */
  stderr: number;
  n: number;
}

/** The task-level numbers of a list of per-document values. */
export function aggregate(values: readonly number[]): Aggregate {
  const n = values.length;
  let sum = 0;
  for (const x of values) sum += x;
  const mean = sum / n;
  if (n < 2) return { mean, stderr: NaN, n };
  let squares = 0;
  for (const x of values) squares += (x - mean) ** 2;
  return { mean, stderr: Math.sqrt(squares / (n - 1)) / Math.sqrt(n), n };
}
