/** The tooltip of a point on the inference chart: the whole configuration. */
import { html, htmlLines } from './html.js';
import type { Html } from './html.js';
import type { PlottedPoint } from './inference.js';
import { seriesName } from './inference.js';
import { axisName } from './metrics.js';
import type { Interval } from './metrics.js';

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));

/** The point's power verdict in words: where its energy figures come from, or why it has none. */
export function powerLine(r: PlottedPoint['row']): Html {
  if (r.power_valid === null) return html``;
  if (!r.power_valid) return html`power: not valid${r.power_reasons.length > 0 ? ` (${r.power_reasons.join(', ')})` : ''}`;
  const w = r.metrics.avg_power_w;
  const source = r.power_source === 'modelled' ? 'modelled (simulated engine)' : 'measured';
  return html`power: ${source}${w === undefined ? '' : `, ${fmt(w)} W per GPU`}`;
}

/** An interval, both ends to the precision the value itself is shown with: "[92.6, 107.4]" beside "100" reads as "[93, 107]". */
const interval = (i: Interval, value: number) => {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 2 : undefined;
  const f = (v: number) => (digits === undefined ? v.toPrecision(3) : v.toFixed(digits));
  return `[${f(i[0])}, ${f(i[1])}]`;
};
/** An axis name without its unit, for a compact line: "Interactivity, median". */
const bare = (name: string) => name.replace(/ \([^()]*\)$/, '');

/** How many times the point was measured, and its 95% interval on each axis: "n = 3 (fresh launches), 95% CI …", or "one sample". */
export function samplesLine(p: PlottedPoint, xName: string, yName: string): Html {
  const r = p.row;
  if (r.n <= 1) return html`one sample (no interval)`;
  const scope = r.repeat_scope === 'launch' ? ' (fresh launches)' : r.repeat_scope === 'point' ? ' (one launch)' : '';
  const parts = [
    p.xInterval ? `${bare(xName)} ${interval(p.xInterval, p.x)}` : '',
    p.yInterval ? `${bare(yName)} ${interval(p.yInterval, p.y)}` : '',
  ].filter(Boolean);
  return html`n = ${r.n}${scope}, 95% CI: ${parts.length > 0 ? parts.join('; ') : 'none on these axes'}`;
}

/** What beats a point tied within noise: "tied within noise: beaten by H100 sglang fp8 TP8 conc 8 only within the 95% interval". */
export function tiedLine(p: PlottedPoint): Html {
  if (p.tiedWith.length === 0) return html``;
  const by = p.tiedWith.map((q) => `${seriesName(q.row)} ${q.topology} conc ${q.row.conc}`);
  const shown = by.slice(0, 3).join(', ') + (by.length > 3 ? ` and ${by.length - 3} more` : '');
  return html`<b>◌ tied within noise</b>: beaten by ${shown} only within the 95% interval`;
}

export function pointTooltip(p: PlottedPoint, x: string, y: string, xName = axisName(x), yName = axisName(y)): Html {
  const r = p.row;
  return htmlLines(
    html`<b>${p.label}</b>${r.official ? '' : html` <span class="unofficial">unofficial</span>`}`,
    html`${p.topology} · conc ${r.conc} · ISL/OSL ${r.isl}/${r.osl}`,
    html`${xName}: <b>${fmt(p.x)}</b>`,
    html`${yName}: <b>${fmt(p.y)}</b>`,
    samplesLine(p, xName, yName),
    tiedLine(p),
    powerLine(r),
    html`image: ${r.image || '–'}`,
    r.recipe_fingerprint ? html`recipe: ${r.recipe_fingerprint.slice(0, 16)}` : '',
    html`run <a href="/runs/${encodeURIComponent(r.run_id)}">${r.run_id}</a> · ${r.date}`,
  );
}
