import { isDeepStrictEqual } from 'node:util';
import type { MatrixRow } from '../matrix/index.js';
import { curveKey } from './rows.js';
import { UserError } from '../util/user-error.js';

/**
 * Append-only entries add concurrency points (or new recipe variants) to curves already
 * published, without re-running anything: the reference's `validate_append_only_scope` and
 * `append_only_delta`.
 */

export class AppendOnlyError extends UserError {}

/** Scenario names as they appear under `scenarios:`. */
export type ScenarioName = 'fixed-seq-len' | 'agentic-coding';

/**
 * Reject edits outside the selected configs and scenarios: another config changed, a scenario
 * added or removed, a config-wide field changed while some scenario is outside the entry's scope,
 * or an out-of-scope scenario changed. Changes inside a selected scenario are judged by the delta.
 */
export function validateAppendOnlyScope(
  base: ReadonlyMap<string, unknown>,
  head: ReadonlyMap<string, unknown>,
  selected: ReadonlyMap<string, ReadonlySet<ScenarioName>>,
): void {
  const keys = new Set([...base.keys(), ...head.keys()]);
  const unrelated = [...keys].filter((k) => !selected.has(k) && !isDeepStrictEqual(base.get(k), head.get(k))).sort();
  if (unrelated.length > 0) {
    throw new AppendOnlyError(`append-only PR changed configs not selected by its changelog entry: ${pyList(unrelated)}`);
  }
  for (const [config, allowed] of selected) {
    const baseConfig = base.get(config) as Record<string, unknown>;
    const headConfig = head.get(config) as Record<string, unknown>;
    const baseScenarios = (baseConfig.scenarios ?? {}) as Record<string, unknown>;
    const headScenarios = (headConfig.scenarios ?? {}) as Record<string, unknown>;
    if (!sameKeys(baseScenarios, headScenarios)) {
      throw new AppendOnlyError(`append-only added or removed a scenario in config '${config}'`);
    }
    const unselected = Object.keys(baseScenarios).filter((s) => !allowed.has(s as ScenarioName));
    const withoutScenarios = (c: Record<string, unknown>): Record<string, unknown> => {
      const { scenarios: _, ...rest } = c;
      return rest;
    };
    if (unselected.length > 0 && !isDeepStrictEqual(withoutScenarios(baseConfig), withoutScenarios(headConfig))) {
      throw new AppendOnlyError(
        `append-only changed config-wide fields that can affect scenarios outside its changelog scope: '${config}'`,
      );
    }
    for (const scenario of unselected) {
      if (!isDeepStrictEqual(baseScenarios[scenario], headScenarios[scenario])) {
        throw new AppendOnlyError(`append-only changed a scenario outside its changelog scope: '${config}' / '${scenario}'`);
      }
    }
  }
}

/**
 * The rows of `head` that add points: every base curve and point must still be there; new
 * points (and new recipe variants) are returned, each belonging to an existing visual series
 * with one unchanged image.
 */
export function appendOnlyDelta(baseRows: readonly MatrixRow[], headRows: readonly MatrixRow[]): MatrixRow[] {
  const concs = (row: MatrixRow): number[] => (Array.isArray(row.conc) ? row.conc : [row.conc]);
  const group = (rows: readonly MatrixRow[]): Map<string, Set<number>> => {
    const out = new Map<string, Set<number>>();
    for (const row of rows) {
      const key = curveKey(row);
      const set = out.get(key) ?? new Set<number>();
      for (const c of concs(row)) set.add(c);
      out.set(key, set);
    }
    return out;
  };
  const baseGroups = group(baseRows);
  const headGroups = group(headRows);
  if (baseGroups.size === 0) throw new AppendOnlyError('append-only requires an existing curve in the base revision');
  for (const [key, points] of baseGroups) {
    const headPoints = headGroups.get(key);
    if (!headPoints) throw new AppendOnlyError('append-only may not remove or modify existing generated recipes');
    const removed = [...points].filter((c) => !headPoints.has(c)).sort((a, b) => a - b);
    if (removed.length > 0)
      throw new AppendOnlyError(`append-only may not remove existing concurrency points: [${removed.join(', ')}]`);
  }

  const delta: MatrixRow[] = [];
  const emitted = new Map<string, Set<number>>();
  for (const row of headRows) {
    const key = curveKey(row);
    const basePoints = baseGroups.get(key) ?? new Set<number>();
    const done = emitted.get(key) ?? new Set<number>();
    emitted.set(key, done);
    const added = concs(row).filter((c) => !basePoints.has(c) && !done.has(c));
    for (const c of added) done.add(c);
    if (added.length === 0) continue;
    delta.push(Array.isArray(row.conc) ? ({ ...structuredClone(row), conc: added } as MatrixRow) : row);
  }
  if (delta.length === 0) throw new AppendOnlyError('append-only did not add any generated points');

  const baseImages = new Map<string, Set<string>>();
  for (const row of baseRows) {
    const key = visualSeriesKey(row);
    const images = baseImages.get(key) ?? new Set<string>();
    images.add(row.image);
    baseImages.set(key, images);
  }
  for (const row of delta) {
    const images = baseImages.get(visualSeriesKey(row));
    if (!images || images.size !== 1 || !images.has(row.image)) {
      throw new AppendOnlyError(
        'append-only additions must belong to an existing visual curve with one unchanged non-null image',
      );
    }
  }
  return delta;
}

/** The dashboard curve a row is drawn on. */
function visualSeriesKey(row: MatrixRow): string {
  const r = row as MatrixRow & Record<string, unknown>;
  const agentic = r['scenario-type'] === 'agentic-coding';
  const offload = r['kv-offloading'];
  const prefill = (r.prefill ?? {}) as { hardware?: string };
  const decode = (r.decode ?? {}) as { hardware?: string };
  return JSON.stringify([
    r.model,
    r['model-prefix'],
    r.precision,
    r.framework,
    r.runner,
    Boolean(r.disagg ?? false),
    agentic ? 'agentic_traces' : 'single_turn',
    agentic ? null : (r.isl ?? null),
    agentic ? null : (r.osl ?? null),
    offload === undefined || offload === null || offload === '' || offload === 'none' ? 'off' : 'on',
    agentic ? '' : (r['spec-decoding'] ?? 'none'),
    prefill.hardware ?? null,
    decode.hardware ?? null,
  ]);
}

function sameKeys(a: object, b: object): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** Python's repr of a list of strings, as the reference's messages print it. */
const pyList = (items: string[]): string => `[${items.map((s) => `'${s}'`).join(', ')}]`;
