/**
 * Markup built from stored strings, escaped by construction. ECharts' tooltip formatters return
 * HTML, and every string on the dashboard comes from configs and result files a pull request can
 * write (image, model prefix, framework, run id, task names…), so markup is only ever made by the
 * `html` tag: it escapes every value put into it unless that value is itself `html`. Pages hand
 * ECharts a tooltip through `htmlFormatter`, which takes nothing else.
 */

const MARKUP = Symbol('markup');

/** Markup in which every interpolated value was escaped: made only by `html` and `joinHtml`. */
export class Html {
  readonly [MARKUP]: string;
  constructor(secret: typeof MARKUP, markup: string) {
    if (secret !== MARKUP) throw new TypeError('Html is made by the html tag only');
    this[MARKUP] = markup;
  }
  toString(): string {
    return this[MARKUP];
  }
}

/** What may go into `html`: text (escaped), numbers, markup, and lists of them (concatenated). */
export type HtmlValue = string | number | Html | readonly HtmlValue[];

/** `&`, `<`, `>`, `"` and `'` as character references: safe in text and in a quoted attribute. */
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const render = (value: HtmlValue): string =>
  value instanceof Html ? value[MARKUP] : typeof value === 'object' ? value.map(render).join('') : escapeHtml(String(value));

/** html`<b>${name}</b>`: the literal parts are markup, every value is escaped unless it is Html. */
export function html(literal: TemplateStringsArray, ...values: HtmlValue[]): Html {
  return new Html(
    MARKUP,
    literal.reduce((out, part, i) => out + render(values[i - 1]!) + part),
  );
}

/** The parts with `separator` between them, leaving out empty ones (an absent line of a tooltip). */
export const joinHtml = (parts: readonly HtmlValue[], separator: Html): Html =>
  new Html(MARKUP, parts.map(render).filter(Boolean).join(separator[MARKUP]));

/** A tooltip's lines. */
export const htmlLines = (...lines: HtmlValue[]): Html => joinHtml(lines, html`<br />`);

/** An ECharts tooltip formatter that can only return escaped markup (nothing when `f` has nothing). */
export const htmlFormatter =
  <P>(f: (params: P) => Html | undefined) =>
  (params: P): string =>
    f(params)?.[MARKUP] ?? '';

/**
 * A stored link (a run's CI page, a changelog entry's PR) as an href: only an absolute http(s)
 * URL, so that a `javascript:` or `data:` value written into a result file is never a link.
 */
export function httpHref(stored: string): string | undefined {
  try {
    const url = new URL(stored);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
