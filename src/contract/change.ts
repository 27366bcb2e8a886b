import type { MetricDelta, VerdictName } from './api.js';

/** Each verdict's symbol, as every report and the dashboard mark it. */
export const VERDICT_SYMBOL: Readonly<Record<VerdictName, string>> = {
  regression: '▼',
  improvement: '▲',
  'no significant change': '≈',
  inconclusive: '?',
};

/** A percentage with its sign, one decimal: `+2.5`, `−3.1` (a minus sign, not a hyphen). */
export const signedPct = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;

/** A metric's change with its 95% interval, as every report writes it: `−3.1% [−5.0, −1.2]`; the bare change when untested, '' when none. */
export const changeText = (d: MetricDelta): string =>
  d.delta_pct === null
    ? ''
    : `${signedPct(d.delta_pct)}%${d.ci95_pct ? ` [${signedPct(d.ci95_pct[0])}, ${signedPct(d.ci95_pct[1])}]` : ''}`;
