import { describe, expect, it } from 'vitest';
import { PY_REGEX_TIME_LIMIT_MS, PyRegexLimitError, PyRegexTimeoutError, compilePy } from '../../src/pycompat/index.js';

// Without the bound each of these runs for hours (2^40 ways to split the a's) on the test's own thread.
const HOSTILE = `${'a'.repeat(40)}b`;

/** The error `f` throws and how long it took to throw it. */
function timed(f: () => unknown): { error: unknown; ms: number } {
  const started = performance.now();
  try {
    f();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('expected an error');
}

function expectTimeout(f: () => unknown, pattern: string): void {
  const { error, ms } = timed(f);
  expect(error).toBeInstanceOf(PyRegexTimeoutError);
  const e = error as PyRegexTimeoutError;
  expect(e.pattern).toBe(pattern);
  expect(e.textLength).toBe(HOSTILE.length);
  expect(e.render()).toBe(
    `frontier: error: Python regex /${pattern}/ did not finish within ${PY_REGEX_TIME_LIMIT_MS} ms (PY_REGEX_TIME_LIMIT_MS) on a 41-character text\n` +
      '    hint: rewrite the pattern so that it cannot backtrack without end: no repetition of a repetition such as (a+)+ or (a|a)*\n',
  );
  // The bound, plus a new worker's start-up (a timed-out worker is terminated, the next walk starts one).
  expect(ms).toBeGreaterThanOrEqual(PY_REGEX_TIME_LIMIT_MS - 1);
  expect(ms).toBeLessThan(PY_REGEX_TIME_LIMIT_MS + 2000);
}

describe('a Python regex runs within PY_REGEX_TIME_LIMIT_MS', () => {
  it('a nested repetition: findall throws PyRegexTimeoutError after the bound', () => {
    expectTimeout(() => compilePy('^(a+)+$').findall(HOSTILE), '^(a+)+$');
  });

  it('with a backreference (which no linear-time engine runs): sub throws it too', () => {
    expectTimeout(() => compilePy('^(a)(a+)+\\1$').sub(HOSTILE, ''), '^(a)(a+)+\\1$');
  });

  it('inside a lookahead, under IGNORECASE', () => {
    expectTimeout(() => compilePy('(?=(a|aa)+$)', { ignoreCase: true }).findall(HOSTILE), '(?=(a|aa)+$)');
  });

  it('after a timeout the next regex runs as before, on a new worker', () => {
    expect(() => compilePy('(x+x+)+y').findall('x'.repeat(40))).toThrow(PyRegexTimeoutError);
    const gsm8k = compilePy('(-?[$0-9.,]{2,})|(-?[0-9]+)');
    expect(gsm8k.findall('It costs $1,234.50, so 7 more.')).toEqual([
      ['$1,234.50,', ''],
      ['', '7'],
    ]);
    expect(compilePy('(?s).*#### ').sub('work\n#### 42', '')).toBe('42');
    expect(compilePy('a*').findall('baaa')).toEqual(['', 'aaa', '']);
  });

  it('a legitimate regex on a long reply runs to the end', () => {
    const reply = 'The answer is 42, so 3 + 4 = 7 and $1,234.50 is the price.\n'.repeat(2000); // 120 kB
    expect(compilePy('(-?[$0-9.,]{2,})|(-?[0-9]+)').findall(reply)).toHaveLength(10_000);
    expect(compilePy('#### (\\-?[0-9\\.\\,]+)').findall(reply)).toEqual([]);
  });

  it("a text long enough to overflow V8's regex stack is a PyRegexLimitError, not a crash", () => {
    const error = timed(() => compilePy('^(a|b)*$').findall('a'.repeat(10_000_000))).error;
    expect(error).toBeInstanceOf(PyRegexLimitError);
    expect((error as PyRegexLimitError).message).toBe(
      "Python regex /^(a|b)*$/ ran out of V8's regex stack (Maximum call stack size exceeded) on a 10000000-character text",
    );
    expect(compilePy('^(a|b)*$').findall('ab')).toEqual(['b']);
  });
});
