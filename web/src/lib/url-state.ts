/**
 * The whole view lives in the URL: the page in the path, everything else in the query, with
 * defaults left out so that shared links stay short. parse(toUrl(s)) gives s back; a link with a
 * `preset` expands into that preset's parameters (explicit ones win).
 */
import { DEFAULT_TCO, X_METRICS, Y_METRICS, measuredOnly } from './metrics.js';
import type { EnergyMode, Tco } from './metrics.js';

export const PAGES = ['inference', 'agentic', 'evaluation', 'trends', 'runs', 'run', 'tco'] as const;
export type Page = (typeof PAGES)[number];

export interface ViewState {
  page: Page;
  /** The run a /runs/:id page shows. */
  runId: string | undefined;
  model: string | undefined;
  /** "8192x1024": ISL x OSL. */
  seq: string | undefined;
  x: string;
  y: string;
  /** Empty: every value. */
  hw: string[];
  fw: string[];
  prec: string[];
  spec: string[];
  disagg: 'all' | 'agg' | 'disagg';
  /** Official results as of this date (YYYY-MM-DD); undefined: the latest. */
  date: string | undefined;
  /** Hide points off their series' frontier. */
  optimal: boolean;
  /** Inference: draw the simulator's predicted frontier next to each series. */
  predicted: boolean;
  /** A run drawn over the official results. */
  run: string | undefined;
  /** A run staged from a pull request (/stage-results), drawn over the official results under a "not official" banner. */
  staged: string | undefined;
  /** TCO figures that differ from the defaults, by hardware. */
  tco: Record<string, Tco>;
  /** Where the energy axes come from: measured GPU power, or the TCO figures (the default). */
  energy: EnergyMode;
  /** Trends: the interactivity (tok/s/user) the throughput is read at. */
  target: number;
}

export const DEFAULTS: ViewState = {
  page: 'inference',
  runId: undefined,
  model: undefined,
  seq: undefined,
  x: 'median_intvty',
  y: 'tput_per_gpu',
  hw: [],
  fw: [],
  prec: [],
  spec: [],
  disagg: 'all',
  date: undefined,
  optimal: true,
  predicted: false,
  run: undefined,
  staged: undefined,
  tco: {},
  energy: 'tco',
  target: 50,
};

/** Named views: `?preset=<id>` is a shareable shorthand for its parameters. */
export const PRESETS: readonly { id: string; title: string; params: string }[] = [
  { id: 'cost', title: 'Cost per million tokens against interactivity', params: 'y=cost_per_mtok' },
  { id: 'energy', title: 'Joules per token against interactivity', params: 'y=joules_per_tok' },
  { id: 'measured-energy', title: 'Measured joules per token against interactivity', params: 'y=joules_per_tok&energy=measured' },
  { id: 'latency', title: 'Throughput against p99 time to first token', params: 'x=p99_ttft' },
  { id: 'disagg', title: 'Disaggregated deployments only, every point', params: 'disagg=disagg&optimal=0' },
];

const list = (v: string | null): string[] => (v ? v.split(',').filter(Boolean) : []);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseTco(v: string | null): Record<string, Tco> {
  const out: Record<string, Tco> = {};
  for (const part of list(v)) {
    const [hw, cost, power] = part.split(':');
    const costPerHour = Number(cost);
    const powerKw = Number(power);
    if (hw && Number.isFinite(costPerHour) && costPerHour >= 0 && Number.isFinite(powerKw) && powerKw > 0)
      out[hw] = { costPerHour, powerKw };
  }
  return out;
}

export function parseUrl(pathname: string, search: string): ViewState {
  let params = new URLSearchParams(search);
  const preset = PRESETS.find((p) => p.id === params.get('preset'));
  if (preset) {
    const merged = new URLSearchParams(preset.params);
    for (const [k, v] of params) if (k !== 'preset') merged.set(k, v);
    params = merged;
  }
  const parts = pathname.split('/').filter(Boolean);
  let page: Page = (PAGES as readonly string[]).includes(parts[0] ?? '') ? (parts[0] as Page) : 'inference';
  let runId: string | undefined;
  if (parts[0] === 'runs' && parts[1]) {
    page = 'run';
    runId = decodeURIComponent(parts[1]);
  }
  const known = (v: string | null, options: readonly { key: string }[], fallback: string) =>
    v && options.some((o) => o.key === v) ? v : fallback;
  const disagg = params.get('disagg');
  const date = params.get('date');
  const target = Number(params.get('target'));
  const y = known(params.get('y'), Y_METRICS, DEFAULTS.y);
  return {
    page,
    runId,
    model: params.get('model') ?? undefined,
    seq: /^\d+x\d+$/.test(params.get('seq') ?? '') ? params.get('seq')! : undefined,
    x: known(params.get('x'), X_METRICS, DEFAULTS.x),
    y,
    hw: list(params.get('hw')),
    fw: list(params.get('fw')),
    prec: list(params.get('prec')),
    spec: list(params.get('spec')),
    disagg: disagg === 'agg' || disagg === 'disagg' ? disagg : 'all',
    date: date && DATE.test(date) ? date : undefined,
    optimal: params.get('optimal') !== '0',
    predicted: params.get('predicted') === '1',
    run: params.get('run') ?? undefined,
    staged: params.get('staged') ?? undefined,
    tco: parseTco(params.get('tco')),
    // Per-role energy is measured only: its axis brings the measured mode with it.
    energy: params.get('energy') === 'measured' || measuredOnly(y) ? 'measured' : 'tco',
    target: Number.isFinite(target) && target > 0 ? target : DEFAULTS.target,
  };
}

/** The path and query of a view (defaults left out; the TCO figures that differ from the defaults only). */
export function toUrl(s: ViewState): string {
  const path = s.page === 'run' ? `/runs/${encodeURIComponent(s.runId ?? '')}` : `/${s.page}`;
  const q = new URLSearchParams();
  if (s.model) q.set('model', s.model);
  if (s.seq) q.set('seq', s.seq);
  if (s.x !== DEFAULTS.x) q.set('x', s.x);
  if (s.y !== DEFAULTS.y) q.set('y', s.y);
  for (const k of ['hw', 'fw', 'prec', 'spec'] as const) if (s[k].length > 0) q.set(k, s[k].join(','));
  if (s.disagg !== 'all') q.set('disagg', s.disagg);
  if (s.date) q.set('date', s.date);
  if (!s.optimal) q.set('optimal', '0');
  if (s.predicted) q.set('predicted', '1');
  if (s.run) q.set('run', s.run);
  if (s.staged) q.set('staged', s.staged);
  const tco = Object.entries(s.tco)
    .filter(([hw, t]) => DEFAULT_TCO[hw]?.costPerHour !== t.costPerHour || DEFAULT_TCO[hw]?.powerKw !== t.powerKw)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([hw, t]) => `${hw}:${t.costPerHour}:${t.powerKw}`);
  if (tco.length > 0) q.set('tco', tco.join(','));
  if (s.energy !== DEFAULTS.energy) q.set('energy', s.energy);
  if (s.target !== DEFAULTS.target) q.set('target', String(s.target));
  const query = q.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
  return query ? `${path}?${query}` : path;
}

/** The TCO figures in force: the defaults with the view's overrides. */
export const tcoOf = (s: ViewState): Record<string, Tco> => ({ ...DEFAULT_TCO, ...s.tco });

/** ISL and OSL of a "8192x1024" sequence. */
export function seqOf(seq: string | undefined): { isl: number; osl: number } | undefined {
  const m = /^(\d+)x(\d+)$/.exec(seq ?? '');
  return m ? { isl: Number(m[1]), osl: Number(m[2]) } : undefined;
}
