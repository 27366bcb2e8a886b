/**
 * The tools `frontier mcp` serves: the read API's questions (what the store holds, runs, a run,
 * frontiers, trends, a run against the official results), answered by the same store functions
 * as the HTTP routes, each answer with its provenance (run ids, images, dates) and, where a point
 * was measured more than once, its n and 95% interval.
 */
import { configLabel, goalOf, seriesFrontiers } from '../../contract/index.js';
import type { MetricStats, PointRow } from '../../contract/index.js';
import { availability, compareRun, history, run, runs, benchmarks } from '../../store/index.js';
import type { Source, Store } from '../../store/index.js';
import { VERDICT_PARAMS, filterOf, verdictSettingsFrom } from '../schemas.js';
import type { Query } from '../schemas.js';
import { ToolRefusal } from './protocol.js';
import type { PropertySchema, Tool } from './protocol.js';

/** Runs `list_runs` answers by default and at most. */
export const LIST_RUNS = { default: 20, max: 1000 };

const text = (description: string): PropertySchema => ({ type: 'string', description });
const positive = (description: string): PropertySchema => ({ type: 'integer', minimum: 1, maximum: 10_000_000, description });
const metric = (description: string): PropertySchema => ({ type: 'string', pattern: '^[a-z0-9_.]+$', description });
const SOURCES = ['official', 'unofficial', 'staged', 'all'] as const;
const source = (description: string): PropertySchema => ({ type: 'string', enum: SOURCES, description });

const N_NOTE =
  'n is how many times a point was measured; x_ci95/y_ci95 (or ci95) are the 95% intervals of the mean over those repeats, null when n = 1 (a single measurement has no interval).';

/** A config's values and how it was served, as every answer names a point. */
function provenance(p: PointRow) {
  return {
    config_id: p.config_id,
    label: configLabel(p),
    conc: p.conc,
    run_id: p.run_id,
    attempt: p.attempt,
    official: p.official,
    date: p.date,
    image: p.image,
    n: p.n,
  };
}

const ci95 = (stats: Record<string, MetricStats>, key: string) => stats[key]?.ci95 ?? null;

/** The points on each series' Pareto frontier of `x` against `y`, best x first. */
export async function frontierAnswer(store: Store, args: Record<string, unknown>) {
  const x = (args.x as string | undefined) ?? 'median_intvty';
  const y = (args.y as string | undefined) ?? 'tput_per_gpu';
  let goals;
  try {
    goals = { x: goalOf(x), y: goalOf(y) };
  } catch (error) {
    throw new ToolRefusal((error as Error).message);
  }
  const rows = await benchmarks(store, filterOf(args as Query));
  return {
    x,
    y,
    goals,
    series: seriesFrontiers(rows, x, y, goals).map(({ key, identity, points, xs, ys, frontier }) => {
      return {
        key,
        model: points[0]!.model,
        ...identity,
        points: points.length,
        frontier: frontier.map((i) => {
          const p = points[i]!;
          return { ...provenance(p), x: xs[i]!, y: ys[i]!, x_ci95: ci95(p.stats, x), y_ci95: ci95(p.stats, y) };
        }),
      };
    }),
  };
}

/** What the store holds, from the availability rows (the models, hardware, engines, sequences and dates of official results). */
export async function overviewAnswer(store: Store) {
  const rows = await availability(store);
  const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
  const models = new Map<string, { model_prefix: string; model: string; dates: string[] }>();
  for (const r of rows) {
    const m = models.get(r.model) ?? { model_prefix: r.model_prefix, model: r.model, dates: [] };
    m.dates.push(r.date);
    models.set(r.model, m);
  }
  const dates = sorted(rows.map((r) => r.date));
  return {
    models: [...models.values()]
      .map((m) => ({ model_prefix: m.model_prefix, model: m.model, last_date: sorted(m.dates).at(-1)! }))
      .sort((a, b) => a.model.localeCompare(b.model)),
    hardware: sorted(rows.map((r) => r.hardware)),
    frameworks: sorted(rows.map((r) => r.framework)),
    precisions: sorted(rows.map((r) => r.precision)),
    sequences: [...new Map(rows.map((r) => [`${r.isl}x${r.osl}`, { isl: r.isl, osl: r.osl }])).values()].sort(
      (a, b) => a.isl - b.isl || a.osl - b.osl,
    ),
    first_date: dates[0] ?? null,
    last_date: dates.at(-1) ?? null,
    availability: rows,
  };
}

/** A config's (or a model's) points over time on one metric, oldest first. */
export async function trendAnswer(store: Store, args: Record<string, unknown>) {
  if (args.config === undefined && args.model === undefined) throw new ToolRefusal('give config (a config id) or model');
  const key = (args.metric as string | undefined) ?? 'tput_per_gpu';
  try {
    goalOf(key);
  } catch (error) {
    throw new ToolRefusal((error as Error).message);
  }
  const rows = await history(store, {
    ...filterOf(args as Query),
    config: args.config as number | undefined,
    conc: args.conc as number | undefined,
    metrics: [key],
  });
  return {
    metric: key,
    points: rows.map((p) => ({
      ...provenance(p),
      isl: p.isl,
      osl: p.osl,
      value: p.metrics[key] ?? null,
      ci95: ci95(p.stats, key),
    })),
  };
}

/** The tools, over one open store. */
export function mcpTools(store: Store): Tool[] {
  const filters = {
    isl: positive('input sequence length (1024, 8192)'),
    osl: positive('output sequence length'),
    hardware: text('GPU (h200, b200, mi355x, …)'),
    framework: text('engine (vllm, sglang, trt, dynamo-trt, …)'),
    precision: text('fp8, fp4, bf16, …'),
  };
  return [
    {
      name: 'get_overview',
      description:
        'What the store holds: its models (prefix and path, last date), hardware, engines, precisions, sequence lengths (isl × osl) and dates of official results, and every availability row (model × sequence × hardware × engine × precision × date). Start here to learn the names the other tools take.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      call: () => overviewAnswer(store),
    },
    {
      name: 'list_runs',
      description:
        'Runs, newest first: run id, attempt, official or not, name, url, commit, date, status, conclusion, point and eval counts and success rate. Staged runs (from pull requests) only with source=staged.',
      inputSchema: {
        type: 'object',
        properties: {
          source: source('official, unofficial, staged, or all (default: official and unofficial)'),
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: LIST_RUNS.max,
            description: `how many runs (default ${LIST_RUNS.default}, at most ${LIST_RUNS.max})`,
          },
        },
        additionalProperties: false,
      },
      call: async (args) => ({
        runs: await runs(store, {
          source: (args.source as Source | undefined) ?? 'all',
          limit: (args.limit as number | undefined) ?? LIST_RUNS.default,
        }),
      }),
    },
    {
      name: 'get_run',
      description:
        'One run with its provenance: metadata (official, date, commit, url, source run), run stats, every launch attempt (nodes, outcome, reason), its changelog entries and the names of its engine logs.',
      inputSchema: {
        type: 'object',
        properties: { id: text('the run id (list_runs gives them)') },
        required: ['id'],
        additionalProperties: false,
      },
      call: async (args) => {
        const found = await run(store, args.id as string);
        if (!found) throw new ToolRefusal(`no run ${String(args.id)} in the store (list_runs gives the run ids)`);
        return found;
      },
    },
    {
      name: 'get_frontier',
      description:
        'The Pareto frontier of each series (hardware × engine × precision × spec decoding × disagg, per sequence) of a model: the latest official points by default, x = median_intvty (tokens/s/user) against y = tput_per_gpu unless asked otherwise. Each frontier point carries its config label, conc, run id, attempt, date, image, n and the 95% intervals of x and y. ' +
        N_NOTE,
      inputSchema: {
        type: 'object',
        properties: {
          model: text('model prefix (dsr1) or model path (deepseek-ai/DeepSeek-R1-0528)'),
          ...filters,
          source: source('which runs count (default official)'),
          date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'as of this date (YYYY-MM-DD)' },
          x: metric('x metric key (default median_intvty)'),
          y: metric('y metric key (default tput_per_gpu)'),
        },
        required: ['model'],
        additionalProperties: false,
      },
      call: (args) => frontierAnswer(store, args),
    },
    {
      name: 'get_trend',
      description:
        'A config’s (config id, as get_frontier gives it) or a model’s (model and filters) points over time on one metric (default tput_per_gpu), oldest first, in official runs by default: each with its conc, run id, date, image, value, n and 95% interval. ' +
        N_NOTE,
      inputSchema: {
        type: 'object',
        properties: {
          config: positive('config id (config_id of a point)'),
          model: text('model prefix or path (with config: ignored unless it narrows)'),
          ...filters,
          conc: positive('only this concurrency'),
          source: source('which runs count (default official)'),
          metric: metric('the metric key (default tput_per_gpu)'),
        },
        additionalProperties: false,
      },
      call: (args) => trendAnswer(store, args),
    },
    {
      name: 'compare_run',
      description:
        'A run against the official results, as `frontier compare --format json`: each of its points against the latest official point of the same config and conc, every compared metric with its change, 95% interval, test, q-value and verdict (regression, improvement, no significant change, inconclusive), and the run’s summary. A change between single measurements (n = 1) is judged with the run-to-run variation known from official history.',
      inputSchema: {
        type: 'object',
        properties: {
          run: text('the run id to compare'),
          min_effect: VERDICT_PARAMS.minEffect,
          alpha: VERDICT_PARAMS.alpha,
        },
        required: ['run'],
        additionalProperties: false,
      },
      call: async (args) => {
        const settings = verdictSettingsFrom(args.min_effect, args.alpha);
        const comparison = await compareRun(store, args.run as string, settings);
        if (!comparison) throw new ToolRefusal(`no run ${String(args.run)} in the store (list_runs gives the run ids)`);
        return comparison;
      },
    },
  ];
}
