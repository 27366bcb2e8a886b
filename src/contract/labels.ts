import type { ConfigRow } from './api.js';
import { topologyLabel } from './topology.js';
import type { TopologyShape } from './topology.js';

/** The fields of a config row (the store's, the API's) a topology is read from. */
export type ConfigTopologyFields = Pick<
  ConfigRow,
  | 'disagg'
  | 'is_multinode'
  | 'prefill_tp'
  | 'prefill_pp'
  | 'prefill_ep'
  | 'prefill_dp_attention'
  | 'prefill_num_workers'
  | 'decode_tp'
  | 'decode_pp'
  | 'decode_ep'
  | 'decode_dp_attention'
  | 'decode_num_workers'
>;

/**
 * A config row's topology. A single-node config has both sides alike (and no worker count); a
 * multinode aggregated one has its workers on the prefill side (its decode side is all zeros).
 */
export function configTopology(c: ConfigTopologyFields): TopologyShape {
  const prefill = { tp: c.prefill_tp, ep: c.prefill_ep, dpAttn: c.prefill_dp_attention, pp: c.prefill_pp };
  if (c.disagg) {
    return {
      kind: 'disaggregated',
      prefillWorkers: c.prefill_num_workers,
      decodeWorkers: c.decode_num_workers,
      prefill,
      decode: { tp: c.decode_tp, ep: c.decode_ep, dpAttn: c.decode_dp_attention, pp: c.decode_pp },
    };
  }
  return { kind: 'aggregated', workers: c.is_multinode ? c.prefill_num_workers : 1, role: prefill };
}

/** "dsr1 h200 sglang fp8 mtp TP8": model prefix, hardware, engine, precision, spec decoding, topology. */
export function configLabel(
  c: ConfigTopologyFields & Pick<ConfigRow, 'model_prefix' | 'hardware' | 'framework' | 'precision' | 'spec_method'>,
): string {
  const spec = c.spec_method !== 'none' ? ` ${c.spec_method}` : '';
  return `${c.model_prefix} ${c.hardware} ${c.framework} ${c.precision}${spec} ${topologyLabel(configTopology(c))}`;
}
