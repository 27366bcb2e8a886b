import { UserError } from '../util/user-error.js';

/** A problem found in an input file: where, what, and how to fix it. */
export interface Problem {
  severity: 'error' | 'warning';
  /** Rule or check that produced it (`yaml`, `schema`, `conc-fields`, …). */
  rule: string;
  file: string;
  /** 1-based; 0 when the problem concerns the file as a whole. */
  line: number;
  col: number;
  /** Top-level config key (or runner label) the problem belongs to. */
  key?: string;
  /** Field path inside the key, e.g. `scenarios.fixed-seq-len[0].search-space[3].prefill.tp`. */
  path?: string;
  message: string;
  hint?: string;
}

export type PathSegment = string | number;

export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

/** `file:line:col  key › path  message` then the hint on its own indented line. */
export function formatProblem(p: Problem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  const subject = [p.key, p.path].filter((s) => s !== undefined && s !== '').join(' › ');
  const tag = p.severity === 'warning' ? 'warning: ' : '';
  let out = `${where}  ${subject ? `${subject}  ` : ''}${tag}${p.message}`;
  if (p.hint) out += `\n    hint: ${p.hint}`;
  return out;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** Thrown when inputs cannot be used; carries every problem found, not just the first. */
export class ProblemsError extends UserError {
  constructor(readonly problems: Problem[]) {
    super(
      problems
        .filter((p) => p.severity === 'error')
        .map(formatProblem)
        .join('\n'),
    );
    this.name = 'ProblemsError';
  }

  /** The error problems as they are, one per line with its hint: each names its file, line and key. */
  override render(): string {
    return `${this.message}\n`;
  }
}

/** Render a value the way a user wrote it, for "got …" in messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') {
    const text = String(value);
    return text === '[object Object]' ? 'a mapping' : `${text} (a date)`;
  }
  return String(value);
}
