import { describe, expect, it } from 'vitest';
import type { AgenticPointRow } from '../../src/contract/index.js';
import { seriesColor } from '../../web/src/lib/colors.js';
import { agenticSeries, contextBuckets, contextLabel, offloadLabel } from '../../web/src/lib/agentic.js';

const row = (over: Partial<AgenticPointRow>): AgenticPointRow =>
  ({
    config_id: 1,
    model_prefix: 'dsr1',
    hardware: 'h200',
    framework: 'vllm',
    precision: 'fp8',
    spec_method: 'none',
    disagg: false,
    is_multinode: false,
    prefill_tp: 8,
    prefill_pp: 1,
    prefill_ep: 1,
    prefill_dp_attention: false,
    prefill_num_workers: 0,
    decode_tp: 8,
    decode_pp: 1,
    decode_ep: 1,
    decode_dp_attention: false,
    decode_num_workers: 0,
    kv_offloading: 'none',
    kv_offload_backend: '',
    allocated_cpu_dram_gb: 0,
    run_id: 'r',
    conc: 1,
    ...over,
  }) as AgenticPointRow;

describe('the agentic page’s series and labels', () => {
  it('one series per config and KV offloading, points in concurrency order; a run’s apart', () => {
    const rows = [
      row({ conc: 16 }),
      row({ conc: 4 }),
      row({ conc: 8, kv_offloading: 'dram', kv_offload_backend: 'vllm-simple', allocated_cpu_dram_gb: 1024 }),
    ];
    const series = agenticSeries(rows);
    expect(series.map((s) => [s.name, s.points.map((p) => p.conc)])).toEqual([
      ['dsr1 h200 vllm fp8 TP8 · KV offload dram (vllm-simple, 1024 GB)', [8]],
      ['dsr1 h200 vllm fp8 TP8 · no KV offload', [4, 16]],
    ]);
    expect(series[1]!.color).toBe(seriesColor('h200', 'vllm', 'fp8'));
    expect(series[0]!.color).not.toBe(series[1]!.color);
    const run = agenticSeries([row({ run_id: 'pr-1' })], true);
    expect(run[0]).toMatchObject({ overlay: true, name: 'dsr1 h200 vllm fp8 TP8 · no KV offload · run pr-1' });
  });

  it('context buckets read as token ranges, in order, each once', () => {
    expect(contextLabel({ min_tokens: 0, max_tokens: 8192 })).toBe('<8k');
    expect(contextLabel({ min_tokens: 65536, max_tokens: 131072 })).toBe('64k–128k');
    expect(contextLabel({ min_tokens: 524288, max_tokens: 1048576 })).toBe('512k–1M');
    const b = (min: number) => ({ min_tokens: min, max_tokens: min ? min * 2 : 8192, count: 1, mean: 1, p50: 1, p90: 1, p99: 1 });
    expect(
      contextBuckets([
        [b(8192), b(32768)],
        [b(0), b(8192)],
      ]).map((x) => x.min_tokens),
    ).toEqual([0, 8192, 32768]);
    expect(offloadLabel({ kv_offloading: 'dram', kv_offload_backend: '', allocated_cpu_dram_gb: 0 })).toBe('KV offload dram');
  });
});
