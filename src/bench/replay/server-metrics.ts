import { performance } from 'node:perf_hooks';
import { epochNs } from './records.js';
import { percentileSorted } from '../../util/percentile.js';
import { mean } from '../stats.js';

/**
 * The server's Prometheus metrics over the profiling window, scraped every slice and exported as
 * AIPerf's `server_metrics_export.json`: `metrics.<name>` = {type, description, series: [{
 * endpoint_url, labels, stats, timeslices}]}. Counters' stats are the window's increase
 * (`total`) and rate; gauges' are avg/min/max/percentiles of the samples; histograms' are the
 * increase of their `_count` and `_sum`. InferenceX's server_metrics.py reads `stats`.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

/** Prometheus text exposition format (0.0.4), the lines this export needs. */
export function parsePrometheus(text: string): Exposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s+(TYPE|HELP)\s+(\S+)\s*(.*)$/.exec(line);
      if (m) (m[1] === 'TYPE' ? types : help).set(m[2]!, m[3]!);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const value = Number(m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : m[4]);
    if (Number.isNaN(value)) continue;
    const labels: Record<string, string> = {};
    if (m[3]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"/g;
      for (let l = re.exec(m[3]); l; l = re.exec(m[3]))
        labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: m[1]!, labels, value });
  }
  return { types, help, samples };
}

interface Series {
  metric: string;
  type: string;
  endpoint: string;
  labels: Record<string, string>;
  /** [epoch ns, value]; for histograms the `_count` value, with `sums` beside it. */
  points: [number, number][];
  sums: number[];
}

/** Scrapes `urls` every `sliceMs` between start() and stop(); a failed scrape is counted, not fatal. */
export class MetricsScraper {
  private readonly series = new Map<string, Series>();
  private readonly help = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private window: [number, number] | undefined;
  failedScrapes = 0;
  scrapes = 0;

  constructor(
    readonly urls: readonly string[],
    private readonly sliceMs: number,
  ) {}

  start(): void {
    this.window = [performance.now(), NaN];
    this.tick();
  }

  private tick(): void {
    this.inFlight = this.scrapeAll();
    this.timer = setTimeout(() => this.tick(), this.sliceMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    if (this.window) {
      await this.scrapeAll();
      this.window[1] = performance.now();
    }
  }

  private async scrapeAll(): Promise<void> {
    await Promise.all(this.urls.map((u) => this.scrape(u)));
  }

  private async scrape(url: string): Promise<void> {
    let text: string;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(Math.max(1000, this.sliceMs * 5)) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      text = await res.text();
    } catch {
      this.failedScrapes++;
      return;
    }
    this.scrapes++;
    this.add(url, parsePrometheus(text), epochNs(performance.now()));
  }

  /** One scrape's samples, taken at `at` (epoch ns). */
  add(endpoint: string, exposition: Exposition, at: number): void {
    for (const [name, h] of exposition.help) this.help.set(name, h);
    for (const s of exposition.samples) {
      let metric = s.name;
      let type = exposition.types.get(metric);
      let part: 'value' | 'count' | 'sum' = 'value';
      if (type === undefined) {
        const base = /^(.*)_(count|sum|bucket|total|created)$/.exec(metric);
        const baseType = base ? exposition.types.get(base[1]!) : undefined;
        if (base && (baseType === 'histogram' || baseType === 'summary')) {
          if (base[2] !== 'count' && base[2] !== 'sum') continue;
          metric = base[1]!;
          type = baseType;
          part = base[2] as 'count' | 'sum';
        } else if (base && base[2] === 'total' && baseType === 'counter') {
          // A counter declared without its `_total` suffix (OpenMetrics style): keep the sample's name.
          type = 'counter';
        } else if (base && base[2] === 'created') continue;
      } else if (type === 'histogram' || type === 'summary') continue; // quantile lines of a summary
      // AIPerf exports a counter under its name without `_total` (vllm:prefix_cache_hits), what InferenceX's backends read.
      if (type === 'counter' && metric.endsWith('_total')) metric = metric.slice(0, -'_total'.length);
      const key = `${endpoint}\u0000${metric}\u0000${JSON.stringify(s.labels)}`;
      let series = this.series.get(key);
      if (!series) {
        series = { metric, type: type ?? 'untyped', endpoint, labels: s.labels, points: [], sums: [] };
        this.series.set(key, series);
      }
      if (part === 'sum') {
        series.sums.push(s.value);
        continue;
      }
      series.points.push([at, s.value]);
    }
  }

  /** The export's JSON object. */
  export(): Record<string, unknown> {
    const metrics: Record<string, { type: string; description: string; series: unknown[] }> = {};
    for (const s of this.series.values()) {
      const entry = (metrics[s.metric] ??= {
        type: s.type,
        description: this.help.get(s.metric) ?? this.help.get(`${s.metric}_total`) ?? '',
        series: [],
      });
      entry.series.push({
        endpoint_url: s.endpoint,
        labels: s.labels,
        stats: seriesStats(s),
        timeslices: timeslices(s),
      });
    }
    return {
      schema_version: '1.0',
      summary: {
        endpoints: [...this.urls],
        slice_duration_seconds: this.sliceMs / 1000,
        start_ns: this.window ? epochNs(this.window[0]) : null,
        end_ns: this.window && Number.isFinite(this.window[1]) ? epochNs(this.window[1]) : null,
        scrapes: this.scrapes,
        failed_scrapes: this.failedScrapes,
      },
      metrics,
    };
  }
}

function seriesStats(s: Series): Record<string, number> {
  const values = s.points.map((p) => p[1]);
  if (values.length === 0) return {};
  const first = s.points[0]!;
  const last = s.points[s.points.length - 1]!;
  const seconds = (last[0] - first[0]) / 1e9;
  if (s.type === 'counter') {
    const total = Math.max(0, last[1] - first[1]);
    return { total, rate: seconds > 0 ? total / seconds : 0, start: first[1], end: last[1] };
  }
  if (s.type === 'histogram' || s.type === 'summary') {
    const count = Math.max(0, last[1] - first[1]);
    const sum = s.sums.length > 0 ? Math.max(0, s.sums[s.sums.length - 1]! - s.sums[0]!) : 0;
    return { count, sum, avg: count > 0 ? sum / count : 0, rate: seconds > 0 ? count / seconds : 0 };
  }
  const sorted = Float64Array.from(values).sort() as unknown as number[];
  return {
    avg: mean(values),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    count: values.length,
  };
}

/** One entry per pair of consecutive scrapes: a counter's increase, or a gauge's value at the slice's end. */
function timeslices(s: Series): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let i = 1; i < s.points.length; i++) {
    const [t0, v0] = s.points[i - 1]!;
    const [t1, v1] = s.points[i]!;
    if (s.type === 'counter' || s.type === 'histogram' || s.type === 'summary') {
      const delta = Math.max(0, v1 - v0);
      out.push({ start_ns: t0, end_ns: t1, total: delta, rate: t1 > t0 ? delta / ((t1 - t0) / 1e9) : 0 });
    } else out.push({ start_ns: t0, end_ns: t1, avg: (v0 + v1) / 2, max: Math.max(v0, v1), value: v1 });
  }
  return out;
}

/** AIPerf's columns per metric type in `server_metrics_export.csv`, and the export's stat each reads (none: empty). */
const CSV_COLUMNS: Record<string, [string, string | undefined][]> = {
  gauge: [
    ['avg', 'avg'],
    ['min', 'min'],
    ['max', 'max'],
    ['std', undefined],
    ['p50', 'p50'],
    ['p90', 'p90'],
    ['p95', undefined],
    ['p99', 'p99'],
  ],
  counter: [
    ['delta', 'total'],
    ['rate_per_second', 'rate'],
    ['rate_avg', undefined],
    ['rate_min', undefined],
    ['rate_max', undefined],
    ['rate_std', undefined],
  ],
  histogram: [
    ['observation_count', 'count'],
    ['delta', 'sum'],
    ['avg', 'avg'],
    ['observations_per_second', 'rate'],
    ['rate_per_second', undefined],
    ['p50', undefined],
    ['p90', undefined],
    ['p95', undefined],
    ['p99', undefined],
  ],
  summary: [
    ['observation_count', 'count'],
    ['delta', 'sum'],
    ['avg', 'avg'],
    ['observations_per_second', 'rate'],
    ['rate_per_second', undefined],
  ],
};

const csvCell = (v: string): string => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csvNumber = (v: number | undefined): string => (v === undefined ? '' : Number.isInteger(v) ? String(v) : v.toFixed(4));

/**
 * AIPerf's `server_metrics_export.csv` from the JSON export: a section per metric type (gauges,
 * counters, histograms, summaries, a blank line between), each `Endpoint,Type,Metric,Labels` and
 * the type's statistics, a row per series sorted by metric, endpoint and labels. Statistics the
 * scrape does not keep (histogram percentiles, rate spreads) are empty, as AIPerf leaves missing ones.
 */
export function serverMetricsCsv(exported: { metrics: Record<string, { type: string; series: unknown[] }> }): string {
  const sections: string[] = [];
  for (const [type, columns] of Object.entries(CSV_COLUMNS)) {
    const rows = Object.entries(exported.metrics)
      .filter(([, m]) => m.type === type)
      .flatMap(([name, m]) =>
        (m.series as { endpoint_url: string; labels: Record<string, string>; stats: Record<string, number> }[]).map((s) => ({
          name,
          endpoint: s.endpoint_url.replace(/^https?:\/\//, ''),
          labels: Object.entries(s.labels)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => `${k}=${v}`)
            .join(';'),
          stats: s.stats,
        })),
      )
      .sort((a, b) => a.name.localeCompare(b.name) || a.endpoint.localeCompare(b.endpoint) || a.labels.localeCompare(b.labels));
    if (rows.length === 0) continue;
    const extra = type === 'histogram' ? ['buckets'] : type === 'summary' ? ['quantiles'] : [];
    const lines = [['Endpoint', 'Type', 'Metric', 'Labels', ...columns.map(([c]) => c), ...extra].join(',')];
    for (const r of rows)
      lines.push(
        [
          r.endpoint,
          type,
          r.name,
          r.labels,
          ...columns.map(([, stat]) => csvNumber(stat === undefined ? undefined : r.stats[stat])),
          ...extra.map(() => ''),
        ]
          .map(csvCell)
          .join(','),
      );
    sections.push(lines.join('\r\n'));
  }
  return sections.length > 0 ? `${sections.join('\r\n\r\n')}\r\n` : '';
}
