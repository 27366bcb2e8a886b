/**
 * JSON text exactly as Python's `json.dumps` writes it with default arguments: `", "` and
 * `": "` separators, non-ASCII escaped as \uXXXX. The reference scripts print matrices this
 * way, and byte-identical output lets existing tooling diff ours against theirs.
 */
export function pythonJson(value: unknown): string {
  // Matrix output repeats the same keys and values thousands of times: memoise their encoding.
  const strings = new Map<string, string>();
  const str = (s: string): string => {
    let encoded = strings.get(s);
    if (encoded === undefined) {
      encoded = pyString(s);
      strings.set(s, encoded);
    }
    return encoded;
  };
  const write = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    switch (typeof v) {
      case 'string':
        return str(v);
      case 'number':
        return pyNumber(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (Array.isArray(v)) {
          let out = '[';
          for (let i = 0; i < v.length; i++) out += (i > 0 ? ', ' : '') + write(v[i]);
          return `${out}]`;
        }
        if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return write((v as { toJSON: () => unknown }).toJSON());
        let out = '{';
        let first = true;
        for (const key in v) {
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined || !Object.prototype.hasOwnProperty.call(v, key)) continue;
          out += `${first ? '' : ', '}${str(key)}: ${write(item)}`;
          first = false;
        }
        return `${out}}`;
      }
      default:
        throw new TypeError(`cannot serialise a ${typeof v}`);
    }
  };
  return write(value);
}

const NON_ASCII = /[\u007f-\uffff]/g;

function pyString(s: string): string {
  const json = JSON.stringify(s);
  return /[^\x00-\x7e]/.test(json)
    ? json.replace(NON_ASCII, (c) => (c === '\u007f' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
    : json;
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return String(n);
  // Python's float repr: shortest round-trip digits, exponent with a sign and 2+ digits.
  const text = String(n);
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(text);
  if (m) return `${m[1]}e${m[2]}${m[3]!.padStart(2, '0')}`;
  return text;
}
