/** The tooltip of a point on the inference chart: the whole configuration. */
import { html, htmlLines } from './html.js';
import type { Html } from './html.js';
import type { PlottedPoint } from './inference.js';
import { axisName } from './metrics.js';

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));

/** The point's power verdict in words: where its energy figures come from, or why it has none. */
export function powerLine(r: PlottedPoint['row']): Html {
  if (r.power_valid === null) return html``;
  if (!r.power_valid) return html`power: not valid${r.power_reasons.length > 0 ? ` (${r.power_reasons.join(', ')})` : ''}`;
  const w = r.metrics.avg_power_w;
  const source = r.power_source === 'modelled' ? 'modelled (simulated engine)' : 'measured';
  return html`power: ${source}${w === undefined ? '' : `, ${fmt(w)} W per GPU`}`;
}

export function pointTooltip(p: PlottedPoint, x: string, y: string, xName = axisName(x), yName = axisName(y)): Html {
  const r = p.row;
  return htmlLines(
    html`<b>${p.label}</b>${r.official ? '' : html` <span class="unofficial">unofficial</span>`}`,
    html`${p.topology} · conc ${r.conc} · ISL/OSL ${r.isl}/${r.osl}`,
    html`${xName}: <b>${fmt(p.x)}</b>`,
    html`${yName}: <b>${fmt(p.y)}</b>`,
    powerLine(r),
    html`image: ${r.image || '–'}`,
    r.recipe_fingerprint ? html`recipe: ${r.recipe_fingerprint.slice(0, 16)}` : '',
    html`run <a href="/runs/${encodeURIComponent(r.run_id)}">${r.run_id}</a> · ${r.date}`,
  );
}
