/**
 * How much each metric varies from run to run, from official history: a config's points measured
 * more than once (repeats that were fresh launches, or the same point in several official runs)
 * say how far one launch's value strays. The estimate is the pooled variance of the log of the
 * value (≈ CV²) over those groups; a config with too little history borrows its hardware and
 * framework's pooled estimate. Each estimate says how many samples and groups it rests on.
 */
import type { PointRow, VariationRow } from '../contract/index.js';
import type { Store } from './db.js';
import { history } from './queries.js';
import type { LogVariance } from './verdict.js';

/** A config needs this many degrees of freedom of its own before its estimate stands alone. */
export const MIN_CONFIG_DF = 8;

interface Spread {
  ss: number;
  df: number;
  samples: number;
  groups: number;
}

const empty = (): Spread => ({ ss: 0, df: 0, samples: 0, groups: 0 });

/** The values of a point that each stand for one launch: its repeats when they were launches, else its one value. */
export function launchValues(p: PointRow, metric: string): number[] {
  const s = p.stats[metric];
  if (s && p.repeat_scope === 'launch' && s.values.length > 1) return s.values;
  const v = p.metrics[metric];
  return v === undefined ? [] : [v];
}

/**
 * One group's measurements into the spread. A value met twice is one measurement stored twice (a
 * reused sweep's results ingested under another run id), not two launches that agreed exactly.
 */
function add(to: Spread, values: readonly number[]): void {
  const logs = [...new Set(values)].filter((v) => v > 0 && Number.isFinite(v)).map(Math.log);
  if (logs.length < 2) return;
  const m = logs.reduce((a, b) => a + b, 0) / logs.length;
  to.ss += logs.reduce((a, x) => a + (x - m) ** 2, 0);
  to.df += logs.length - 1;
  to.samples += logs.length;
  to.groups += 1;
}

export interface VariationIndex {
  rows: VariationRow[];
  /** The estimate a comparison uses for a config's metric: its own when it has enough history, else its pool's. */
  of(config: { config_id: number; hardware: string; framework: string }, metric: string): LogVariance | undefined;
}

/** Estimates from official history over `points` (official, every run), for each metric asked for. */
export function variationOf(points: readonly PointRow[], metrics: readonly string[]): VariationIndex {
  const groups = new Map<string, { config: PointRow; values: Map<string, number[]> }>();
  for (const p of points) {
    const key = `${p.config_id}/${p.isl}/${p.osl}/${p.conc}`;
    const g = groups.get(key) ?? { config: p, values: new Map<string, number[]>() };
    groups.set(key, g);
    for (const m of metrics) g.values.set(m, [...(g.values.get(m) ?? []), ...launchValues(p, m)]);
  }
  const byConfig = new Map<string, Spread>();
  const byPool = new Map<string, Spread>();
  const configOf = new Map<number, PointRow>();
  for (const { config, values } of groups.values()) {
    configOf.set(config.config_id, config);
    for (const [m, vs] of values) {
      const c = byConfig.get(`${config.config_id}|${m}`) ?? empty();
      const pool = byPool.get(`${config.hardware}|${config.framework}|${m}`) ?? empty();
      add(c, vs);
      add(pool, vs);
      byConfig.set(`${config.config_id}|${m}`, c);
      byPool.set(`${config.hardware}|${config.framework}|${m}`, pool);
    }
  }
  const row = (s: Spread, base: Omit<VariationRow, 'cv' | 'samples' | 'groups' | 'df'>): VariationRow => ({
    ...base,
    cv: Math.sqrt(s.ss / s.df),
    samples: s.samples,
    groups: s.groups,
    df: s.df,
  });
  const rows: VariationRow[] = [];
  for (const [key, s] of byPool) {
    if (s.df === 0) continue;
    const [hardware, framework, metric] = key.split('|') as [string, string, string];
    rows.push(row(s, { config_id: null, hardware, framework, metric, scope: 'pooled' }));
  }
  for (const [key, s] of byConfig) {
    if (s.df < MIN_CONFIG_DF) continue;
    const [id, metric] = key.split('|') as [string, string];
    const c = configOf.get(Number(id))!;
    rows.push(row(s, { config_id: c.config_id, hardware: c.hardware, framework: c.framework, metric, scope: 'config' }));
  }
  const toVariance = (s: Spread | undefined): LogVariance | undefined =>
    s && s.df > 0 ? { s2: s.ss / s.df, df: s.df } : undefined;
  return {
    rows,
    of(config, metric) {
      const own = byConfig.get(`${config.config_id}|${metric}`);
      if (own && own.df >= MIN_CONFIG_DF) return toVariance(own);
      return toVariance(byPool.get(`${config.hardware}|${config.framework}|${metric}`));
    },
  };
}

/** Which official history `variation` reads: every hardware, framework and model unless named. */
export interface VariationFilter {
  hardware?: string | undefined;
  framework?: string | undefined;
  /** A model prefix or path: only its configs' history (the pooled estimates too). */
  model?: string | undefined;
  metrics: readonly string[];
}

const SCOPE_ORDER = { pooled: 0, config: 1 } as const;

/**
 * The run-to-run variation official history shows (`/api/v1/variation`): each hardware ×
 * framework pool's estimate and each config's own where it has enough history (MIN_CONFIG_DF),
 * for every metric asked for; ordered by hardware, framework, metric, pool first, then config.
 */
export async function variation(store: Store, f: VariationFilter): Promise<VariationRow[]> {
  const points = await history(store, {
    hardware: f.hardware,
    framework: f.framework,
    model: f.model,
    source: 'official',
    metrics: [...f.metrics],
  });
  return variationOf(points, f.metrics).rows.sort(
    (a, b) =>
      a.hardware.localeCompare(b.hardware) ||
      a.framework.localeCompare(b.framework) ||
      a.metric.localeCompare(b.metric) ||
      SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope] ||
      (a.config_id ?? 0) - (b.config_id ?? 0),
  );
}

/** The official history of these hardware × framework pools (every run but `excludeRun`), read for `metrics`. */
export async function officialHistory(
  store: Store,
  pools: readonly { hardware: string; framework: string }[],
  metrics: readonly string[],
  excludeRun?: string,
): Promise<PointRow[]> {
  const seen = new Set<string>();
  const out: PointRow[] = [];
  for (const { hardware, framework } of pools) {
    if (seen.has(`${hardware}|${framework}`)) continue;
    seen.add(`${hardware}|${framework}`);
    out.push(...(await history(store, { hardware, framework, source: 'official', metrics: [...metrics], excludeRun })));
  }
  return out;
}
