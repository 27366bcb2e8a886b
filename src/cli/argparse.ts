/**
 * A small command-line parser with Python argparse's semantics and messages, so that
 * `frontier matrix …` accepts the reference generator's command lines unchanged and rejects bad
 * ones the same way: `nargs='+'` lists, negative numbers as values, `--flag=value`, unique
 * prefixes of long options, mutually exclusive groups, exit status 2 on usage errors.
 */
import { UserError } from '../util/user-error.js';
import { userPath } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

export interface ArgSpec {
  /** Option strings, e.g. `['--config-files']` or `['-h', '--help']`. */
  flags: string[];
  dest: string;
  /** `flag`: store_true; `one`: one value; `many`: nargs='+'. */
  kind: 'flag' | 'one' | 'many';
  /** `path`: a file or folder, from where the command was started (src/cli/paths.ts). */
  type?: 'int' | 'float' | 'string' | 'path';
  choices?: readonly string[];
  required?: boolean;
  default?: unknown;
  metavar?: string;
  help: string;
}

export interface ParserSpec {
  prog: string;
  description?: string;
  args: ArgSpec[];
  /** Groups of dests of which at most one may be given. */
  exclusive?: string[][];
}

export class UsageError extends UserError {
  constructor(
    readonly spec: ParserSpec,
    message: string,
  ) {
    super(message, { exitCode: ExitCode.USAGE });
    this.name = 'UsageError';
  }

  /** What argparse prints on stderr before exiting with status 2. */
  override render(): string {
    return `${formatUsage(this.spec)}\n${this.spec.prog}: error: ${this.message}\n`;
  }
}

export type ParsedArgs = Record<string, unknown> & { help?: boolean };

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

/** Parse argv; returns `{ help: true }` as soon as -h/--help is seen, as argparse does. */
export function parseArgs(spec: ParserSpec, argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = {};
  for (const a of spec.args) out[a.dest] = a.default ?? (a.kind === 'flag' ? false : undefined);
  const byFlag = new Map<string, ArgSpec>();
  for (const a of spec.args) for (const f of a.flags) byFlag.set(f, a);
  const seen = new Set<ArgSpec>();
  const extras: string[] = [];
  const fail = (message: string): never => {
    throw new UsageError(spec, message);
  };
  const name = (a: ArgSpec): string => a.flags.join('/');

  const looksLikeOption = (s: string): boolean =>
    s.length > 1 && s.startsWith('-') && !NEGATIVE_NUMBER.test(s) && (byFlag.has(s.split('=')[0]!) || !s.includes(' '));

  const match = (arg: string): { spec: ArgSpec; explicit: string | undefined } | undefined => {
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const explicit = eq === -1 ? undefined : arg.slice(eq + 1);
    const exact = byFlag.get(arg) ?? (eq !== -1 ? byFlag.get(flag) : undefined);
    if (exact) return { spec: exact, explicit: byFlag.has(arg) ? undefined : explicit };
    if (!flag.startsWith('--')) return undefined;
    const candidates = [...byFlag.keys()].filter((f) => f.startsWith('--') && f.startsWith(flag));
    if (candidates.length > 1) fail(`ambiguous option: ${arg} could match ${candidates.join(', ')}`);
    return candidates.length === 1 ? { spec: byFlag.get(candidates[0]!)!, explicit } : undefined;
  };

  const convert = (a: ArgSpec, raw: string): unknown => {
    let value: unknown = raw;
    if (a.type === 'int') {
      if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(raw)) fail(`argument ${name(a)}: invalid int value: '${raw}'`);
      value = Number(raw.trim().replace(/_/g, ''));
    }
    if (a.type === 'float') {
      // Python float(): decimals, exponents, inf/infinity/nan in any case, surrounding spaces.
      const s = raw.trim().toLowerCase().replace(/_/g, '');
      const special: Record<string, number> = {
        inf: Infinity,
        '+inf': Infinity,
        infinity: Infinity,
        '+infinity': Infinity,
        '-inf': -Infinity,
        '-infinity': -Infinity,
        nan: NaN,
      };
      if (s in special) value = special[s];
      else if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(s)) value = Number(s);
      else fail(`argument ${name(a)}: invalid float value: '${raw}'`);
    }
    if (a.type === 'path') value = userPath(raw);
    if (a.choices && !a.choices.includes(raw)) {
      fail(`argument ${name(a)}: invalid choice: '${raw}' (choose from ${a.choices.map((c) => `'${c}'`).join(', ')})`);
    }
    return value;
  };

  let i = 0;
  while (i < argv.length) {
    const arg = argv[i]!;
    if (arg === '--') {
      extras.push(...argv.slice(i + 1));
      break;
    }
    if (!looksLikeOption(arg)) {
      extras.push(arg);
      i++;
      continue;
    }
    const found = match(arg);
    if (!found) {
      extras.push(arg);
      i++;
      continue;
    }
    const { spec: a, explicit } = found;
    for (const group of spec.exclusive ?? []) {
      if (!group.includes(a.dest)) continue;
      for (const other of seen) {
        if (other !== a && group.includes(other.dest)) fail(`argument ${name(a)}: not allowed with argument ${name(other)}`);
      }
    }
    seen.add(a);
    i++;
    if (a.dest === 'help') return { ...out, help: true };
    if (a.kind === 'flag') {
      if (explicit !== undefined) fail(`argument ${name(a)}: ignored explicit argument '${explicit}'`);
      out[a.dest] = true;
      continue;
    }
    const values: string[] = [];
    if (explicit !== undefined) values.push(explicit);
    else {
      while (i < argv.length && argv[i] !== '--' && !looksLikeOption(argv[i]!)) {
        values.push(argv[i]!);
        i++;
        if (a.kind === 'one') break;
      }
    }
    if (values.length === 0) fail(`argument ${name(a)}: expected ${a.kind === 'one' ? 'one argument' : 'at least one argument'}`);
    const converted = values.map((v) => convert(a, v));
    out[a.dest] = a.kind === 'one' ? converted[0] : converted;
  }

  const missing = spec.args.filter((a) => a.required && !seen.has(a));
  if (missing.length > 0) fail(`the following arguments are required: ${missing.map(name).join(', ')}`);
  if (extras.length > 0) fail(`unrecognized arguments: ${extras.join(' ')}`);
  return out;
}

function argSynopsis(a: ArgSpec): string {
  const flag = a.flags[a.flags.length - 1]!;
  const meta = a.metavar ?? (a.choices ? `{${a.choices.join(',')}}` : a.dest.toUpperCase().replace(/-/g, '_'));
  if (a.kind === 'flag') return flag;
  if (a.kind === 'one') return `${flag} ${meta}`;
  return `${flag} ${meta} [${meta} ...]`;
}

export function formatUsage(spec: ParserSpec): string {
  const parts = spec.args.filter((a) => a.dest !== 'help').map((a) => (a.required ? argSynopsis(a) : `[${argSynopsis(a)}]`));
  return `usage: ${spec.prog} ${parts.join(' ')}`;
}

export function formatHelp(spec: ParserSpec): string {
  const lines = [formatUsage(spec), ''];
  if (spec.description) lines.push(spec.description, '');
  lines.push('options:');
  for (const a of spec.args) {
    const left = a.kind === 'flag' ? a.flags.join(', ') : `${a.flags.join(', ')} ${argSynopsis(a).split(' ').slice(1).join(' ')}`;
    lines.push(`  ${left}`, `      ${a.help}`);
  }
  return `${lines.join('\n')}\n`;
}
