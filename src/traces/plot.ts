import type { CorpusStats, Distribution } from './stats.js';

/**
 * The corpus's distributions as one self-contained SVG: a histogram per distribution in a grid,
 * with dashed lines at p50 and p90. Like the reference's linear figure, the x axis ends at p99 so
 * a heavy tail does not squeeze the bulk into one bar (values beyond fall into the last bar).
 */

const PANEL_W = 360;
const PANEL_H = 220;
const COLUMNS = 2;
const BINS = 30;
const MARGIN = { left: 48, right: 16, top: 34, bottom: 34 };

const escape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A short figure for an axis label: 0.25, 12, 3.4k, 1.2M. */
export function shortNumber(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a >= 100 || Number.isInteger(v)) return String(Math.round(v));
  return String(+v.toPrecision(2));
}

function histogram(values: readonly number[], lo: number, hi: number): number[] {
  const counts = new Array<number>(BINS).fill(0);
  const width = hi - lo || 1;
  for (const v of values) {
    const bin = Math.min(BINS - 1, Math.max(0, Math.floor(((v - lo) / width) * BINS)));
    counts[bin]!++;
  }
  return counts;
}

function panel(d: Distribution, x0: number, y0: number): string {
  const w = PANEL_W - MARGIN.left - MARGIN.right;
  const h = PANEL_H - MARGIN.top - MARGIN.bottom;
  const left = x0 + MARGIN.left;
  const top = y0 + MARGIN.top;
  const parts = [`<text x="${x0 + PANEL_W / 2}" y="${y0 + 18}" text-anchor="middle" class="title">${escape(d.label)}</text>`];
  if (d.values.length === 0) {
    parts.push(`<text x="${left + w / 2}" y="${top + h / 2}" text-anchor="middle" class="axis">no values</text>`);
    return parts.join('');
  }
  // A loop, not Math.min(...): a spread of a corpus's values overflows the stack.
  const lo = d.values.reduce((m, v) => Math.min(m, v), 0);
  const hi = Math.max(d.summary.p99, lo + 1e-9);
  const counts = histogram(d.values, lo, hi);
  const most = Math.max(...counts);
  const barW = w / BINS;
  counts.forEach((c, i) => {
    const bh = (c / most) * h;
    parts.push(
      `<rect x="${(left + i * barW).toFixed(2)}" y="${(top + h - bh).toFixed(2)}" width="${(barW - 1).toFixed(2)}" height="${bh.toFixed(2)}" class="bar"/>`,
    );
  });
  const xOf = (v: number): number => left + ((Math.min(v, hi) - lo) / (hi - lo)) * w;
  // p50 labelled left of its line, p90 right of its own and a line lower: close lines stay legible.
  for (const [name, v, anchor, dx, dy] of [
    ['p50', d.summary.p50, 'end', -3, -3],
    ['p90', d.summary.p90, 'start', 3, 9],
  ] as const) {
    const x = xOf(v);
    parts.push(`<line x1="${x.toFixed(2)}" y1="${top}" x2="${x.toFixed(2)}" y2="${top + h}" class="${name}"/>`);
    parts.push(
      `<text x="${(x + dx).toFixed(2)}" y="${top + dy}" text-anchor="${anchor}" class="axis">${name} ${shortNumber(v)}</text>`,
    );
  }
  parts.push(`<line x1="${left}" y1="${top + h}" x2="${left + w}" y2="${top + h}" class="frame"/>`);
  parts.push(`<text x="${left}" y="${top + h + 14}" class="axis">${shortNumber(lo)}</text>`);
  parts.push(`<text x="${left + w}" y="${top + h + 14}" text-anchor="end" class="axis">${shortNumber(hi)} (p99)</text>`);
  parts.push(
    `<text x="${left + w / 2}" y="${top + h + 28}" text-anchor="middle" class="axis">${escape(d.unit)} — n=${d.summary.count}, max ${shortNumber(d.summary.max)}</text>`,
  );
  parts.push(`<text x="${left - 4}" y="${top + 8}" text-anchor="end" class="axis">${most}</text>`);
  return parts.join('');
}

export function statsSvg(stats: CorpusStats, title: string): string {
  const rows = Math.ceil(stats.distributions.length / COLUMNS);
  const width = PANEL_W * COLUMNS;
  const height = PANEL_H * rows + 30;
  const panels = stats.distributions.map((d, i) => panel(d, (i % COLUMNS) * PANEL_W, 30 + Math.floor(i / COLUMNS) * PANEL_H));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<style>text{font-family:sans-serif}.title{font-size:12px;font-weight:bold}.axis{font-size:10px;fill:#444}.bar{fill:#4c78a8}.frame{stroke:#333}.p50{stroke:#1f77b4;stroke-dasharray:4 3}.p90{stroke:#ff7f0e;stroke-dasharray:4 3}</style>',
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" class="title">${escape(title)} — ${stats.traces} traces, ${stats.requests} requests</text>`,
    ...panels,
    '</svg>',
    '',
  ].join('\n');
}
