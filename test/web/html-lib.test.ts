// The html tag (web/src/lib/html.ts): markup is made only from literal parts and escaped values.
import { describe, expect, it } from 'vitest';
import { Html, html, htmlFormatter, htmlLines, httpHref, joinHtml } from '../../web/src/lib/html.js';

const HOSTILE = `"><img src=x onerror=alert(1)>&'`;
const ESCAPED = '&#34;&#62;&#60;img src=x onerror=alert(1)&#62;&#38;&#39;';

describe('html``', () => {
  it('escapes every interpolated string and number, and keeps its literal markup', () => {
    expect(String(html`<b>${HOSTILE}</b> · ${42}`)).toBe(`<b>${ESCAPED}</b> · 42`);
    expect(String(html`<a href="/runs/${HOSTILE}"></a>`)).toBe(`<a href="/runs/${ESCAPED}"></a>`);
  });

  it('keeps markup made by html as it is, escapes it once, and concatenates lists', () => {
    const inner = html`<i>${HOSTILE}</i>`;
    expect(String(html`<b>${inner}</b>`)).toBe(`<b><i>${ESCAPED}</i></b>`);
    expect(String(html`${[HOSTILE, inner]}`)).toBe(`${ESCAPED}<i>${ESCAPED}</i>`);
  });

  it('text that only looks like markup is still text: Html is made by the tag alone', () => {
    expect(String(html`${'<b>x</b>'}`)).toBe('&#60;b&#62;x&#60;/b&#62;');
    expect(() => new Html(Symbol('markup') as never, '<b>')).toThrow(/html tag only/);
  });

  it('joins lines, leaving out empty ones; a formatter returns the markup or nothing', () => {
    expect(String(htmlLines(html`a`, '', HOSTILE))).toBe(`a<br />${ESCAPED}`);
    expect(String(joinHtml(['a', 'b'], html`, `))).toBe('a, b');
    const formatter = htmlFormatter((p: { name: string } | undefined) => p && html`<b>${p.name}</b>`);
    expect(formatter({ name: HOSTILE })).toBe(`<b>${ESCAPED}</b>`);
    expect(formatter(undefined)).toBe('');
  });
});

describe('httpHref', () => {
  it('is an absolute http(s) URL or nothing: javascript:, data:, relative and malformed values are no links', () => {
    expect(httpHref('https://github.com/o/r/actions/runs/1')).toBe('https://github.com/o/r/actions/runs/1');
    expect(httpHref('http://ci.example/x?y=1')).toBe('http://ci.example/x?y=1');
    for (const v of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<b>', '/runs/1', 'not a url', ''])
      expect(httpHref(v), v).toBeUndefined();
  });
});
