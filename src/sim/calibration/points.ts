import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { PointRow } from '../../contract/index.js';
import { findHardware, findModel } from '../catalog.js';
import type { Precision } from '../catalog.js';
import type { DeploymentOptions, PoolOptions } from '../topology.js';
import { buildTopology } from '../topology.js';
import { UserError } from '../../util/user-error.js';
import { SimConfigError } from '../perf.js';
import publishedPoints from '../data/published-points.json' with { type: 'json' };

/**
 * A measured benchmark point the simulator is calibrated against: its deployment, its load and
 * what was measured. From published points (data/published-points.json's format), InferenceX
 * aggregated results (`agg_*.json`) or the store's benchmark rows.
 */
export interface MeasuredPoint {
  id: string;
  model: string;
  hardware: string;
  precision: Precision;
  /** The framework as InferenceX names it (sglang, dynamo-trt…). */
  engine: string;
  isl: number;
  osl: number;
  conc: number;
  /** The client's `random_range_ratio` (InferenceX's default 0.8). */
  rangeRatio: number;
  topology:
    | { kind: 'aggregated'; tp: number; ep: number; dpAttn: boolean }
    | { kind: 'disaggregated'; prefillWorkers: number; decodeWorkers: number; prefill: Role; decode: Role };
  measured: { tputPerGpu: number; interactivity: number; ttftS: number };
  source?: string | undefined;
}

interface Role {
  tp: number;
  ep: number;
  dpAttn: boolean;
}

export const DEFAULT_RANGE_RATIO = 0.8;

/** The deployment that reproduces a point in the simulator. */
export function deploymentOf(p: MeasuredPoint): DeploymentOptions {
  const base = { model: p.model, hardware: p.hardware, precision: p.precision, engine: p.engine };
  const t = p.topology;
  if (t.kind === 'aggregated') return { ...base, tp: t.tp, ep: t.ep, dpAttn: t.dpAttn };
  const role = (r: Role): PoolOptions => ({ tp: r.tp, ep: r.ep, dpAttn: r.dpAttn });
  return {
    ...base,
    prefillWorkers: t.prefillWorkers,
    decodeWorkers: t.decodeWorkers,
    prefill: role(t.prefill),
    decode: role(t.decode),
  };
}

/** Aggregated / disaggregated, for slicing errors. */
export const kindOf = (p: MeasuredPoint): string => p.topology.kind;

const PRECISION: Record<string, Precision> = { bf16: 'bf16', fp8: 'fp8', fp4: 'fp4', mxfp4: 'fp4', nvfp4: 'fp4' };

function precisionOf(value: unknown, where: string): Precision {
  const p = PRECISION[String(value).toLowerCase()];
  if (!p) throw new SimConfigError(`${where}: precision "${String(value)}" is not one the simulator models (bf16, fp8, fp4)`);
  return p;
}

const num = (v: unknown, where: string, key: string): number => {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new SimConfigError(`${where}: "${key}" must be a positive number, got ${JSON.stringify(v)}`);
  return n;
};

/** One point of the published-points format (`{description, points: [...]}`). */
function publishedPoint(raw: Record<string, unknown>, where: string): MeasuredPoint {
  const pub = raw.published as Record<string, unknown> | undefined;
  const t = raw.topology as Record<string, unknown> | undefined;
  if (!pub || !t) throw new SimConfigError(`${where}: a published point needs "published" and "topology"`);
  const side = (name: 'prefill' | 'decode'): Record<string, unknown> => {
    const r = t[name];
    if (!r || typeof r !== 'object') throw new SimConfigError(`${where}: a disaggregated topology needs "${name}"`);
    return r as Record<string, unknown>;
  };
  const role = (r: Record<string, unknown>): Role => ({
    tp: num(r.tp, where, 'tp'),
    ep: num(r.ep ?? 1, where, 'ep'),
    dpAttn: r.dp_attn === true,
  });
  const topology: MeasuredPoint['topology'] =
    t.kind === 'disaggregated'
      ? {
          kind: 'disaggregated',
          prefillWorkers: num(side('prefill').workers, where, 'prefill.workers'),
          decodeWorkers: num(side('decode').workers, where, 'decode.workers'),
          prefill: role(side('prefill')),
          decode: role(side('decode')),
        }
      : { kind: 'aggregated', ...role(t) };
  return {
    id: String(raw.id),
    model: String(raw.model),
    hardware: String(raw.hardware),
    precision: precisionOf(raw.precision, where),
    engine: String(raw.framework),
    isl: num(raw.isl, where, 'isl'),
    osl: num(raw.osl, where, 'osl'),
    conc: num(raw.conc, where, 'conc'),
    rangeRatio: typeof raw.random_range_ratio === 'number' ? raw.random_range_ratio : DEFAULT_RANGE_RATIO,
    topology,
    measured: {
      tputPerGpu: num(pub.tput_per_gpu, where, 'published.tput_per_gpu'),
      interactivity: num(pub.median_intvty, where, 'published.median_intvty'),
      ttftS: num(pub.median_ttft_s, where, 'published.median_ttft_s'),
    },
    source: (raw.source as { run_url?: string } | undefined)?.run_url,
  };
}

/** An InferenceX aggregated result (`agg_*.json`, what `frontier results process` writes) or a store row, as one flat record. */
function aggregatePoint(a: Record<string, unknown>, where: string, id: string): MeasuredPoint {
  const disagg = a.disagg === true || a.disagg === 'true';
  const role = (prefix: string): Role => ({
    tp: num(a[`${prefix}tp`], where, `${prefix}tp`),
    ep: num(a[`${prefix}ep`] || 1, where, `${prefix}ep`),
    dpAttn: a[`${prefix}dp_attention`] === true || a[`${prefix}dp_attention`] === 'true',
  });
  // A multinode aggregated arm records its workers as prefill and no decode workers.
  const aggregatedArm = disagg && Number(a.decode_num_workers) === 0;
  const topology: MeasuredPoint['topology'] = aggregatedArm
    ? { kind: 'aggregated', ...role('prefill_') }
    : disagg
      ? {
          kind: 'disaggregated',
          prefillWorkers: num(a.prefill_num_workers, where, 'prefill_num_workers'),
          decodeWorkers: num(a.decode_num_workers, where, 'decode_num_workers'),
          prefill: role('prefill_'),
          decode: role('decode_'),
        }
      : { kind: 'aggregated', ...role(a.tp !== undefined ? '' : 'prefill_') };
  const ttft = a.median_ttft;
  return {
    id,
    model: String(a.model),
    hardware: String(a.hw ?? a.hardware),
    precision: precisionOf(a.precision, where),
    engine: String(a.framework),
    isl: num(a.isl, where, 'isl'),
    osl: num(a.osl, where, 'osl'),
    conc: num(a.conc, where, 'conc'),
    rangeRatio: DEFAULT_RANGE_RATIO,
    topology,
    measured: {
      tputPerGpu: num(a.tput_per_gpu, where, 'tput_per_gpu'),
      interactivity: num(a.median_intvty, where, 'median_intvty'),
      ttftS: num(ttft, where, 'median_ttft'),
    },
  };
}

/** The store's benchmark rows as measured points (their metrics carry the aggregate's keys). */
export function pointsFromRows(rows: readonly PointRow[]): MeasuredPoint[] {
  return rows.map((r) =>
    aggregatePoint(
      { ...r, ...r.metrics, hw: r.hardware, disagg: r.disagg },
      `store run ${r.run_id}`,
      `${r.hardware}-${r.framework}-${r.precision}-${r.isl}x${r.osl}-c${r.conc}-${r.config_id}`,
    ),
  );
}

/**
 * Measured points from a file or folder: a published-points JSON (`{points: [...]}`), one
 * aggregated result, or a folder searched for aggregated results (`*.json` with `tput_per_gpu`).
 */
export function readPoints(path: string): MeasuredPoint[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new SimConfigError(
      `--from ${path}: no such file or folder (give a store, a points JSON or a folder of InferenceX results)`,
    );
  }
  if (!stat.isDirectory()) return pointsOfFile(path);
  const out: MeasuredPoint[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.json')) out.push(...pointsOfFile(full, true));
    }
  };
  walk(path);
  if (out.length === 0) throw new SimConfigError(`--from ${path}: no aggregated results (*.json with tput_per_gpu) under it`);
  return out;
}

function pointsOfFile(file: string, lenient = false): MeasuredPoint[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if (lenient) return [];
    throw new SimConfigError(`${file}: not JSON (${(e as Error).message})`);
  }
  if (raw && typeof raw === 'object' && Array.isArray((raw as { points?: unknown }).points)) return pointsOfJson(raw, file);
  const records = Array.isArray(raw) ? raw : [raw];
  const aggregates = records.filter(
    (r): r is Record<string, unknown> => !!r && typeof r === 'object' && 'tput_per_gpu' in r && 'hw' in r,
  );
  if (aggregates.length === 0 && !lenient)
    throw new SimConfigError(`${file}: neither a points file ({"points": [...]}) nor InferenceX aggregated results`);
  return aggregates.map((a, i) =>
    aggregatePoint(a, file, `${file.replace(/^.*\//, '').replace(/\.json$/, '')}${records.length > 1 ? `-${i}` : ''}`),
  );
}

/** The points of a published-points document (`{description, points: [...]}`). */
export function pointsOfJson(raw: unknown, file: string): MeasuredPoint[] {
  return (raw as { points: Record<string, unknown>[] }).points.map((p, i) => publishedPoint(p, `${file}: points[${i}]`));
}

let shippedPoints: readonly MeasuredPoint[] | undefined;

/** The shipped calibration set: published InferenceX measurements (data/published-points.json, sources in each point). */
export function calibrationSet(): readonly MeasuredPoint[] {
  return (shippedPoints ??= pointsOfJson(publishedPoints, 'src/sim/data/published-points.json'));
}

/**
 * The points the simulator can express, and why it cannot the others (a model or GPU it does not
 * know, a deployment that does not fit): measured sets hold models the catalog lacks, and a fit
 * on the rest is still worth having.
 */
export function expressible(points: readonly MeasuredPoint[]): {
  points: MeasuredPoint[];
  skipped: { id: string; reason: string }[];
} {
  const ok: MeasuredPoint[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const p of points) {
    try {
      findModel(p.model);
      findHardware(p.hardware);
      buildTopology(deploymentOf(p));
      ok.push(p);
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      skipped.push({ id: p.id, reason: e.message });
    }
  }
  return { points: ok, skipped };
}
