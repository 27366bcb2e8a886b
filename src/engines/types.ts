import type { RunVariation } from '../sim/index.js';

/**
 * The engine adapter contract. An adapter turns a deployment (what to serve, how it is
 * parallelised) and its placement (which hosts and GPUs each worker gets) into the processes to
 * start, the probes that say they are ready and how a client talks to them. Adapters are pure:
 * they render commands; executors (src/launch) start them locally or as Slurm steps.
 */

/** Parallelism of one worker: one engine instance, on one node or spanning several. */
export interface WorkerShape {
  tp: number;
  pp: number;
  ep: number;
  dpAttn: boolean;
  dcp: number;
  pcp: number;
}

export interface Pool extends WorkerShape {
  workers: number;
}

export type Layout = { kind: 'aggregated'; worker: WorkerShape } | { kind: 'disaggregated'; prefill: Pool; decode: Pool };

/** One engine process's tuning: flags to set (replacing rendered ones), variables to set, flags to drop. */
export interface ProcessTuning {
  /** Flag → value: one word, `true` for the bare flag, or several words. */
  args?: Readonly<Record<string, string | true | readonly string[]>>;
  env?: Readonly<Record<string, string>>;
  remove?: readonly string[];
}

/**
 * A deployment's tuning (the catalog's `engine-tuning`, resolved for its rows): the flat
 * settings for aggregated workers, `prefill` and `decode` for a disaggregated deployment's roles.
 */
export interface EngineTuning extends ProcessTuning {
  prefill?: ProcessTuning;
  decode?: ProcessTuning;
}

/** Synthetic acceptance to inject (InferenceX's golden AL, resolved for a row by src/specdec/synthetic.ts). */
export interface SyntheticAcceptance {
  /** The AL the row sets (SYNTHETIC_ACCEPTANCE_LENGTH), whatever the draft length. */
  fixed?: number;
  /** Draft length → golden AL of the row's model and mode. */
  curve: Record<number, number>;
  /** Where the values come from, for messages and run records. */
  source: string;
}

/** What to serve and how, in engine terms (no matrix rows, no clusters). */
export interface Deployment {
  /** The catalog's `framework`: vllm, sglang, trt, dynamo-vllm, dynamo-sglang, dynamo-trt, llama.cpp, sim. */
  framework: string;
  /** Hugging Face name. */
  model: string;
  /** Where the weights are on the nodes (or the Hugging Face name when the engine downloads them). */
  modelPath: string;
  /** The model id of the API. */
  servedModelName: string;
  precision: string;
  /** Container image (informational for bare-metal runs). */
  image: string;
  /** GPU sku of the nodes (h100, b200, mi355x…). */
  gpu: string;
  isl: number;
  osl: number;
  maxModelLen: number;
  specDecoding: 'mtp' | 'draft_model' | 'none';
  /** The highest concurrency the run will bench: sizes batch limits. */
  /** An agentic-coding row's launch (trace replay): engines report prompt-cache reuse. */
  scenario?: 'agentic-coding';
  /** Host DRAM for KV-cache offload, GB (an agentic row's `total-cpu-dram-gb` when `kv-offloading: dram`). */
  cpuOffloadGb?: number;
  maxConcurrency: number;
  layout: Layout;
  /** KV transfer backend of a disaggregated deployment (the catalog's `kv-p2p-transfer`, e.g. nixl). */
  kvTransfer?: string;
  /** Engine options from the cluster profile (`engines.<framework>`). */
  options: Readonly<Record<string, string | number | boolean>>;
  /** Per-configuration tuning from the catalog (`engine-tuning`), applied over what the adapter renders. */
  tuning?: EngineTuning;
  /** How to run Frontier itself on the nodes, for the engines it implements (sim and its router). */
  frontierCommand?: string[];
  /** Synthetic acceptance to inject (InferenceX's golden AL; src/specdec/synthetic.ts); absent for real acceptance. */
  syntheticAcceptance?: SyntheticAcceptance;
  /** The launch runs evals: their answer keys (JSONL, frontier eval answer-keys), for the sim's evals double. */
  evalAnswers?: string;
  /**
   * The simulated engine's run-to-run variation (the cluster's `sim: run-variation`): its CV and
   * this launch's seed, from which each node's sims draw their performance factor. Absent: exact.
   */
  runVariation?: RunVariation;
  /**
   * The cores of the machine the engine shares with the load generator (a local run), when it
   * does: a CPU engine leaves the client one.
   */
  hostCores?: number;
}

/**
 * Where a worker runs. Hosts are addresses (`127.0.0.1`) or, in a Slurm job script, shell
 * expressions resolved on the node (`${NODES[1]}`): adapters put them into commands as given.
 */
export interface WorkerPlacement {
  role: 'aggregated' | 'prefill' | 'decode';
  index: number;
  /** The hosts it spans; the first is its leader. */
  hosts: string[];
  /** GPU ids it uses on each of `hosts`. */
  gpus: number[][];
  /**
   * The plan's index of each node of `hosts` (`node<i>`), where an executor has bound the nodes to
   * addresses (`onHosts`), which need not tell nodes apart (a local run's are all 127.0.0.1).
   */
  nodes?: number[];
}

export interface Placement {
  /** The host of the router or frontend, and of the load generator. */
  head: string;
  /** Aggregated workers, or prefill workers then decode workers. */
  workers: WorkerPlacement[];
}

/** An HTTP check: GET `path` answers 200 (and its body contains `contains`, if given). */
export interface Probe {
  path: string;
  contains?: string;
}

export type ProcessRole = 'server' | 'prefill' | 'decode' | 'router' | 'frontend' | 'infra';

export interface EngineProcess {
  /** Unique within the launch; names its log file (`<name>.log`). */
  name: string;
  role: ProcessRole;
  host: string;
  /** GPU ids it sees (CUDA_VISIBLE_DEVICES); empty for none. */
  gpus: number[];
  command: string[];
  env: Record<string, string>;
  /** CPU threads it computes with (a CPU engine), to name in what it shares with the client. */
  threads?: number;
  /** The HTTP port it serves, with the probes that say it is ready. */
  port?: number;
  ready?: Probe[];
}

export interface ClientSettings {
  /** The reference client's `--backend`. */
  backend: string;
  endpoint: '/v1/completions' | '/v1/chat/completions';
  /** `--tokenizer` for the load generator: gpt2, a tokenizer.json path, or server. */
  tokenizer: string;
  useChatTemplate: boolean;
  /** Frame prompts with DeepSeek-V4's encoder (`--dsv4`), as InferenceX's dsv4 MTP scripts do. */
  dsv4?: boolean;
  /**
   * The acceptance length the decoding workers were given as synthetic acceptance: the client
   * measures speculative decoding's AL and flags a run far from it.
   */
  expectedAcceptanceLength?: number;
  /** Times measured are multiplied by this (a simulated engine running faster than real time). */
  timeScale: number;
}

export interface Launch {
  processes: EngineProcess[];
  /** Where clients send requests. */
  endpoint: { host: string; port: number };
  /** Checks of the endpoint that must all pass before any load. */
  ready: Probe[];
  /** Prometheus endpoint, when the engine has one. */
  metricsPath?: string;
  client: ClientSettings;
}

/** Hands out ports: free ones locally, fixed ones per host in job scripts. */
export interface Ports {
  next(host: string): number;
}

export interface EngineAdapter {
  /** The catalog `framework` values it serves. */
  readonly frameworks: readonly string[];
  /** Problems that make the deployment impossible on this engine (each a sentence with the fix). */
  check(d: Deployment): string[];
  launch(d: Deployment, placement: Placement, ports: Ports): Launch;
}

export const gpusPerWorker = (w: WorkerShape): number => w.tp * w.pp * w.pcp;
