/**
 * JSON text exactly as Python's `json.dumps` writes it with default arguments: `", "` and
 * `": "` separators, non-ASCII escaped as \uXXXX, floats in repr form. The reference scripts
 * print matrices this way, and byte-identical output lets existing tooling diff ours against theirs.
 */
export function pythonJson(value: unknown): string {
  // Native JSON.stringify with a one-space indent puts every item on its own line and writes
  // `": "`. Strings cannot contain a raw line break, so every "\n" is structural: after a comma
  // it becomes Python's ", ", anywhere else (after [ or {, before ] or }) it goes.
  const indented = JSON.stringify(value, null, 1);
  if (indented === undefined) throw new TypeError(`cannot serialise ${typeof value}`);
  if (EXPONENT.test(indented)) return pythonJsonSlow(value);
  const text = indented.split(COMMA_BREAK).join(', ').split(BREAK).join('');
  return NON_ASCII_TEST.test(text) ? text.replace(NON_ASCII, escapeChar) : text;
}

// A number in exponent form (JS writes `1e-7`, Python `1e-07`): such documents take the careful
// path. A string that happens to contain the same text only costs the slower path, never a wrong
// result. (Non-finite numbers are not JSON; neither writer is asked for them.)
const EXPONENT = /\de[-+]\d/;
const COMMA_BREAK = /,\n */;
const BREAK = /\n */;
const NON_ASCII_TEST = /[^\x00-\x7e]/;
const NON_ASCII = /[\u007f-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Value by value, formatting numbers as Python's repr does. */
function pythonJsonSlow(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value).replace(NON_ASCII, escapeChar);
    case 'number':
      return pyNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return pythonJsonSlow((value as { toJSON: () => unknown }).toJSON());
      }
      if (Array.isArray(value)) return `[${value.map(pythonJsonSlow).join(', ')}]`;
      const items = Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${pythonJsonSlow(k)}: ${pythonJsonSlow(v)}`);
      return `{${items.join(', ')}}`;
    }
    default:
      throw new TypeError(`cannot serialise a ${typeof value}`);
  }
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  // Python's float repr: shortest round-trip digits, exponent with a sign and at least 2 digits.
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(String(n));
  return m ? `${m[1]}e${m[2]}${m[3]!.padStart(2, '0')}` : String(n);
}
