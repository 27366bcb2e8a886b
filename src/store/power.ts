/**
 * A point's power verdict as the store keeps it: the aggregate's `power_valid` and
 * `power_metric_schema_version`, the reason codes of its `power_validation_<RF>.json` sidecar when
 * the run directory or artifact set has it, and whether the power came from GPU telemetry or from
 * the simulated engine. Fail closed: the measured energy keys stay among a point's metrics only
 * when the verdict is valid with schema version 2.
 */
import { MEASURED_POWER_KEYS } from '../contract/index.js';
import type { PowerSource } from '../contract/index.js';
import { runsOnSimulator } from '../contract/index.js';
import { POWER_METRIC_SCHEMA_VERSION } from '../results/power/common.js';

export interface PowerVerdict {
  /** null: the aggregate carries no verdict (made before the power step). */
  valid: boolean | null;
  schema_version: number | null;
  reasons: string[];
  source: PowerSource | null;
}

/** The store's own reason codes (the sidecar's are the power step's). */
export const STORE_POWER_REASONS = {
  /** `power_valid` without `power_metric_schema_version`: InferenceX-app ignores such energy, so does the store. */
  unversioned: 'power_metric_schema_version_missing',
  /** A schema version other than 2: the meaning of the `joules_per_*` keys is not known. */
  unsupported: 'power_metric_schema_version_unsupported',
  /** `power_valid` that is neither 0/1 nor true/false. */
  malformed: 'power_valid_malformed',
  /** The aggregate says valid, its sidecar says not (or the reverse). */
  disagrees: 'power_sidecar_disagrees',
} as const;

/** What a sidecar says, when there is one: its verdict and reason codes. */
export interface PowerSidecar {
  power_valid: boolean | undefined;
  reasons: string[];
  file: string;
}

/** The sidecar's verdict and reasons, leniently (a malformed one contributes nothing but its verdict being unknown). */
export function readSidecar(value: unknown, file: string): PowerSidecar {
  const obj = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const reasons = Array.isArray(obj.reasons) ? obj.reasons.filter((r): r is string => typeof r === 'string') : [];
  return { power_valid: typeof obj.power_valid === 'boolean' ? obj.power_valid : undefined, reasons, file };
}

const flag = (v: unknown): boolean | null | 'bad' => {
  if (v === undefined || v === null) return null;
  if (v === 1 || v === true) return true;
  if (v === 0 || v === false) return false;
  return 'bad';
};

/**
 * The verdict on one aggregate row. `simulated`: the point ran on Frontier's simulated engine, so
 * its power is the engine's model of it (`modelled`), not telemetry.
 */
export function powerVerdict(row: Record<string, unknown>, sidecar: PowerSidecar | undefined, simulated: boolean): PowerVerdict {
  const rawSchema = row.power_metric_schema_version;
  const schema = typeof rawSchema === 'number' && Number.isInteger(rawSchema) ? rawSchema : null;
  const agg = flag(row.power_valid);
  if (schema === null && agg === null && sidecar === undefined) {
    return { valid: null, schema_version: null, reasons: [], source: null };
  }
  const reasons = [...(sidecar?.reasons ?? [])];
  const add = (r: string) => {
    if (!reasons.includes(r)) reasons.push(r);
  };
  if (schema === null) add(STORE_POWER_REASONS.unversioned);
  else if (schema !== POWER_METRIC_SCHEMA_VERSION) add(STORE_POWER_REASONS.unsupported);
  if (agg === 'bad') add(STORE_POWER_REASONS.malformed);
  if (sidecar?.power_valid !== undefined && agg !== 'bad' && agg !== null && sidecar.power_valid !== agg) {
    add(STORE_POWER_REASONS.disagrees);
  }
  const valid = agg === true && schema === POWER_METRIC_SCHEMA_VERSION && reasons.length === 0;
  return { valid, schema_version: schema, reasons, source: simulated ? 'modelled' : 'measured' };
}

/** Remove the measured energy keys unless the verdict is valid (fail closed). */
export function keepMeasuredIfValid(metrics: Record<string, number>, verdict: PowerVerdict): void {
  if (verdict.valid === true) return;
  for (const k of MEASURED_POWER_KEYS) delete metrics[k];
}

/**
 * Whether a point of a run ran on the simulated engine: its framework is `sim`, or the run's
 * manifest (run.json, written by `frontier run`) says its cluster simulates and the framework is
 * not one that runs for real anyway. An InferenceX artifact set has no manifest: telemetry.
 */
export function simulatedPoint(manifest: Record<string, unknown> | undefined, framework: string): boolean {
  const cluster = manifest?.cluster as { simulate?: unknown } | undefined;
  return runsOnSimulator(framework, cluster?.simulate === true);
}
