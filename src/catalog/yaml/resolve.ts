/**
 * Implicit typing of plain YAML scalars exactly as PyYAML's SafeLoader does it (YAML 1.1):
 * the resolver regexes of `yaml/resolver.py` and the constructors of `yaml/constructor.py`.
 * InferenceX reads every file with `yaml.safe_load`, so `on`, `0o17`, `1:30` or `1e3` must
 * mean here what they mean there.
 */

/** A YAML 1.1 timestamp (PyYAML builds a date or datetime); kept as text, typed apart from strings. */
export class YamlTimestamp {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

export type YamlScalar = string | number | boolean | null | YamlTimestamp;

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;

// PyYAML picks candidate resolvers by the scalar's first character, in registration order
// (bool, float, int, merge, null, timestamp, value); the first regex that matches wins.
const BOOL_FIRST = 'yYnNtTfFoO';
const FLOAT_FIRST = '-+0123456789.';
const INT_FIRST = '-+0123456789';
const NULL_FIRST = '~nN';
const TIMESTAMP_FIRST = '0123456789';

export type PlainKind = 'bool' | 'float' | 'int' | 'merge' | 'null' | 'timestamp' | 'value' | 'str';

export function plainKind(text: string): PlainKind {
  const c = text.charAt(0);
  if (text === '') return 'null';
  if (BOOL_FIRST.includes(c) && BOOL.test(text)) return 'bool';
  if (FLOAT_FIRST.includes(c) && FLOAT.test(text)) return 'float';
  if (INT_FIRST.includes(c) && INT.test(text)) return 'int';
  if (text === '<<') return 'merge';
  if (NULL_FIRST.includes(c) && NULL.test(text)) return 'null';
  if (TIMESTAMP_FIRST.includes(c) && TIMESTAMP.test(text)) return 'timestamp';
  if (text === '=') return 'value';
  return 'str';
}

/**
 * Resolve a plain (unquoted, untagged) scalar. `<<` (merge) and `=` (value) resolve to their text;
 * whether they are allowed where they appear is the caller's business.
 */
export function resolvePlain(text: string, kind: PlainKind = plainKind(text)): YamlScalar {
  switch (kind) {
    case 'bool':
      return constructBool(text);
    case 'float':
      return constructFloat(text);
    case 'int':
      return constructInt(text);
    case 'null':
      return null;
    case 'timestamp':
      return new YamlTimestamp(text);
    default:
      return text;
  }
}

export function constructBool(text: string): boolean {
  return /^(?:yes|true|on)$/i.test(text);
}

function sexagesimal(body: string): number {
  let value = 0;
  for (const part of body.split(':')) value = value * 60 + Number(part);
  return value;
}

const DECIMAL = /^-?[1-9][0-9]*$/;

export function constructInt(text: string): number {
  if (DECIMAL.test(text)) return Number(text);
  let value = text.replace(/_/g, '');
  let sign = 1;
  if (value[0] === '-') sign = -1;
  if (value[0] === '-' || value[0] === '+') value = value.slice(1);
  if (value === '0') return 0;
  if (value.startsWith('0b')) return sign * parseInt(value.slice(2), 2);
  if (value.startsWith('0x')) return sign * parseInt(value.slice(2), 16);
  if (value[0] === '0') return sign * parseInt(value, 8);
  if (value.includes(':')) return sign * sexagesimal(value);
  return sign * Number(value);
}

export function constructFloat(text: string): number {
  let value = text.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (value[0] === '-') sign = -1;
  if (value[0] === '-' || value[0] === '+') value = value.slice(1);
  if (value === '.inf') return sign * Infinity;
  if (value === '.nan') return NaN;
  if (value.includes(':')) return sign * sexagesimal(value);
  return sign * Number(value);
}
