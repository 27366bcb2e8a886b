/** The environment checks of process_agentic_result.py: the same messages (checked against the reference), as UserErrors with a fix. */
import { describe, expect, it } from 'vitest';
import { agenticContextFromEnv } from '../../../src/results/index.js';
import { UserError } from '../../../src/util/user-error.js';

const BASE = { KV_OFFLOADING: 'dram', KV_OFFLOAD_BACKEND: 'lmcache', KV_OFFLOAD_BACKEND_METADATA: '{"name": "lmcache"}' };

const REFUSALS: [Record<string, string>, string][] = [
  [{ KV_OFFLOADING: '' }, 'Missing required environment variable: KV_OFFLOADING'],
  [{ KV_OFFLOADING: 'none' }, 'KV_OFFLOAD_BACKEND must be empty when KV_OFFLOADING=none'],
  [{ KV_OFFLOAD_BACKEND: '' }, 'KV_OFFLOAD_BACKEND is required when KV_OFFLOADING is enabled'],
  [{ KV_OFFLOAD_BACKEND_METADATA: 'null' }, 'KV_OFFLOAD_BACKEND is required when KV_OFFLOADING is enabled'],
  [{ KV_OFFLOAD_BACKEND_METADATA: '{"name": "other"}' }, 'KV_OFFLOAD_BACKEND must match KV_OFFLOAD_BACKEND_METADATA.name'],
  [
    { KV_OFFLOAD_BACKEND_METADATA: '{"name": "lmcache", "v": 1}' },
    "KV_OFFLOAD_BACKEND_METADATA may contain only 'name' and 'version'",
  ],
  [{ KV_OFFLOAD_BACKEND_METADATA: '[1]' }, "KV_OFFLOAD_BACKEND_METADATA may contain only 'name' and 'version'"],
  [{ KV_OFFLOAD_BACKEND_METADATA: '{"version": "1"}' }, "KV_OFFLOAD_BACKEND_METADATA must contain 'name' and optional 'version'"],
  [{ KV_OFFLOAD_BACKEND_METADATA: '{"name": ""}' }, 'KV_OFFLOAD_BACKEND_METADATA values must be non-empty strings'],
  [{ KV_OFFLOAD_BACKEND_METADATA: '{bad' }, 'KV_OFFLOAD_BACKEND_METADATA must contain valid JSON'],
  [{ ROUTER_METADATA: '{"name": "a"}' }, "ROUTER_METADATA must contain exactly 'name' and 'version'"],
  [{ ROUTER_METADATA: '{"name": "a", "version": ""}' }, 'ROUTER_METADATA name and version must be non-empty strings'],
  [{ PP_SIZE: '0' }, 'PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.'],
  [{ IS_MULTINODE: '1', PREFILL_PP_SIZE: '0' }, 'Multinode PP, DCP, and PCP sizes must be positive integers.'],
  [{ IS_MULTINODE: 'yes', DECODE_HARDWARE: 'h100' }, 'PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.'],
  [{ CONC: '' }, "CONC must be an integer: invalid literal for int() with base 10: ''"],
  [{ TP: 'x' }, "TP must be an integer: invalid literal for int() with base 10: 'x'"],
];

describe('agentic context from the environment', () => {
  for (const [env, message] of REFUSALS) {
    it(`refuses ${JSON.stringify(env)}`, () => {
      let caught: unknown;
      try {
        agenticContextFromEnv({ ...BASE, ...env });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(UserError);
      expect((caught as UserError).message).toBe(message);
      expect((caught as UserError).hint).toBeTruthy();
    });
  }

  it('reads defaults as the reference does', () => {
    const c = agenticContextFromEnv({ KV_OFFLOADING: 'none', HOME: '/home/u' });
    expect(c).toMatchObject({
      conc: 0,
      tp: 1,
      ep: 1,
      dpAttention: 'false',
      numGpus: 1,
      specDecoding: 'none',
      disagg: false,
      router: null,
      kvP2pTransfer: null,
    });
    expect(c.shapeFields).toEqual({ pp: 1, dcp_size: 1, pcp_size: 1 });
    expect(c.hfHubCache).toBe('/home/u/.cache/huggingface/hub');
    expect(agenticContextFromEnv({ KV_OFFLOADING: 'none', HF_HOME: '/hf' }).hfHubCache).toBe('/hf/hub');
  });

  it('drops the decode side of an aggregated multinode deployment (no decode workers)', () => {
    const c = agenticContextFromEnv({
      KV_OFFLOADING: 'none',
      IS_MULTINODE: 'true',
      PREFILL_NUM_WORKERS: '2',
      PREFILL_TP: '4',
      PREFILL_EP: '4',
      DECODE_TP: '8',
      DECODE_EP: '8',
      DECODE_DP_ATTN: 'on',
    });
    expect([c.tp, c.ep, c.numGpus, c.dpAttention]).toEqual([4, 4, 8, 'true']);
    expect(c.shapeFields).toMatchObject({ decode_tp: 0, decode_ep: 0, num_decode_gpu: 0, decode_dp_attention: 'on' });
  });
});
