/** The tooltip of a point on the inference chart: the whole configuration, HTML-escaped. */
import type { PlottedPoint } from './inference.js';
import { axisName } from './metrics.js';

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The point's power verdict in words: where its energy figures come from, or why it has none. */
export function powerLine(r: PlottedPoint['row']): string {
  if (r.power_valid === null) return '';
  if (!r.power_valid) return `power: not valid${r.power_reasons.length > 0 ? ` (${escape(r.power_reasons.join(', '))})` : ''}`;
  const w = r.metrics.avg_power_w;
  const source = r.power_source === 'modelled' ? 'modelled (simulated engine)' : 'measured';
  return `power: ${source}${w === undefined ? '' : `, ${fmt(w)} W per GPU`}`;
}

export function pointTooltip(p: PlottedPoint, x: string, y: string, xName = axisName(x), yName = axisName(y)): string {
  const r = p.row;
  return [
    `<b>${escape(p.label)}</b>${r.official ? '' : ' <span class="unofficial">unofficial</span>'}`,
    `${escape(p.topology)} · conc ${r.conc} · ISL/OSL ${r.isl}/${r.osl}`,
    `${escape(xName)}: <b>${fmt(p.x)}</b>`,
    `${escape(yName)}: <b>${fmt(p.y)}</b>`,
    powerLine(r),
    `image: ${escape(r.image || '–')}`,
    r.recipe_fingerprint ? `recipe: ${escape(r.recipe_fingerprint.slice(0, 16))}` : '',
    `run <a href="/runs/${encodeURIComponent(r.run_id)}">${escape(r.run_id)}</a> · ${r.date}`,
  ]
    .filter(Boolean)
    .join('<br>');
}
