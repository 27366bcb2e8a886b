import { InvalidArgumentError, Option } from 'commander';
import { UserError } from '../util/user-error.js';

/**
 * Number options, checked one way for every command: an integer is written in decimal digits
 * ("8", not "8.0" or "1e3"), a number is any finite one; both within [min, max]. A value that is
 * not is an error naming the option, the value and what it takes.
 */

export interface NumberSpec {
  /** Whole numbers only. */
  integer?: boolean;
  min?: number;
  max?: number;
  /** What the error says the option takes (default: from the above, e.g. "a positive integer", "a number in [0, 1]"). */
  expected?: string;
}

export const POSITIVE_INT: NumberSpec = { integer: true, min: 1 };

function expected(spec: NumberSpec): string {
  if (spec.expected) return spec.expected;
  const { min = -Infinity, max = Infinity } = spec;
  if (spec.integer) {
    if (min === 1 && max === Infinity) return 'a positive integer';
    if (max === Infinity) return min === -Infinity ? 'an integer' : `an integer ≥ ${min}`;
    return `an integer from ${min} to ${max}`;
  }
  if (max === Infinity) return min === -Infinity ? 'a number' : `a number ≥ ${min}`;
  return `a number in [${min}, ${max}]`;
}

function valueOf(value: string, spec: NumberSpec): number | undefined {
  const n = Number(value);
  const written = spec.integer ? /^-?\d+$/.test(value) : value.trim() !== '' && Number.isFinite(n);
  return written && n >= (spec.min ?? -Infinity) && n <= (spec.max ?? Infinity) ? n : undefined;
}

/** `value`, given to `flag`, as `spec` takes it; else a UserError: "--limit 0: expected a positive integer". */
export function parseNumber(flag: string, value: string, spec: NumberSpec): number {
  const n = valueOf(value, spec);
  if (n === undefined) throw new UserError(`${flag} ${value}: expected ${expected(spec)}`);
  return n;
}

/** The same check as a commander option parser, whose message names the option and the value. */
export function numberArg(spec: NumberSpec): (value: string) => number {
  return (value) => {
    const n = valueOf(value, spec);
    if (n === undefined) throw new InvalidArgumentError(`expected ${expected(spec)}`);
    return n;
  };
}

/** A comma-separated list's items, blanks around them removed. */
export const commaList = (value: string): string[] => value.split(',').map((s) => s.trim());

/** A commander parser for a comma-separated list of numbers, added to the earlier ones when the option repeats. */
export function numberListArg(spec: NumberSpec): (value: string, previous?: number[]) => number[] {
  const item = numberArg(spec);
  return (value, previous = []) => [...previous, ...commaList(value).map(item)];
}

/**
 * `--format <format>`: every command's one spelling for its output format (`text` first, the
 * default, unless `choices` says otherwise).
 */
export const formatOption = (choices: readonly string[] = ['text', 'json'], description = 'output format'): Option =>
  new Option('--format <format>', description).choices(choices).default(choices[0]);

/**
 * `--json`: what `--format json` was spelled before every command took `--format`, kept as its
 * alias on the commands that took it (ingest, compare) so older scripts work. Add it after
 * `formatOption`.
 */
export const jsonAlias = (): Option =>
  new Option('--json', 'the same as --format json (older spelling)').implies({ format: 'json' });

/** What `compare` and `ci comment` decide a verdict with (store/verdict.ts; docs/verdicts.md). */
export interface VerdictFlags {
  minEffect: number;
  alpha: number;
}

/**
 * `--min-effect` and `--alpha`, the verdicts' settings, on every command that compares a run;
 * `--threshold`, the fixed cut-off these replaced, is kept as `--min-effect`'s alias.
 */
export const verdictOptions = (): Option[] => [
  new Option('--min-effect <pct>', 'the smallest change called a regression or improvement, %')
    .argParser(numberArg({ min: 0, max: 100, expected: 'a percentage from 0 to 100' }))
    .default(2),
  new Option('--alpha <rate>', 'the false discovery rate across every metric of every point')
    .argParser(numberArg({ min: 0.0001, max: 0.5, expected: 'a rate in [0.0001, 0.5]' }))
    .default(0.05),
  new Option('--threshold <pct>', 'the same as --min-effect (older spelling)')
    .argParser(numberArg({ min: 0, max: 100, expected: 'a percentage from 0 to 100' }))
    .hideHelp(),
];

export const verdictSettingsOf = (
  o: VerdictFlags & { threshold?: number | undefined },
): { alpha: number; minEffectPct: number } => ({
  alpha: o.alpha,
  minEffectPct: o.threshold ?? o.minEffect,
});
