import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import { pyStr } from '../pycompat/index.js';

/**
 * doc_to_text / doc_to_target / description as lm-eval reads them: a doc field's name gives that
 * field's value; anything else is a Jinja template rendered over the doc's fields with jinja2's
 * StrictUndefined (an unknown field is an error, not an empty string) and keep_trailing_newline.
 */

export class TemplateError extends Error {}

/** Expressions and statements one render may evaluate: lm-eval's templates take tens; a loop takes a few per item. */
export const MAX_TEMPLATE_STEPS = 100_000;
/**
 * The longest string (characters) or list (items) a render may make or read: a prompt is a few
 * thousand characters, a long-context task's document a few hundred thousand.
 */
export const MAX_TEMPLATE_LENGTH = 4 << 20;

/** Attribute names that reach JavaScript's or Python's machinery rather than the doc's data. */
const isPrivateName = (name: string): boolean => name.startsWith('_') || name === 'constructor' || name === 'prototype';

interface AstNode {
  type: string;
  [field: string]: unknown;
}
const isAstNode = (v: unknown): v is AstNode => typeof v === 'object' && v !== null && typeof (v as AstNode).type === 'string';

/** Every node of a parsed template, parents first. */
function* nodesOf(value: unknown): Generator<AstNode> {
  if (Array.isArray(value)) for (const v of value) yield* nodesOf(v);
  else if (value instanceof Map) for (const [k, v] of value) yield* nodesOf([k, v]);
  else if (isAstNode(value)) {
    yield value;
    for (const [field, v] of Object.entries(value)) if (field !== 'type') yield* nodesOf(v);
  }
}

/**
 * What a template may not do, whatever the doc: read private attributes (`__class__`,
 * `constructor`) or call a function by name (`range`, `namespace`, a macro): the doc's fields and
 * their methods (`split`, `strip`…) and filters are all a prompt needs.
 */
function refusal(program: Program): string | undefined {
  const filterCalls = new Set<unknown>();
  for (const node of nodesOf(program)) {
    if (node.type === 'FilterExpression' || node.type === 'FilterStatement') filterCalls.add(node.filter);
    if (node.type === 'MemberExpression') {
      const property = node.property as AstNode & { value?: unknown };
      if ((property.type === 'Identifier' || property.type === 'StringLiteral') && isPrivateName(String(property.value)))
        return `.${String(property.value)}: private attributes are not readable`;
    }
    if (node.type === 'CallExpression' && !filterCalls.has(node)) {
      const callee = node.callee as AstNode & { value?: unknown };
      if (callee.type === 'Identifier')
        return `${String(callee.value)}(): templates call no functions, only the doc values' methods and filters`;
    }
    if (node.type === 'Macro') return 'macros are not supported';
  }
  return undefined;
}

/** The library's interpreter, stopped when a render takes more than MAX_TEMPLATE_STEPS or makes a value longer than MAX_TEMPLATE_LENGTH. */
class BoundedInterpreter extends Interpreter {
  private steps = 0;

  constructor(env: Environment) {
    super(env);
  }

  evaluate(statement: unknown, environment: unknown): unknown {
    if (++this.steps > MAX_TEMPLATE_STEPS) throw new TemplateError(`the render takes more than ${MAX_TEMPLATE_STEPS} steps`);
    const result = super.evaluate(statement, environment) as unknown;
    const { value } = result as { value: unknown };
    if ((typeof value === 'string' || Array.isArray(value)) && value.length > MAX_TEMPLATE_LENGTH)
      throw new TemplateError(`the render makes a value longer than ${MAX_TEMPLATE_LENGTH} characters or items`);
    return result;
  }
}

export interface DocTemplate {
  source: string;
  /** The names the template reads (the doc's fields among them); the field itself for a field name. */
  names: ReadonlySet<string>;
  /** The field's value (any type), or the rendered template (a string). */
  render(doc: Readonly<Record<string, unknown>>): unknown;
}

type Program = ReturnType<typeof parse>;
interface RuntimeValue {
  type: string;
}
interface Scope {
  set(name: string, value: unknown): unknown;
  lookupVariable(name: string): RuntimeValue;
}

/** An Environment holding the doc that refuses unknown names, as jinja2's StrictUndefined does when they are printed. */
function strictScope(doc: Readonly<Record<string, unknown>>): Scope {
  const env = new Environment() as unknown as Scope;
  for (const [k, v] of Object.entries(doc)) env.set(k, v);
  const lookup = env.lookupVariable.bind(env);
  env.lookupVariable = (name) => {
    const value = lookup(name);
    if (value.type === 'UndefinedValue') throw new TemplateError(`'${name}' is undefined: the doc has no such field`);
    return value;
  };
  return env;
}

export function compileTemplate(source: string): DocTemplate {
  let program: Program;
  try {
    // The tokenizer drops one final newline (jinja2's default); lm-eval keeps it.
    program = parse(tokenize(`${source}\n`, {}));
  } catch (e) {
    throw new TemplateError(`not a Jinja template: ${(e as Error).message}`);
  }
  const refused = refusal(program);
  if (refused) throw new TemplateError(refused);
  // A doc is rendered many times (a few-shot example in many prompts): once is enough.
  const rendered = new WeakMap<object, string>();
  const names = new Set([source]);
  for (const node of nodesOf(program)) if (node.type === 'Identifier') names.add(String(node.value));
  return {
    source,
    names,
    render(doc) {
      if (Object.hasOwn(doc, source)) return doc[source];
      let text = rendered.get(doc);
      if (text === undefined) {
        try {
          // The library's declarations do not resolve under NodeNext (Interpreter is typed any): its run() as it is.
          const interpreter = new BoundedInterpreter(strictScope(doc) as unknown as Environment) as unknown as {
            run(p: Program): { value: string };
          };
          text = interpreter.run(program).value;
        } catch (e) {
          // The library's own refusals are plain Errors (a SyntaxError for `'a' * 3`), as are V8's (a RangeError past its longest string).
          throw new TemplateError(`${JSON.stringify(source.slice(0, 60))}: ${(e as Error).message}`);
        }
        rendered.set(doc, text);
      }
      return text;
    },
  };
}

/** A target as exact_match compares it: lm-eval casts it to the response's type, str (Python's str(): 204, 1.5, True). */
export const targetText = (target: unknown): string => pyStr(target);
