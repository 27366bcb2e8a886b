/**
 * Python's spelling of values, as srtctl's command builders produce it: `str(value)` for a flag
 * value, `json.dumps` for JSON flags, `str.format_map` for `{node}` templates in environments.
 */
import { UserError } from '../../util/user-error.js';

export class RenderError extends UserError {}

/** Numbers YAML wrote as floats (`0.0`): Python prints them as floats, JSON loses the difference. */
export type FloatTest = (path: readonly string[]) => boolean;

function floatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  // Python's repr: the shortest round-trip digits, exponent form when exp < -4 or exp >= 16.
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}.${frac || '0'}`;
}

function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${quote}${out}${quote}`;
}

/** Python `str(value)` (top level) and `repr(value)` (inside containers). */
export function pyStr(value: unknown, isFloat: FloatTest = () => false, path: readonly string[] = [], top = true): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) && !isFloat(path) ? String(value) : floatRepr(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return top ? value : strRepr(value);
  if (Array.isArray(value)) return `[${value.map((v, i) => pyStr(v, isFloat, [...path, String(i)], false)).join(', ')}]`;
  if (value instanceof Date) throw new RenderError('a date value cannot be rendered as a flag');
  if (typeof value === 'object') {
    const items = Object.entries(value as Record<string, unknown>);
    return `{${items.map(([k, v]) => `${strRepr(k)}: ${pyStr(v, isFloat, [...path, k], false)}`).join(', ')}}`;
  }
  return String(value);
}

/** Python `json.dumps(value)` with its default separators and ASCII escaping. */
export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : floatRepr(value).replace(/^inf$/, 'Infinity');
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pyJson(k)}: ${pyJson(v)}`).join(', ')}}`;
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
