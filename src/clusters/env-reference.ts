import { problemAt } from '../catalog/index.js';
import type { PathSegment, Problem, Subject } from '../catalog/index.js';
import { UserError } from '../util/user-error.js';

// `${VAR}` references in a profile's paths: checked when read, expanded when run.

/** An unset (or empty) `${VAR}` in a path. */
export class EnvReferenceError extends UserError {
  constructor(
    readonly variable: string,
    readonly path: string,
  ) {
    super(`environment variable ${variable} (in "${path}") is not set`, {
      hint: `export ${variable} before the run, or write the path without it in the cluster profile`,
    });
    this.name = 'EnvReferenceError';
  }
}

const REFERENCE = /\$(?:\{([^}]*)\}?|(\$)|([A-Za-z_]\w*)|)/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Each malformed `${VAR}` reference in a path value, located. */
export function envProblems(subject: Subject, path: PathSegment[], value: string): Problem[] {
  const out: Problem[] = [];
  for (const m of value.matchAll(REFERENCE)) {
    const [whole, braced, dollar, bare] = m;
    if (dollar !== undefined) continue;
    let message: string | undefined;
    let hint = 'write ${NAME} for an environment variable, and $$ for a literal $';
    if (bare !== undefined) {
      message = `"${whole}" in "${value}" is not a reference: references are written \${${bare}}`;
      hint = `write \${${bare}}`;
    } else if (braced === undefined) message = `a lone $ in "${value}"`;
    else if (!whole.endsWith('}')) message = `"${whole}" in "${value}" is not closed`;
    else if (!VAR_NAME.test(braced)) message = `"${whole}" in "${value}" is not a variable name`;
    if (message) out.push(problemAt(subject, path, message, { rule: 'env-reference', hint }));
  }
  return out;
}

/**
 * Expand the `${VAR}` references of a path from `env` (`$$` is a literal `$`). An unset or empty
 * variable is an error: a path that silently loses a component points somewhere else.
 */
export function expandPath(path: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return path.replace(REFERENCE, (whole, braced: string | undefined, dollar: string | undefined) => {
    if (dollar !== undefined) return '$';
    if (braced === undefined || !whole.endsWith('}') || !VAR_NAME.test(braced)) {
      throw new Error(`"${whole}" in "${path}" is not a \${NAME} reference`);
    }
    const value = env[braced];
    if (value === undefined || value === '') throw new EnvReferenceError(braced, path);
    return value;
  });
}
