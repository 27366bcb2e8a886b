/** The fields a topology label reads (a config row of the store or the API). */
export interface TopologyFields {
  disagg: boolean;
  prefill_tp: number;
  prefill_ep: number;
  prefill_dp_attention: boolean;
  prefill_num_workers: number;
  decode_tp: number;
  decode_ep: number;
  decode_dp_attention: boolean;
  decode_num_workers: number;
}

/** "TP8", "DEP8" (EP = TP with DP attention), "TEP8", "TP8EP4", or disaggregated "1P1D TP4/DEP8". */
export function topologyLabel(c: TopologyFields): string {
  const one = (tp: number, ep: number, dp: boolean): string =>
    ep > 1 && ep === tp ? `${dp ? 'D' : 'T'}EP${tp}` : ep > 1 ? `TP${tp}EP${ep}` : `TP${tp}`;
  if (!c.disagg) return one(c.decode_tp, c.decode_ep, c.decode_dp_attention);
  return `${c.prefill_num_workers}P${c.decode_num_workers}D ${one(c.prefill_tp, c.prefill_ep, c.prefill_dp_attention)}/${one(c.decode_tp, c.decode_ep, c.decode_dp_attention)}`;
}

/** "dsr1 h200 sglang fp8 mtp TP8": model prefix, hardware, engine, precision, spec decoding, topology. */
export function configLabel(
  c: TopologyFields & { model_prefix: string; hardware: string; framework: string; precision: string; spec_method: string },
): string {
  const spec = c.spec_method !== 'none' ? ` ${c.spec_method}` : '';
  return `${c.model_prefix} ${c.hardware} ${c.framework} ${c.precision}${spec} ${topologyLabel(c)}`;
}
