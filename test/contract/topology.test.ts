import { describe, expect, it } from 'vitest';
import { configRow } from '../support/config-row.js';
import { configLabel, configTopology, topologyLabel } from '../../src/contract/index.js';
import type { ConfigRow, TopologyRole, TopologyShape } from '../../src/contract/index.js';

const role = (tp: number, ep = 1, dpAttn = false, pp = 1): TopologyRole => ({ tp, ep, dpAttn, pp });
const agg = (r: TopologyRole, workers = 1): TopologyShape => ({ kind: 'aggregated', workers, role: r });
const disagg = (prefillWorkers: number, prefill: TopologyRole, decodeWorkers: number, decode: TopologyRole): TopologyShape => ({
  kind: 'disaggregated',
  prefillWorkers,
  decodeWorkers,
  prefill,
  decode,
});

describe('the topology label (InferenceX dashboard notation)', () => {
  it('names a role by tp, ep and dp-attention', () => {
    expect(topologyLabel(agg(role(8)))).toBe('TP8'); // ep ≤ 1, no dp-attention
    expect(topologyLabel(agg(role(8, 0)))).toBe('TP8'); // ep 0 (no expert parallelism recorded)
    expect(topologyLabel(agg(role(8, 8)))).toBe('TEP8'); // ep == tp
    expect(topologyLabel(agg(role(8, 8, true)))).toBe('DEP8'); // ep == tp with dp-attention
    expect(topologyLabel(agg(role(8, 4)))).toBe('EP4'); // 1 < ep ≠ tp
    expect(topologyLabel(agg(role(4, 1, true)))).toBe('DPATP4'); // dp-attention, ep ≤ 1
    expect(topologyLabel(agg(role(1, 4, true)))).toBe('DPAEP4'); // dp-attention, 1 < ep ≠ tp
    expect(topologyLabel(agg(role(16, 32, true)))).toBe('DPAEP32');
  });

  it('appends pipeline parallelism above 1', () => {
    expect(topologyLabel(agg(role(4, 1, false, 2)))).toBe('TP4PP2');
    expect(topologyLabel(agg(role(8, 8, true, 2)))).toBe('DEP8PP2');
    expect(topologyLabel(agg(role(8, 1, false, 1)))).toBe('TP8');
  });

  it('writes disaggregated deployments as InferenceX’s changelog does', () => {
    expect(topologyLabel(disagg(1, role(4, 4, true), 2, role(8, 8, true)))).toBe('1P2D DEP4/DEP8');
    expect(topologyLabel(disagg(5, role(1), 2, role(8, 8, true)))).toBe('5P2D TP1/DEP8');
    expect(topologyLabel(disagg(1, role(4, 1, false, 2), 1, role(8, 8)))).toBe('1P1D TP4PP2/TEP8');
  });

  it('counts the workers of an aggregated deployment when there are several', () => {
    expect(topologyLabel(agg(role(16, 16, true), 2))).toBe('2×DEP16');
    expect(topologyLabel(agg(role(8), 1))).toBe('TP8');
  });
});

describe('a config row’s topology', () => {
  const label = (o: Partial<ConfigRow>) => topologyLabel(configTopology(configRow(o)));

  it('single node: one worker, both sides alike, pipeline parallelism shown', () => {
    expect(label({})).toBe('TP8');
    expect(label({ prefill_tp: 4, decode_tp: 4, prefill_pp: 2, decode_pp: 2 })).toBe('TP4PP2');
    expect(configLabel(configRow({ spec_method: 'mtp' }))).toBe('dsr1 h200 sglang fp8 mtp TP8');
  });

  it('multinode disaggregated: workers and roles from each side', () => {
    const d = { is_multinode: true, disagg: true, prefill_num_workers: 5, prefill_tp: 1, decode_num_workers: 2 };
    expect(label({ ...d, decode_ep: 8, decode_dp_attention: true })).toBe('5P2D TP1/DEP8');
  });

  it('multinode aggregated: the prefill side’s workers (its decode side is zeros)', () => {
    const a = { is_multinode: true, prefill_num_workers: 2, prefill_tp: 16, prefill_ep: 16, prefill_dp_attention: true };
    expect(label({ ...a, decode_tp: 0, decode_ep: 0, decode_num_workers: 0 })).toBe('2×DEP16');
    expect(label({ ...a, prefill_num_workers: 1, decode_tp: 0, decode_ep: 0 })).toBe('DEP16');
  });
});
