/** The power step's settings (the environment `process_result.py` reads) and what a step returns. */
import type { PyJson } from '../../pycompat/index.js';
import type { Env } from '../identity.js';
import type { NodeBounds } from './plausibility.js';

/** The environment of the power step. */
export interface PowerSettings {
  /** `GPU_METRICS_CSV`: single-node telemetry, tried before `gpu_metrics.csv` and `/workspace/gpu_metrics.csv`. */
  gpuMetricsCsv?: string;
  /** `POWER_ARTIFACT_DIR`: multinode telemetry (default `LOGS/power`). */
  powerArtifactDir?: string;
  /** `POWER_PRODUCER_SHA`: the srt-slurm commit multinode telemetry must come from. */
  powerProducerSha?: string;
  /** `POWER_RESULT_ROOT`: where the power package's window `result_path`s resolve (default `LOGS`). */
  powerResultRoot?: string;
  /** The node single-node telemetry was sampled on (Frontier only; absent: the reference's checks alone). */
  node?: NodeBounds;
  /** `REQUIRE_POWER` is 1, true or yes: invalid power fails the point (exit 1) after both files are written. */
  requirePower: boolean;
}

/** `REQUIRE_POWER` as the reference reads it. */
export const requirePowerFromEnv = (env: Env): boolean => ['1', 'true', 'yes'].includes((env.REQUIRE_POWER ?? '').toLowerCase());

export function powerSettingsFromEnv(env: Env): PowerSettings {
  return {
    gpuMetricsCsv: env.GPU_METRICS_CSV,
    powerArtifactDir: env.POWER_ARTIFACT_DIR,
    powerProducerSha: env.POWER_PRODUCER_SHA,
    powerResultRoot: env.POWER_RESULT_ROOT,
    requirePower: requirePowerFromEnv(env),
  };
}

export interface PowerOutcome {
  validation: Map<string, PyJson>;
  /** The line(s) the reference prints: on stderr, or on stdout where `noticeOn` says so. */
  notice: string;
  /** `stdout` for the single-node step's success line (printed before the aggregate); default stderr. */
  noticeOn?: 'stdout' | 'stderr';
  /** 1 when REQUIRE_POWER asks for valid power, else 0. */
  exitCode: 0 | 1;
}
