/**
 * Python's spelling of values, as srtctl's command builders produce it: `str(value)` for a flag
 * value (pycompat's `pyStr`; `json.dumps` for JSON flags is pycompat's `dumps`), `str.format_map`
 * for `{node}` templates in environments.
 */
import { pyStr } from '../../pycompat/index.js';
import { UserError } from '../../util/user-error.js';
import type { FloatTest } from '../../pycompat/index.js';

export class RenderError extends UserError {}

/** A recipe field the modeled srtctl's schema does not have (`benchmark.tokenizer_mode`). */
export class UnknownFieldError extends RenderError {
  constructor(readonly field: string) {
    super(`${field}: Unknown field (not in the schema of srtctl ${MODELED_SRTCTL}, the srt-slurm Frontier renders recipes as)`);
  }
}

/** The srt-slurm whose srtctl the renderer follows (its pyproject version; the checkout carried no commit). */
export const MODELED_SRTCTL = '0.3.0';

/**
 * Python's `str(value)` of a recipe value (pycompat's `pyStr`): integral numbers YAML wrote as
 * floats (`isFloat`) print as floats. A value whose Python form is not modelled (a date) is refused.
 */
export function flagStr(value: unknown, isFloat?: FloatTest, path: readonly string[] = []): string {
  try {
    return pyStr(value, isFloat, path);
  } catch (e) {
    if (e instanceof TypeError) throw new RenderError(`a flag value cannot be rendered: ${e.message}`);
    throw e;
  }
}

/**
 * `value.format_map(SafeDict(vars))`: `{name}` becomes its value, an unknown `{name}` stays as
 * written, `{{`/`}}` are braces. Anything fancier (format specs, attributes) is refused rather than
 * guessed.
 */
export function formatMap(value: string, vars: Record<string, string>, where: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '{' && value[i + 1] === '{') {
      out += '{';
      i++;
    } else if (c === '}' && value[i + 1] === '}') {
      out += '}';
      i++;
    } else if (c === '{') {
      const end = value.indexOf('}', i);
      if (end < 0) throw new RenderError(`${where}: Single '{' encountered in format string`);
      const field = value.slice(i + 1, end);
      if (!/^[A-Za-z_]\w*$/.test(field)) {
        throw new RenderError(
          `${where}: the template field {${field}} is beyond what Frontier renders (srtctl formats it with str.format_map)`,
        );
      }
      out += vars[field] ?? `{${field}}`;
      i = end;
    } else if (c === '}') {
      throw new RenderError(`${where}: Single '}' encountered in format string`);
    } else out += c;
  }
  return out;
}
