/** Rows as the API returns them (see src/store/queries.ts). */
export interface ConfigRow {
  config_id: number;
  hardware: string;
  framework: string;
  model: string;
  model_prefix: string;
  precision: string;
  spec_method: string;
  disagg: boolean;
  is_multinode: boolean;
  prefill_tp: number;
  prefill_ep: number;
  prefill_dp_attention: boolean;
  prefill_num_workers: number;
  num_prefill_gpu: number;
  decode_tp: number;
  decode_ep: number;
  decode_dp_attention: boolean;
  decode_num_workers: number;
  num_decode_gpu: number;
  image: string;
  recipe_fingerprint: string;
}

export interface PointRow extends ConfigRow {
  run_id: string;
  official: boolean;
  date: string;
  isl: number;
  osl: number;
  conc: number;
  runner: string;
  metrics: Record<string, number>;
}

export interface EvalRow extends ConfigRow {
  run_id: string;
  official: boolean;
  date: string;
  task: string;
  conc: number;
  score: number;
  score_se: number | null;
  threshold: number | null;
  passed: boolean | null;
  n_eff: number | null;
}

export interface RunRow {
  run_id: string;
  attempt: number;
  official: boolean;
  name: string;
  url: string;
  commit_sha: string;
  branch: string;
  status: string;
  date: string;
  started_at: string;
  finished_at: string;
  points: number;
  evals: number;
  success_rate: number | null;
}

export interface AvailabilityRow {
  model_prefix: string;
  model: string;
  isl: number;
  osl: number;
  hardware: string;
  framework: string;
  precision: string;
  spec_method: string;
  disagg: boolean;
  date: string;
}
