import { traceError } from './errors.js';
import type { TraceFormat } from './errors.js';
import type { SourceLine } from './types.js';

type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const describe = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'a list'
      : typeof v === 'string'
        ? `the string ${JSON.stringify(v).slice(0, 40)}`
        : `${typeof v} ${String(v)}`;

/**
 * Typed reads of one JSON object's keys, each failure a UserError naming the file, line, format
 * and the key's path (`requests[3].hash_ids`) with what to write instead.
 */
export class Fields {
  constructor(
    readonly obj: Json,
    readonly at: SourceLine,
    readonly format: TraceFormat,
    readonly path: string,
  ) {}

  key(name: string): string {
    return this.path === '' ? name : `${this.path}.${name}`;
  }

  fail(name: string, problem: string, hint: string): never {
    throw traceError(this.at, this.format, this.key(name), problem, hint);
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined;
  }

  private missing(name: string, what: string): never {
    return this.fail(name, 'missing', `add "${name}": ${what}`);
  }

  /** A finite number in min..max; `undefined` when absent (or null, with `nullable`) and not required. */
  number(name: string, what: string, opts: { required: true; min?: number; max?: number; integer?: boolean }): number;
  number(
    name: string,
    what: string,
    opts?: { required?: false; min?: number; max?: number; integer?: boolean; nullable?: boolean },
  ): number | undefined;
  number(
    name: string,
    what: string,
    opts: { required?: boolean; min?: number; max?: number; integer?: boolean; nullable?: boolean } = {},
  ): number | undefined {
    const v = this.obj[name];
    if (v === undefined || (v === null && opts.nullable)) {
      if (opts.required) this.missing(name, what);
      return undefined;
    }
    const kind = opts.integer ? 'an integer' : 'a number';
    if (typeof v !== 'number' || !Number.isFinite(v) || (opts.integer && !Number.isInteger(v)))
      this.fail(name, `${describe(v)} is not ${kind}`, `"${name}" is ${what}: write ${kind}`);
    const min = opts.min ?? 0;
    if (v < min)
      this.fail(name, min === 0 ? `${v} is negative` : `${v} is below ${min}`, `"${name}" is ${what}: it cannot be below ${min}`);
    if (opts.max !== undefined && v > opts.max)
      this.fail(name, `${v} is above the limit of ${opts.max}`, `"${name}" is ${what}: it cannot be above ${opts.max}`);
    return v;
  }

  string(name: string, what: string, opts: { required: true }): string;
  string(name: string, what: string, opts?: { required?: false }): string | undefined;
  string(name: string, what: string, opts: { required?: boolean } = {}): string | undefined {
    const v = this.obj[name];
    if (v === undefined) {
      if (opts.required) this.missing(name, what);
      return undefined;
    }
    if (typeof v !== 'string') this.fail(name, `${describe(v)} is not a string`, `"${name}" is ${what}: write it in quotes`);
    return v;
  }

  /**
   * A list of at most `maxLength` integers in 0..2^53 − 1 (hash block ids; past 2^53 a double cannot
   * tell neighbours apart, so two ids would be one block); [] when absent.
   */
  intList(name: string, what: string, maxLength: number): number[] {
    const v = this.obj[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v))
      this.fail(name, `${describe(v)} is not a list of integers`, `"${name}" is ${what}: write e.g. [0, 1, 2]`);
    if (v.length > maxLength)
      this.fail(
        name,
        `${v.length} entries, above the limit of ${maxLength}`,
        `"${name}" is ${what}: split the context into larger blocks, or drop the request`,
      );
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isInteger(x) || x < 0)
        this.fail(
          `${name}[${i}]`,
          `${describe(x)} is not a non-negative integer`,
          `"${name}" is ${what}: every entry must be an integer ≥ 0`,
        );
      if (!Number.isSafeInteger(x))
        this.fail(
          `${name}[${i}]`,
          `${x} is past 2^53 − 1, where ids stop being exact`,
          `"${name}" is ${what}: renumber the ids below 9007199254740992`,
        );
    });
    return v as number[];
  }

  stringList(name: string, what: string): string[] | undefined {
    const v = this.obj[name];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
      this.fail(name, `${describe(v)} is not a list of strings`, `"${name}" is ${what}: write e.g. ["claude-opus-4"]`);
    return v as string[];
  }
}
