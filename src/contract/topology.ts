/** The parallelism of one role's workers: what its label is written from. */
export interface TopologyRole {
  tp: number;
  ep: number;
  dpAttn: boolean;
  /** Pipeline parallelism (1 for none). */
  pp: number;
}

/** A deployment's topology, normalized: built by a thin adapter from a matrix row, a config row, the sim's or a launch's topology. */
export type TopologyShape =
  | { kind: 'aggregated'; workers: number; role: TopologyRole }
  | { kind: 'disaggregated'; prefillWorkers: number; decodeWorkers: number; prefill: TopologyRole; decode: TopologyRole };

/** One role: TP8, TEP8, DEP8, EP4, DPATP4, DPAEP4, with PP{pp} after it when pp > 1. */
function roleLabel({ tp, ep, dpAttn, pp }: TopologyRole): string {
  let base: string;
  if (ep <= 1) base = dpAttn ? `DPATP${tp}` : `TP${tp}`;
  else if (ep === tp) base = dpAttn ? `DEP${tp}` : `TEP${tp}`;
  else base = dpAttn ? `DPAEP${ep}` : `EP${ep}`;
  return pp > 1 ? `${base}PP${pp}` : base;
}

/**
 * The one label of a topology, everywhere it is shown (matrix summary, run and launch labels, the
 * simulator, the store and API, the dashboard). The notation is InferenceX's dashboard's:
 *
 * Per role, from tp, ep, dp-attention and pp:
 * - `TP{tp}`: ep ≤ 1, no dp-attention;
 * - `TEP{tp}`: ep == tp, no dp-attention;
 * - `DEP{tp}`: ep == tp with dp-attention;
 * - `EP{ep}`: 1 < ep ≠ tp, no dp-attention;
 * - `DPATP{tp}`: dp-attention, ep ≤ 1;
 * - `DPAEP{ep}`: dp-attention, 1 < ep ≠ tp;
 * - pipeline parallelism > 1 appends `PP{pp}`: `TP4PP2`.
 *
 * Disaggregated, as InferenceX's changelog writes it: `{prefillWorkers}P{decodeWorkers}D {prefill}/{decode}`,
 * e.g. `1P2D DEP4/DEP8`, `5P2D TP1/DEP8`. Aggregated: the role, `TP8`; with several workers (a
 * multinode aggregated recipe, decode num-worker 0) `{n}×{role}`, e.g. `2×DEP16`.
 */
export function topologyLabel(t: TopologyShape): string {
  if (t.kind === 'disaggregated') {
    return `${t.prefillWorkers}P${t.decodeWorkers}D ${roleLabel(t.prefill)}/${roleLabel(t.decode)}`;
  }
  return t.workers > 1 ? `${t.workers}×${roleLabel(t.role)}` : roleLabel(t.role);
}
