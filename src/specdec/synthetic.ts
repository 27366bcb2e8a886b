import { isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { curvesFor } from './golden.js';
import type { GoldenFile, ThinkingMode } from './golden.js';
import { SyntheticAcceptanceError } from '../engines/index.js';
import type { SyntheticAcceptance } from '../engines/index.js';

/**
 * Whether a row runs with synthetic acceptance, and at what AL, as InferenceX decides it: a
 * multi-node row opts in with SYNTHETIC_ACCEPTANCE=true in its additional-settings (the
 * injector's switch), an agentic spec-decode row always does (AgentX: replayed traces do not
 * reproduce real acceptance). The AL is SYNTHETIC_ACCEPTANCE_LENGTH when the row sets it, else
 * the golden curve of its model in THINKING_MODE (thinking_on by default, as the injector's).
 */

/** A `NAME=VALUE` of a worker's additional-settings, and where it is. */
export interface Setting {
  value: string;
  role: 'prefill' | 'decode';
  index: number;
}

/**
 * The `NAME=VALUE` additional-settings of a multi-node search-space entry or row (prefill's, then
 * decode's; the first of a name wins, as the launchers export them).
 */
export function additionalSettings(workers: { prefill?: unknown; decode?: unknown }): Map<string, Setting> {
  const out = new Map<string, Setting>();
  for (const role of ['prefill', 'decode'] as const) {
    const settings = (workers[role] as { 'additional-settings'?: unknown } | undefined)?.['additional-settings'];
    if (!Array.isArray(settings)) continue;
    settings.forEach((s: unknown, index) => {
      const m = typeof s === 'string' ? /^([A-Za-z_]\w*)=(.*)$/.exec(s) : null;
      if (m && !out.has(m[1]!)) out.set(m[1]!, { value: m[2]!, role, index });
    });
  }
  return out;
}

/** A multi-node row's additional-settings as NAME → value. */
function rowSettings(row: MatrixRow): Map<string, string> {
  if (!isMultiNodeRow(row)) return new Map();
  return new Map([...additionalSettings(row)].map(([name, s]) => [name, s.value]));
}

export function asksForSyntheticAcceptance(row: MatrixRow): boolean {
  if (row['spec-decoding'] === 'none') return false;
  return isAgenticRow(row) || optsIntoSyntheticAcceptance(row);
}

/** SYNTHETIC_ACCEPTANCE=true: the switch of InferenceX's injector, which writes the knob into the row's recipe. */
export const optsIntoSyntheticAcceptance = (row: MatrixRow): boolean =>
  rowSettings(row).get('SYNTHETIC_ACCEPTANCE')?.trim().toLowerCase() === 'true';

export function syntheticAcceptanceOf(row: MatrixRow, files: readonly GoldenFile[]): SyntheticAcceptance | undefined {
  if (!asksForSyntheticAcceptance(row)) return undefined;
  const settings = rowSettings(row);
  const mode = (settings.get('THINKING_MODE')?.trim() || 'thinking_on') as ThinkingMode;
  const prefix = row['model-prefix'];
  const curves = curvesFor(files, prefix).filter((c) => (c.mode ?? mode) === mode);
  const length = settings.get('SYNTHETIC_ACCEPTANCE_LENGTH');
  if (length !== undefined) {
    const fixed = Number(length);
    if (!(fixed >= 1))
      throw new SyntheticAcceptanceError(
        `${row['exp-name']}: SYNTHETIC_ACCEPTANCE_LENGTH=${length} is not an acceptance length (a number ≥ 1)`,
      );
    return { fixed, curve: {}, source: `SYNTHETIC_ACCEPTANCE_LENGTH=${length}` };
  }
  const curve = curves[0];
  if (!curve)
    throw new SyntheticAcceptanceError(
      `${row['exp-name']}: the row runs with synthetic acceptance, but model-prefix ${prefix} has no golden AL curve in ${mode}; add one to golden_al_distribution/ or set SYNTHETIC_ACCEPTANCE_LENGTH`,
    );
  return {
    curve: Object.fromEntries(curve.points.map((p) => [p.draftLength, p.al])),
    source: `${curve.file} ${curve.model}${curve.mode ? ` ${curve.mode}` : ''}`,
  };
}
