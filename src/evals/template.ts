import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import { pyStr } from '../pycompat/index.js';

/**
 * doc_to_text / doc_to_target / description as lm-eval reads them: a doc field's name gives that
 * field's value; anything else is a Jinja template rendered over the doc's fields with jinja2's
 * StrictUndefined (an unknown field is an error, not an empty string) and keep_trailing_newline.
 */

export class TemplateError extends Error {}

export interface DocTemplate {
  source: string;
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
  // A doc is rendered many times (a few-shot example in many prompts): once is enough.
  const rendered = new WeakMap<object, string>();
  return {
    source,
    render(doc) {
      if (Object.hasOwn(doc, source)) return doc[source];
      let text = rendered.get(doc);
      if (text === undefined) {
        try {
          text = (new Interpreter(strictScope(doc) as unknown as Environment).run(program) as unknown as { value: string }).value;
        } catch (e) {
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
