import type { ComponentMetadata, KvOffloadBackend, ResolvedTuning, WorkerConfig } from '../catalog/index.js';
import { UserError } from '../util/user-error.js';

/**
 * Matrix rows: the contract with the benchmark workflows (reference: `SingleNodeMatrixEntry`,
 * `MultiNodeMatrixEntry`, `SingleNodeAgenticMatrixEntry`, `MultiNodeAgenticMatrixEntry`).
 * Key order is significant: rows serialise in insertion order, exactly as the reference's dicts.
 */

export type SpecDecoding = 'mtp' | 'draft_model' | 'none';
export type ScenarioType = 'fixed-seq-len' | 'agentic-coding';
export const SCENARIO_TYPES: readonly ScenarioType[] = ['fixed-seq-len', 'agentic-coding'];

/** A worker as emitted: the YAML fields in file order, then pp/dcp-size/pcp-size if absent. */
export type RowWorker = WorkerConfig & { pp: number; 'dcp-size': number; 'pcp-size': number };

interface Identity {
  image: string;
  model: string;
  'model-prefix': string;
  precision: string;
  framework: string;
  runner: string;
}

interface EvalFields {
  'run-eval'?: boolean;
  'eval-only'?: boolean;
  /** Frontier catalogs only: the entry's `eval-tasks` (absent: GSM8K, as in every InferenceX row). */
  'eval-tasks'?: string[];
}

interface Components {
  router?: ComponentMetadata;
  'kv-p2p-transfer'?: string;
}

export interface SingleNodeRow extends Identity, EvalFields, Components {
  isl: number;
  osl: number;
  tp: number;
  pp: number;
  'dcp-size': number;
  'pcp-size': number;
  conc: number;
  'max-model-len': number;
  ep: number;
  'dp-attn': boolean;
  'spec-decoding': SpecDecoding;
  'exp-name': string;
  disagg: false;
  /** Frontier catalogs only: the row's engine tuning (absent when no rule applies, as in every InferenceX row). */
  'engine-tuning'?: ResolvedTuning;
}

export interface MultiNodeRow extends Identity, EvalFields, Components {
  isl: number;
  osl: number;
  'spec-decoding': SpecDecoding;
  prefill: RowWorker;
  decode: RowWorker;
  conc: number[];
  'max-model-len': number;
  'exp-name': string;
  disagg: boolean;
  'eval-conc'?: number;
  'eval-all-concs'?: boolean;
  /** Frontier catalogs only: the row's engine tuning, per role for a disaggregated row. */
  'engine-tuning'?: ResolvedTuning;
}

interface AgenticFields {
  'kv-offloading': 'none' | 'dram';
  'kv-offload-backend'?: KvOffloadBackend;
  'total-cpu-dram-gb': number;
  duration: number;
  'exp-name': string;
  'scenario-type': 'agentic-coding';
}

export interface SingleNodeAgenticRow extends Identity, EvalFields, Components, AgenticFields {
  tp: number;
  pp: number;
  'dcp-size': number;
  'pcp-size': number;
  ep: number;
  'dp-attn': boolean;
  'spec-decoding': SpecDecoding;
  conc: number;
}

export interface MultiNodeAgenticRow extends Identity, EvalFields, Components, AgenticFields {
  'spec-decoding': SpecDecoding;
  prefill: RowWorker;
  decode: RowWorker;
  conc: number[];
  disagg: boolean;
  'eval-conc'?: number;
}

export type MatrixRow = SingleNodeRow | MultiNodeRow | SingleNodeAgenticRow | MultiNodeAgenticRow;

/**
 * Which of a row's fields only describe it on the route it runs (they reach no engine, recipe or
 * client there): src/clusters reads them off an InferenceX checkout; comparing what rows measure
 * leaves them out.
 */
export type DescriptiveFields = (row: MatrixRow) => ReadonlySet<string>;

export const isAgenticRow = (row: MatrixRow): row is SingleNodeAgenticRow | MultiNodeAgenticRow =>
  (row as Partial<AgenticFields>)['scenario-type'] === 'agentic-coding';

/** The scenario a row belongs to. */
export const rowScenario = (row: MatrixRow): ScenarioType => (isAgenticRow(row) ? 'agentic-coding' : 'fixed-seq-len');

export const isMultiNodeRow = (row: MatrixRow): row is MultiNodeRow | MultiNodeAgenticRow => 'prefill' in row;

/** A failure the reference generator raises as ValueError: bad filters or an unusable catalog. */
export class MatrixError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'MatrixError';
  }
}
