import type { ConfigRow } from '../../src/contract/index.js';

/** A config as the API returns it: a single-node H200 TP8 deployment, with `o` on top. */
export function configRow(o: Partial<ConfigRow> = {}): ConfigRow {
  return {
    config_id: 1,
    hardware: 'h200',
    framework: 'sglang',
    model: 'deepseek-ai/DeepSeek-R1',
    model_prefix: 'dsr1',
    precision: 'fp8',
    spec_method: 'none',
    disagg: false,
    is_multinode: false,
    prefill_tp: 8,
    prefill_pp: 1,
    prefill_dcp: 1,
    prefill_pcp: 1,
    prefill_ep: 1,
    prefill_dp_attention: false,
    prefill_num_workers: 0,
    num_prefill_gpu: 8,
    decode_tp: 8,
    decode_pp: 1,
    decode_dcp: 1,
    decode_pcp: 1,
    decode_ep: 1,
    decode_dp_attention: false,
    decode_num_workers: 0,
    num_decode_gpu: 8,
    image: '',
    recipe_fingerprint: '',
    ...o,
  };
}
