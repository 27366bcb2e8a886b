/** The tooltip of a point on the inference chart: the whole configuration, HTML-escaped. */
import type { PlottedPoint } from './inference.js';
import { axisName } from './metrics.js';

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function pointTooltip(p: PlottedPoint, x: string, y: string): string {
  const r = p.row;
  return [
    `<b>${escape(p.label)}</b>${r.official ? '' : ' <span class="unofficial">unofficial</span>'}`,
    `${escape(p.topology)} · conc ${r.conc} · ISL/OSL ${r.isl}/${r.osl}`,
    `${escape(axisName(x))}: <b>${fmt(p.x)}</b>`,
    `${escape(axisName(y))}: <b>${fmt(p.y)}</b>`,
    `image: ${escape(r.image || '–')}`,
    r.recipe_fingerprint ? `recipe: ${escape(r.recipe_fingerprint.slice(0, 16))}` : '',
    `run <a href="/runs/${encodeURIComponent(r.run_id)}">${escape(r.run_id)}</a> · ${r.date}`,
  ]
    .filter(Boolean)
    .join('<br>');
}
