/**
 * GitHub Actions expressions (`${{ … }}`), the subset Frontier's generated workflows use: literals,
 * context paths with `.name` and `['key']`/`[0]` indexing, `!`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`,
 * parentheses, and the functions fromJSON, toJSON, contains, startsWith, endsWith, format, join and the
 * status checks (always, success, failure, cancelled). Semantics follow GitHub's documentation:
 * `&&`/`||` yield an operand, strings compare case-insensitively, operands of different types compare as numbers.
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

export interface Scope {
  contexts: Record<string, Value>;
  /** What the status functions answer where they are evaluated (a job's needs, or a job's earlier steps). */
  status: { success: boolean; failure: boolean; cancelled: boolean };
}

type Token = { kind: 'num' | 'str' | 'id' | 'op'; text: string; value?: Value };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let text = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new Error(`unterminated string in: ${source}`);
        if (source[i] === "'" && source[i + 1] === "'") {
          text += "'";
          i += 2;
        } else if (source[i] === "'") {
          i++;
          break;
        } else text += source[i++];
      }
      tokens.push({ kind: 'str', text, value: text });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^-?(0x[0-9a-f]+|[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?)/i.exec(source.slice(i))!;
      tokens.push({ kind: 'num', text: m[0], value: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(source.slice(i))!;
      tokens.push({ kind: 'id', text: m[0] });
      i += m[0].length;
    } else {
      const op = ['==', '!=', '<=', '>=', '&&', '||'].find((o) => source.startsWith(o, i)) ?? c;
      if (!['==', '!=', '<=', '>=', '&&', '||', '!', '<', '>', '(', ')', '[', ']', '.', ',', '*'].includes(op))
        throw new Error(`unexpected "${c}" in: ${source}`);
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    }
  }
  return tokens;
}

type Node =
  | { type: 'lit'; value: Value }
  | { type: 'ctx'; name: string }
  | { type: 'index'; target: Node; key: Node }
  | { type: 'not'; operand: Node }
  | { type: 'bin'; op: string; left: Node; right: Node }
  | { type: 'call'; name: string; args: Node[] };

const PRECEDENCE: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 4, '<=': 4, '>': 4, '>=': 4 };

function parse(source: string): Node {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const expect = (text: string): void => {
    if (tokens[pos]?.text !== text) throw new Error(`expected "${text}" at token ${pos} in: ${source}`);
    pos++;
  };
  const primary = (): Node => {
    const t = tokens[pos++];
    if (!t) throw new Error(`unexpected end of: ${source}`);
    if (t.kind === 'num' || t.kind === 'str') return { type: 'lit', value: t.value! };
    if (t.kind === 'op' && t.text === '(') {
      const inner = binary(0);
      expect(')');
      return inner;
    }
    if (t.kind === 'op' && t.text === '!') return { type: 'not', operand: postfix(primary()) };
    if (t.kind === 'id') {
      if (t.text === 'true' || t.text === 'false') return { type: 'lit', value: t.text === 'true' };
      if (t.text === 'null') return { type: 'lit', value: null };
      if (peek()?.text === '(') {
        pos++;
        const args: Node[] = [];
        while (peek()?.text !== ')') {
          args.push(binary(0));
          if (peek()?.text === ',') pos++;
        }
        pos++;
        return { type: 'call', name: t.text.toLowerCase(), args };
      }
      return { type: 'ctx', name: t.text };
    }
    throw new Error(`unexpected "${t.text}" in: ${source}`);
  };
  const postfix = (node: Node): Node => {
    for (;;) {
      const t = peek();
      if (t?.text === '.') {
        pos++;
        const name = tokens[pos++];
        if (name?.kind !== 'id') throw new Error(`expected a property name in: ${source}`);
        node = { type: 'index', target: node, key: { type: 'lit', value: name.text } };
      } else if (t?.text === '[') {
        pos++;
        const key = binary(0);
        expect(']');
        node = { type: 'index', target: node, key };
      } else return node;
    }
  };
  const binary = (min: number): Node => {
    let left = postfix(primary());
    for (;;) {
      const t = peek();
      const prec = t?.kind === 'op' ? PRECEDENCE[t.text] : undefined;
      if (prec === undefined || prec < min) return left;
      pos++;
      const right = binary(prec + 1);
      left = { type: 'bin', op: t!.text, left, right };
    }
  };
  const node = binary(0);
  if (pos !== tokens.length) throw new Error(`unexpected "${tokens[pos]!.text}" in: ${source}`);
  return node;
}

export const truthy = (v: Value): boolean => !(v === null || v === false || v === 0 || v === '' || Number.isNaN(v));

function toNumber(v: Value): number {
  if (v === null) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() === '' ? 0 : Number(v);
  return NaN;
}

function equal(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  const isObject = (v: Value) => v !== null && typeof v === 'object';
  if (isObject(a) || isObject(b)) return a === b;
  if (typeof a === typeof b) return a === b;
  return toNumber(a) === toNumber(b);
}

/** How a value reads where it is interpolated into text. */
export function toText(v: Value): string {
  if (v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v, null, 2);
  return String(v);
}

function call(name: string, args: Value[], scope: Scope): Value {
  switch (name) {
    case 'always':
      return true;
    case 'success':
      return scope.status.success;
    case 'failure':
      return scope.status.failure;
    case 'cancelled':
      return scope.status.cancelled;
    case 'fromjson':
      return JSON.parse(toText(args[0] ?? null)) as Value;
    case 'tojson':
      return JSON.stringify(args[0] ?? null, null, 2);
    case 'contains': {
      const [haystack, needle] = [args[0] ?? null, args[1] ?? null];
      if (Array.isArray(haystack)) return haystack.some((item) => equal(item, needle));
      return toText(haystack).toLowerCase().includes(toText(needle).toLowerCase());
    }
    case 'startswith':
      return toText(args[0] ?? null)
        .toLowerCase()
        .startsWith(toText(args[1] ?? null).toLowerCase());
    case 'endswith':
      return toText(args[0] ?? null)
        .toLowerCase()
        .endsWith(toText(args[1] ?? null).toLowerCase());
    case 'format':
      return toText(args[0] ?? null).replace(/\{(\d+)\}/g, (_, i: string) => toText(args[Number(i) + 1] ?? null));
    case 'join': {
      const items = args[0] ?? null;
      return Array.isArray(items) ? items.map(toText).join(args[1] === undefined ? ',' : toText(args[1])) : toText(items);
    }
    default:
      throw new Error(`unsupported function ${name}()`);
  }
}

function evaluateNode(node: Node, scope: Scope): Value {
  switch (node.type) {
    case 'lit':
      return node.value;
    case 'ctx': {
      if (!(node.name in scope.contexts)) throw new Error(`unknown context "${node.name}"`);
      return scope.contexts[node.name]!;
    }
    case 'index': {
      const target = evaluateNode(node.target, scope);
      const key = evaluateNode(node.key, scope);
      if (Array.isArray(target)) return typeof key === 'number' ? (target[key] ?? null) : null;
      if (target !== null && typeof target === 'object') {
        // Property names are case-insensitive.
        const found = Object.keys(target).find((k) => k.toLowerCase() === toText(key).toLowerCase());
        return found === undefined ? null : target[found]!;
      }
      return null;
    }
    case 'not':
      return !truthy(evaluateNode(node.operand, scope));
    case 'bin': {
      const left = evaluateNode(node.left, scope);
      if (node.op === '&&') return truthy(left) ? evaluateNode(node.right, scope) : left;
      if (node.op === '||') return truthy(left) ? left : evaluateNode(node.right, scope);
      const right = evaluateNode(node.right, scope);
      if (node.op === '==') return equal(left, right);
      if (node.op === '!=') return !equal(left, right);
      const [a, b] =
        typeof left === 'string' && typeof right === 'string'
          ? [left.toLowerCase(), right.toLowerCase()]
          : [toNumber(left), toNumber(right)];
      return node.op === '<' ? a < b : node.op === '<=' ? a <= b : node.op === '>' ? a > b : a >= b;
    }
    case 'call':
      return call(
        node.name,
        node.args.map((a) => evaluateNode(a, scope)),
        scope,
      );
  }
}

export const evaluate = (expression: string, scope: Scope): Value => evaluateNode(parse(expression), scope);

const TEMPLATE = /\$\{\{([\s\S]*?)\}\}/g;

/**
 * A value from the workflow file: strings with `${{ }}` evaluated (a string that is one expression
 * alone keeps the expression's value, so `fromJSON(…)` yields an array); mappings and lists recursively.
 */
export function expand(value: unknown, scope: Scope): Value {
  if (typeof value === 'string') {
    const whole = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/.exec(value);
    if (whole && !whole[1]!.includes('}}')) return evaluate(whole[1]!, scope);
    return value.replace(TEMPLATE, (_, e: string) => toText(evaluate(e, scope)));
  }
  if (Array.isArray(value)) return value.map((v) => expand(v, scope));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, scope)]));
  return (value ?? null) as Value;
}

/** Text with every `${{ }}` replaced by its value's text (run scripts, names, env values). */
export const interpolate = (text: string, scope: Scope): string =>
  text.replace(TEMPLATE, (_, e: string) => toText(evaluate(e, scope)));

const STATUS_CHECK = /\b(always|success|failure|cancelled)\s*\(/i;

/** A job's or step's `if:`: with or without `${{ }}`; without a status check it is `success() && (…)`, as on GitHub. */
export function condition(when: unknown, scope: Scope): boolean {
  if (when === undefined || when === null) return scope.status.success;
  if (typeof when === 'boolean') return when && scope.status.success;
  let text = String(when).trim();
  const whole = /^\$\{\{([\s\S]*)\}\}$/.exec(text);
  if (whole) text = whole[1]!;
  const expression = STATUS_CHECK.test(text) ? text : `success() && (${text})`;
  return truthy(evaluate(expression, scope));
}
