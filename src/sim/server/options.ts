import type { AnswerBook } from '../answers.js';
import type { Cluster, Topology } from '../cluster.js';
import { NO_FAULTS } from '../faults.js';
import type { ClusterPower } from '../power.js';
import type { SimClock } from './clock.js';
import type { FaultOptions } from '../faults.js';

/**
 * What the server is in a disaggregated deployment of separate processes (behind `frontier sim
 * router`, or any PD proxy that speaks vLLM's NIXL `kv_transfer_params`): `prefill` answers a
 * request that carries `kv_transfer_params: {do_remote_decode: true}` with the parameters a decode
 * server needs to pull its KV cache; `decode` admits a request that carries
 * `kv_transfer_params: {do_remote_prefill: true}` already prefilled, after the KV transfer. Both
 * answer ordinary requests as usual. `both` (the default) ignores `kv_transfer_params`.
 */
export type SimRole = 'prefill' | 'decode' | 'both';
export const SIM_ROLES: readonly SimRole[] = ['prefill', 'decode', 'both'];

export interface SimServerOptions {
  topology: Topology;
  /** Its part in a disaggregated deployment of separate processes (default `both`). */
  role?: SimRole | undefined;
  /** The id clients send as `model` and /v1/models lists. */
  servedModelName: string;
  /** Longest prompt + output accepted (capped by what the KV cache can hold). */
  maxModelLen: number;
  /** Virtual milliseconds per wall-clock millisecond. */
  speed: number;
  /** Seed of every random choice: outputs, lengths, faults, speculative acceptance. */
  seed: number;
  /** Mean output length of a request that may stop on its own (no `ignore_eos`). */
  naturalOutputTokens: number;
  host: string;
  port: number;
  faults: FaultOptions;
  answers?: AnswerBook | undefined;
  /** A JSONL file for per-request ground truth: arrival, first token, every token's time. */
  groundTruthFile?: string | undefined;
  /**
   * vLLM's VLLM_TORCH_PROFILER_DIR: POST /start_profile and /stop_profile are served, and a stop
   * writes a trace here (server/profiler.ts). Without it they are not found (404), as in vLLM.
   */
  profilerDir?: string | undefined;
  /** vLLM's `--enable-prompt-tokens-details`: usage reports `prompt_tokens_details.cached_tokens` (default off, as in vLLM). */
  promptTokensDetails?: boolean | undefined;
  /** Called when a `crashAfter` fault fires, after every connection has been dropped. */
  onCrash?: (() => void) | undefined;
}

export const DEFAULT_SERVER_OPTIONS = {
  speed: 1,
  seed: 0,
  naturalOutputTokens: 128,
  host: '127.0.0.1',
  port: 8000,
  faults: NO_FAULTS,
} satisfies Partial<SimServerOptions>;

export interface SimServer {
  url: string;
  port: number;
  cluster: Cluster;
  /** Its GPUs' board power (GET /sim/gpus). */
  power: ClusterPower;
  clock: SimClock;
  role: SimRole;
  /** The id a prefill server gives as `remote_engine_id`. */
  engineId: string;
  close(): Promise<void>;
}
