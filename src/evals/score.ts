/**
 * GSM8K scoring exactly as lm-evaluation-harness does it for InferenceX's `utils/evals/gsm8k.yaml`
 * (lm-eval commit b315ef3, 0.4.9.2; unchanged through 0.4.12):
 *
 * - the `strict-match` and `flexible-extract` filters: `RegexFilter` (`re.findall`, the last
 *   match, for a multi-group pattern the first non-empty group, `strip()`, "[invalid]" when
 *   nothing matched) then `take_first`;
 * - the metric `exact_match_hf_evaluate` with `regexes_to_ignore` [",", "\$", "(?s).*#### ",
 *   "\.$"] applied in that order to both strings, then `ignore_case` (lower-case);
 * - the aggregation: `mean`, and lm-eval's `mean_stderr` (sample standard deviation over
 *   n − 1, divided by √n).
 *
 * The patterns are Python `re` patterns; each is written here as the JavaScript RegExp that
 * matches what Python matches (see PY_TO_JS).
 */

/** What the filters return when nothing matched (RegexFilter's fallback). */
export const INVALID = '[invalid]';

/** The two filters of gsm8k.yaml: name → Python pattern (group_select is -1 for both). */
export const FILTER_PATTERNS = {
  'strict-match': '#### (\\-?[0-9\\.\\,]+)',
  'flexible-extract': '(-?[$0-9.,]{2,})|(-?[0-9]+)',
} as const;

/** gsm8k.yaml's metric_list `regexes_to_ignore`, in the order exact_match applies them. */
export const REGEXES_TO_IGNORE = [',', '\\$', '(?s).*#### ', '\\.$'] as const;

/**
 * Each Python pattern above and the JavaScript RegExp that matches what it matches:
 * - `\-`, `\.`, `\,` are plain escapes in both; inside a class `$` is literal in both;
 * - `(?s)` (DOTALL) has no inline form in JavaScript: `.` becomes `[\s\S]`;
 * - Python's `$` without MULTILINE also matches just before a final "\n": `(?=\n?$)`;
 * - `re.sub` and `re.findall` act on every match: the `g` flag.
 */
export const PY_TO_JS: ReadonlyMap<string, RegExp> = new Map([
  [FILTER_PATTERNS['strict-match'], /#### (-?[0-9.,]+)/g],
  [FILTER_PATTERNS['flexible-extract'], /(-?[$0-9.,]{2,})|(-?[0-9]+)/g],
  [',', /,/g],
  ['\\$', /\$/g],
  ['(?s).*#### ', /[\s\S]*#### /g],
  ['\\.$', /\.(?=\n?$)/g],
]);

const jsRegex = (python: string): RegExp => PY_TO_JS.get(python)!;
const STRICT = jsRegex(FILTER_PATTERNS['strict-match']);
const FLEXIBLE = jsRegex(FILTER_PATTERNS['flexible-extract']);
const IGNORE = REGEXES_TO_IGNORE.map(jsRegex);

// str.strip() with no argument: the characters for which str.isspace() is true.
const PY_STRIP =
  /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const pyStrip = (s: string): string => s.replace(PY_STRIP, '');

/**
 * `RegexFilter` with group_select −1: the last of `re.findall`'s results; for a pattern with
 * several groups (a tuple per match, '' for a group that did not take part) the first
 * non-empty group; then `strip()`.
 */
function regexFilter(response: string, regex: RegExp): string {
  regex.lastIndex = 0;
  let last: RegExpExecArray | null = null;
  for (let m = regex.exec(response); m !== null; m = regex.exec(response)) {
    last = m;
    if (m[0] === '') regex.lastIndex++; // never for these patterns; keeps the loop finite
  }
  if (last === null) return INVALID;
  if (last.length === 2) return pyStrip(last[1] ?? '');
  for (let g = 1; g < last.length; g++) {
    const group = last[g];
    if (group) return pyStrip(group);
  }
  return INVALID; // every group empty: RegexFilter falls back (then strips "[invalid]", a no-op)
}

/** The `strict-match` filter chain: `#### <number>`, the last one that parses. */
export const strictMatch = (response: string): string => regexFilter(response, STRICT);

/** The `flexible-extract` filter chain: the last number-like run anywhere in the response. */
export const flexibleExtract = (response: string): string => regexFilter(response, FLEXIBLE);

// numpy keeps strings in fixed-width arrays, which drop trailing NULs; exact_match rebuilds the
// array after every regex, so a trailing NUL is gone before the next regex sees the string.
const TRAILING_NUL = /\0+$/;

/** The string exact_match compares: every `regexes_to_ignore` in order, then lower-cased. */
export function normalizeForMatch(s: string): string {
  let out = s;
  for (const regex of IGNORE) out = out.replace(regex, '').replace(TRAILING_NUL, '');
  return out.toLowerCase();
}

/** `exact_match` for one document: the filtered prediction against the full GSM8K answer. */
export const exactMatch = (prediction: string, reference: string): boolean =>
  normalizeForMatch(prediction) === normalizeForMatch(reference);

export interface FilterScore {
  /** What the filter chain extracted ("[invalid]" when nothing matched). */
  extracted: string;
  /** exact_match of that against the answer (lm-eval records 1.0 / 0.0). */
  correct: boolean;
}

export interface ResponseScore {
  strict: FilterScore;
  flexible: FilterScore;
}

/** Both filters and the metric for one response against its GSM8K `answer` (ending `#### N`). */
export function scoreResponse(response: string, answer: string): ResponseScore {
  const target = normalizeForMatch(answer);
  const strict = strictMatch(response);
  const flexible = flexibleExtract(response);
  return {
    strict: { extracted: strict, correct: normalizeForMatch(strict) === target },
    flexible: { extracted: flexible, correct: normalizeForMatch(flexible) === target },
  };
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

/** The task-level numbers of a list of per-document values (0/1 for exact_match). */
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
