import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  INVALID,
  REFERENCE_THRESHOLDS_YAML,
  STDERR_NOT_AVAILABLE,
  aggregate,
  applyFilter,
  exactMatch as exactMatchWith,
  normalizeForMatch as normalizeWith,
  readTaskFile,
  scoreDoc,
} from '../../src/evals/index.js';
import { readFixture } from '../helpers.js';
import { EVALS, jsonLines } from './golden.js';

// GSM8K through the generic path: InferenceX's task file, its filters and metric as lm-eval runs them.
const GSM8K = readTaskFile('gsm8k');
const filterNamed = (name: string) => GSM8K.filters.find((f) => f.name === name)!;
const strictMatch = (r: string): string => applyFilter(filterNamed('strict-match'), [r]) as string;
const flexibleExtract = (r: string): string => applyFilter(filterNamed('flexible-extract'), [r]) as string;
const OPTIONS = GSM8K.metrics[0]!.options;
const normalizeForMatch = (s: string): string => normalizeWith(s, OPTIONS);
const exactMatch = (p: string, t: string): boolean => exactMatchWith(p, t, OPTIONS);
const scoreResponse = (r: string, answer: string) => {
  const d = scoreDoc(GSM8K, [r], answer);
  return {
    strict: { extracted: d.filtered['strict-match'], correct: d.scores['exact_match,strict-match'] === 1 },
    flexible: { extracted: d.filtered['flexible-extract'], correct: d.scores['exact_match,flexible-extract'] === 1 },
  };
};

// golden/evals/gsm8k_scoring: responses scored by lm-eval's own filter and metric code (README (a)).
interface Case {
  id: string;
  response: string;
  target_answer_field: string;
  strict_extracted: string;
  flexible_extracted: string;
  strict_em: 0 | 1;
  flexible_em: 0 | 1;
  strict_normalized: string;
  flexible_normalized: string;
  target_normalized: string;
}

const MAIN = jsonLines<Case>(`${EVALS}/gsm8k_scoring/cases.jsonl`);
const EXTRA = jsonLines<Case>(`${EVALS}/gsm8k_scoring/cases_extra.jsonl`);

describe('GSM8K filters and exact_match (lm-eval goldens)', () => {
  it('has the 60 + 14 cases the README describes', () => {
    expect(MAIN).toHaveLength(60);
    expect(EXTRA).toHaveLength(14);
  });

  for (const c of [...MAIN, ...EXTRA]) {
    it(c.id, () => {
      expect(strictMatch(c.response)).toBe(c.strict_extracted);
      expect(flexibleExtract(c.response)).toBe(c.flexible_extracted);
      expect(normalizeForMatch(c.strict_extracted)).toBe(c.strict_normalized);
      expect(normalizeForMatch(c.flexible_extracted)).toBe(c.flexible_normalized);
      expect(normalizeForMatch(c.target_answer_field)).toBe(c.target_normalized);
      expect(exactMatch(c.strict_extracted, c.target_answer_field)).toBe(c.strict_em === 1);
      expect(exactMatch(c.flexible_extracted, c.target_answer_field)).toBe(c.flexible_em === 1);
      expect(scoreResponse(c.response, c.target_answer_field)).toEqual({
        strict: { extracted: c.strict_extracted, correct: c.strict_em === 1 },
        flexible: { extracted: c.flexible_extracted, correct: c.flexible_em === 1 },
      });
    });
  }

  it('totals as the README states: strict 28/60, flexible 39/60, 21 strict and 1 flexible [invalid]', () => {
    const scored = MAIN.map((c) => scoreResponse(c.response, c.target_answer_field));
    expect(scored.filter((s) => s.strict.correct)).toHaveLength(28);
    expect(scored.filter((s) => s.flexible.correct)).toHaveLength(39);
    expect(scored.filter((s) => s.strict.extracted === INVALID)).toHaveLength(21);
    expect(scored.filter((s) => s.flexible.extracted === INVALID)).toHaveLength(1);
  });
});

describe('the task file', () => {
  it('the built-in gsm8k.yaml is InferenceX utils/evals/gsm8k.yaml byte for byte', () => {
    expect(readFileSync(GSM8K.file, 'utf8')).toBe(readFixture('evals/gsm8k.yaml'));
  });

  it('reads as lm-eval reads it: two filters (regex −1, take_first), exact_match with its four regexes', () => {
    expect(GSM8K.filters.map((f) => [f.name, f.steps.map((s) => s.function)])).toEqual([
      ['strict-match', ['regex', 'take_first']],
      ['flexible-extract', ['regex', 'take_first']],
    ]);
    expect(GSM8K.filters.map((f) => (f.steps[0] as { regex: { pattern: string } }).regex.pattern)).toEqual([
      '#### (\\-?[0-9\\.\\,]+)',
      '(-?[$0-9.,]{2,})|(-?[0-9]+)',
    ]);
    expect(OPTIONS.regexesToIgnore.map((r) => r.pattern)).toEqual([',', '\\$', '(?s).*#### ', '\\.$']);
    expect(OPTIONS).toMatchObject({ ignoreCase: true, ignorePunctuation: false });
    expect(GSM8K).toMatchObject({ task: 'gsm8k', evalSplit: 'test', fewshotSplit: 'train', numFewshot: 5, repeats: 1 });
    expect(GSM8K.generation).toEqual({ until: ['</s>', '<|im_end|>'], maxGenToks: undefined, temperature: 0, extra: {} });
  });

  it('the built-in thresholds are the reference thresholds.yaml byte for byte', () => {
    expect(REFERENCE_THRESHOLDS_YAML).toBe(readFixture('evals/thresholds.yaml'));
  });
});

describe('Python regex semantics the goldens do not reach', () => {
  it('`\\.$` also removes a period just before a final newline, as Python `$` matches there', () => {
    expect(normalizeForMatch('18.\n')).toBe('18\n');
    expect(normalizeForMatch('Total: 18.\n#### 18.\n')).toBe('18\n');
    expect(exactMatch('18', 'x\n#### 18.\n')).toBe(false); // "18" vs "18\n"
    expect(normalizeForMatch('18.\n\n')).toBe('18.\n\n'); // only one final newline
  });

  it('`(?s).*#### ` crosses newlines and removes up to the last "#### "', () => {
    expect(normalizeForMatch('a\n#### 3\nb\n#### 1,234.')).toBe('1234');
  });

  it('every match is removed (re.sub is global)', () => {
    expect(normalizeForMatch('$1,2$3,4')).toBe('1234');
  });

  it('flexible-extract: a group that did not take part counts as empty; the last match wins', () => {
    expect(flexibleExtract('answer 5')).toBe('5'); // only the second group matched
    expect(flexibleExtract('12 then 7')).toBe('7');
    expect(flexibleExtract('$ alone')).toBe(INVALID);
    expect(strictMatch('#### 1\n#### 2')).toBe('2');
  });

  it('trailing NULs vanish between regexes (numpy fixed-width strings)', () => {
    expect(normalizeForMatch('18.\0')).toBe('18');
  });

  it('upper-case letters compare lower-cased', () => {
    expect(exactMatch('ABC', '#### abc')).toBe(true);
  });
});

describe('aggregate (lm-eval mean and mean_stderr)', () => {
  const values = (k: number, n: number): number[] => Array.from({ length: n }, (_, i) => (i < k ? 1 : 0));

  it('matches lm-eval run on Python 3.11 for 0/1 values over 1,319 documents', () => {
    // sum(arr)/len(arr) and sqrt(sum([(x-mu)**2 ...])/(n-1))/sqrt(n), evaluated with Python 3.11.7.
    const expected: [number, number][] = [
      [1262, 0.005600987515237916],
      [1266, 0.005409439736970608],
      [1176, 0.008563852506627391],
      [1255, 0.00591846861892113],
    ];
    for (const [k, stderr] of expected) {
      const a = aggregate(values(k, 1319));
      expect(a.mean).toBe(k / 1319);
      expect(a.stderr).toBe(stderr);
      expect(a.n).toBe(1319);
    }
  });

  it('agrees with the goldens results files (closed form) to 1e-15', () => {
    // golden/evals/collect_eval_results: strict 1262/1319 → exact_match_stderr 0.005600987515237914
    expect(Math.abs(aggregate(values(1262, 1319)).stderr - 0.005600987515237914)).toBeLessThan(1e-15);
  });

  it('has no stderr for one document (lm-eval writes "N/A")', () => {
    const a = aggregate([1]);
    expect(a.mean).toBe(1);
    expect(a.stderr).toBeNaN();
    expect(STDERR_NOT_AVAILABLE).toBe('N/A');
  });
});
