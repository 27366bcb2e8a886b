import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { parsePrometheus } from './replay/server-metrics.js';

/**
 * The server's speculative-decoding counters over the measured window, as `vllm bench serve`
 * reads them: vLLM's `vllm:spec_decode_*` counters scraped from /metrics right before the first
 * measured request and after the last, summed over engines (and over the decoding servers behind
 * a router, whose own /metrics has none), and differenced. Acceptance length
 * = 1 + Δaccepted / Δdrafts (the bonus token counted), as InferenceX's golden-AL collector
 * computes it. With a target AL, the measurement is checked against it (`checkAcceptance`).
 */

/** Cumulative counters from one scrape. */
export interface SpecDecodeCounters {
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
  /** Accepted tokens by draft position (the `position` label). */
  acceptedPerPosition: Map<number, number>;
}

/** The window's increase, in `vllm bench serve`'s result terms. */
export interface SpecDecodeStats {
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
  /** Δaccepted / Δdraft tokens, percent (vLLM's `spec_decode_acceptance_rate`). */
  acceptanceRate: number;
  acceptanceLength: number;
  /** Share of drafts whose position i was accepted. */
  perPositionAcceptanceRates: number[];
}

const COUNTERS = {
  'vllm:spec_decode_num_drafts': 'drafts',
  'vllm:spec_decode_num_draft_tokens': 'draftTokens',
  'vllm:spec_decode_num_accepted_tokens': 'acceptedTokens',
} as const;
const PER_POSITION = 'vllm:spec_decode_num_accepted_tokens_per_pos';

/** The counters in a /metrics body; undefined when it has none (speculative decoding is off, or not vLLM). */
export function specDecodeCounters(text: string): SpecDecodeCounters | undefined {
  const out: SpecDecodeCounters = { drafts: 0, draftTokens: 0, acceptedTokens: 0, acceptedPerPosition: new Map() };
  let found = false;
  for (const s of parsePrometheus(text).samples) {
    // prometheus_client exposes a counter's samples with `_total`; accept OpenMetrics' bare name too.
    const name = s.name.endsWith('_total') ? s.name.slice(0, -'_total'.length) : s.name;
    if (name === PER_POSITION) {
      const pos = Number(s.labels.position);
      if (!Number.isInteger(pos) || pos < 0) continue;
      out.acceptedPerPosition.set(pos, (out.acceptedPerPosition.get(pos) ?? 0) + s.value);
      found = true;
    } else if (name in COUNTERS) {
      out[COUNTERS[name as keyof typeof COUNTERS]] += s.value;
      found = true;
    }
  }
  return found ? out : undefined;
}

/**
 * Scrape every url (each decoding server of a deployment) and sum their counters; undefined when
 * one fails or exports none, since a sum missing a server would skew the window. Never rejects.
 */
export async function fetchSpecDecodeCounters(
  urls: readonly string[],
  headers?: Record<string, string>,
): Promise<SpecDecodeCounters | undefined> {
  const each = await Promise.all(
    urls.map(async (url) => {
      const text = await getText(url, headers);
      return text === undefined ? undefined : specDecodeCounters(text);
    }),
  );
  if (each.length === 0 || each.some((c) => c === undefined)) return undefined;
  return (each as SpecDecodeCounters[]).reduce((sum, c) => {
    sum.drafts += c.drafts;
    sum.draftTokens += c.draftTokens;
    sum.acceptedTokens += c.acceptedTokens;
    for (const [pos, n] of c.acceptedPerPosition) sum.acceptedPerPosition.set(pos, (sum.acceptedPerPosition.get(pos) ?? 0) + n);
    return sum;
  });
}

/**
 * The window's counters from an AIPerf `server_metrics_export.json` (what the trace replay
 * writes): each counter series' total over the profiling window (counters are exported without
 * `_total`), summed over endpoints and engines; undefined when no draft was verified.
 */
export function specDecodeOfExport(exported: unknown): SpecDecodeStats | undefined {
  const metrics = (exported as { metrics?: Record<string, { series?: unknown[] }> } | null)?.metrics ?? {};
  const series = (name: string): { labels: Record<string, string>; total: number }[] =>
    (metrics[name]?.series ?? []).map((s) => {
      const x = s as { labels?: Record<string, string>; stats?: { total?: unknown } };
      return { labels: x.labels ?? {}, total: typeof x.stats?.total === 'number' ? x.stats.total : 0 };
    });
  const total = (name: string): number => series(name).reduce((n, s) => n + s.total, 0);
  const zero: SpecDecodeCounters = { drafts: 0, draftTokens: 0, acceptedTokens: 0, acceptedPerPosition: new Map() };
  const window: SpecDecodeCounters = {
    drafts: total('vllm:spec_decode_num_drafts'),
    draftTokens: total('vllm:spec_decode_num_draft_tokens'),
    acceptedTokens: total('vllm:spec_decode_num_accepted_tokens'),
    acceptedPerPosition: new Map(),
  };
  for (const s of series(PER_POSITION)) {
    const pos = Number(s.labels.position);
    if (Number.isInteger(pos) && pos >= 0)
      window.acceptedPerPosition.set(pos, (window.acceptedPerPosition.get(pos) ?? 0) + s.total);
  }
  return specDecodeWindow(zero, window);
}

/**
 * A 200 answer's body, or undefined. node:http rather than fetch: loading fetch's client right
 * before the measured window costs enough CPU to make a short run's client look saturated.
 */
function getText(url: string, headers: Record<string, string> | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { headers, timeout: 10_000 }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        resolve(undefined);
        return;
      }
      res.setEncoding('utf8');
      let body = '';
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** What happened between two scrapes; undefined when no draft token was verified (as `vllm bench serve`). */
export function specDecodeWindow(before: SpecDecodeCounters, after: SpecDecodeCounters): SpecDecodeStats | undefined {
  const drafts = after.drafts - before.drafts;
  const draftTokens = after.draftTokens - before.draftTokens;
  const acceptedTokens = after.acceptedTokens - before.acceptedTokens;
  if (draftTokens <= 0 || drafts <= 0) return undefined;
  const positions = [...new Set([...before.acceptedPerPosition.keys(), ...after.acceptedPerPosition.keys()])].sort(
    (a, b) => a - b,
  );
  return {
    drafts,
    draftTokens,
    acceptedTokens,
    acceptanceRate: (acceptedTokens / draftTokens) * 100,
    acceptanceLength: 1 + acceptedTokens / drafts,
    perPositionAcceptanceRates: positions.map(
      (p) => ((after.acceptedPerPosition.get(p) ?? 0) - (before.acceptedPerPosition.get(p) ?? 0)) / drafts,
    ),
  };
}

/**
 * Variance of the draft tokens accepted per draft, from the per-position rates r_i = P(the first
 * i + 1 draft tokens accepted): accepted = Σ 1[A ≥ i + 1], so E[A²] = Σ (2i + 1) r_i.
 */
export function acceptedTokensVariance(rates: readonly number[]): number {
  let mean = 0;
  let square = 0;
  rates.forEach((r, i) => {
    mean += r;
    square += (2 * i + 1) * r;
  });
  return Math.max(0, square - mean * mean);
}

/**
 * Variance of the accepted draft tokens of one draft under the synthetic samplers' minimum-variance
 * schedule for mean acceptance length `al` (vLLM's, TRT-LLM's force knob, ATOM's): the integer
 * part of al − 1 always accepted, one more with probability f, its fractional part: f(1 − f).
 */
export function syntheticVariance(al: number): number {
  const f = al - 1 - Math.floor(al - 1);
  return f * (1 - f);
}

/** A measured AL further than this many standard errors from the target is flagged (and further than TOLERANCE). */
export const SIGMAS = 4;
/** Absolute slack: golden ALs are rounded to two decimals, and a server's rates may be rounded too. */
export const TOLERANCE = 0.05;

export interface AcceptanceCheck {
  expected: number;
  measured: number;
  drafts: number;
  /** Standard error of the measured mean over the window's drafts. */
  stderr: number;
  /** |measured − expected| in standard errors (Infinity for a deviation with zero variance). */
  sigmas: number;
  far: boolean;
}

/** The problem a far acceptance makes of a run, undefined when it is not far. */
export function acceptanceProblem(c: AcceptanceCheck | undefined): string | undefined {
  if (!c?.far) return undefined;
  const sigmas = Number.isFinite(c.sigmas) ? c.sigmas.toFixed(1) : '∞';
  return `the measured acceptance length ${c.measured.toFixed(3)} is far from the expected ${c.expected} (${sigmas}σ over ${c.drafts} drafts, and more than ${TOLERANCE})`;
}

/**
 * Is the measured AL far from `expected`? The mean of `drafts` independent draws has standard
 * error σ/√drafts, σ² the larger of the per-draft variance measured (per-position rates) and the
 * synthetic schedule's at the target: neither a window that happened to draw alike nor a sampler
 * noisier than the synthetic one raises a false alarm. Far: more than SIGMAS standard errors
 * (about 6 false alarms in 100 000 runs at 4σ) and more than TOLERANCE.
 */
export function checkAcceptance(stats: SpecDecodeStats, expected: number): AcceptanceCheck {
  const variance = Math.max(acceptedTokensVariance(stats.perPositionAcceptanceRates), syntheticVariance(expected));
  const stderr = Math.sqrt(variance / stats.drafts);
  const deviation = Math.abs(stats.acceptanceLength - expected);
  const sigmas = stderr > 0 ? deviation / stderr : deviation > 0 ? Infinity : 0;
  return {
    expected,
    measured: stats.acceptanceLength,
    drafts: stats.drafts,
    stderr,
    sigmas,
    far: sigmas > SIGMAS && deviation > TOLERANCE,
  };
}
