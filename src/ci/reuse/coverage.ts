/**
 * How much of the sweep matrix the reused artifacts cover. Informational only: the source run's
 * coverage is authoritative (InferenceX ingests what it has; a failed point is simply absent, and
 * a later matrix change does not invalidate reuse), so absent points make the reuse partial, not
 * refused.
 */
import type { Identity } from './identity.js';
import { benchmarkKey, identityText } from './identity.js';

type Row = Record<string, unknown>;
const obj = (v: unknown): Row => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});

/** The fixed-sequence result rows a matrix row yields (one per concurrency), as result fields. */
export function expectedResultRows(row: Row, multiNode: boolean): Row[] {
  const base: Row = {
    hw: row.runner,
    infmax_model_prefix: row['model-prefix'],
    framework: row.framework,
    precision: row.precision,
    spec_decoding: row['spec-decoding'] ?? 'none',
    disagg: row.disagg ?? false,
    isl: row.isl,
    osl: row.osl,
    is_multinode: multiNode,
  };
  const concs = Array.isArray(row.conc) ? row.conc : [row.conc];
  if (!multiNode)
    return concs.map((conc) => ({
      ...base,
      tp: row.tp,
      pp: row.pp ?? 1,
      dcp_size: row['dcp-size'] ?? 1,
      pcp_size: row['pcp-size'] ?? 1,
      ep: row.ep ?? 1,
      dp_attention: row['dp-attn'] ?? false,
      conc,
    }));
  const side = (name: 'prefill' | 'decode'): Row => {
    const w = obj(row[name]);
    return {
      [`${name}_tp`]: w.tp,
      [`${name}_pp`]: w.pp ?? 1,
      [`${name}_dcp_size`]: w['dcp-size'] ?? 1,
      [`${name}_pcp_size`]: w['pcp-size'] ?? 1,
      [`${name}_ep`]: w.ep ?? 1,
      [`${name}_dp_attention`]: w['dp-attn'] ?? false,
      [`${name}_num_workers`]: w['num-worker'] ?? 0,
    };
  };
  return concs.map((conc) => ({ ...base, ...side('prefill'), ...side('decode'), conc }));
}

/** The fixed-sequence identities a sweep matrix (`frontier changelog matrix` output) expects. */
export function expectedFixedIdentities(matrix: unknown): Identity[] {
  const m = obj(matrix);
  const out: Identity[] = [];
  for (const [side, multi] of [
    ['single_node', false],
    ['multi_node', true],
  ] as const) {
    for (const rows of Object.values(obj(m[side]))) {
      if (!Array.isArray(rows)) continue;
      for (const r of rows) {
        const row = obj(r);
        if (row['scenario-type'] === 'agentic-coding' || row['eval-only'] === true) continue;
        out.push(...expectedResultRows(row, multi).map(benchmarkKey));
      }
    }
  }
  return out;
}

export interface MatrixCoverage {
  expected: number;
  present: number;
  /** Expected points with no result row (failed or never run in the source run). */
  absent: Identity[];
  /** Result rows the matrix does not expect (the matrix changed since the source run). */
  extra: Identity[];
}

export function matrixCoverage(expected: readonly Identity[], actual: readonly Identity[]): MatrixCoverage {
  const e = new Map(expected.map((id) => [identityText(id), id]));
  const a = new Map(actual.map((id) => [identityText(id), id]));
  return {
    expected: e.size,
    present: [...e.keys()].filter((k) => a.has(k)).length,
    absent: [...e].filter(([k]) => !a.has(k)).map(([, v]) => v),
    extra: [...a].filter(([k]) => !e.has(k)).map(([, v]) => v),
  };
}
