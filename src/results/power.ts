/**
 * The power step of a benchmark point (issue 21): GPU telemetry integrated over the benchmark
 * window into average power, energy and joules per token, with a validity sidecar
 * `power_validation_<RESULT_FILENAME>.json`. The code lives in `./power/`; this is its public face.
 */
export { POWER_METRIC_SCHEMA_VERSION } from './power/common.js';
export type { PathKind, TelemetryFiles } from './power/common.js';
export { NO_TELEMETRY_FILES, fsTelemetry, memoryTelemetry } from './power/files.js';
export { powerSettingsFromEnv, requirePowerFromEnv } from './power/settings.js';
export type { PowerOutcome, PowerSettings } from './power/settings.js';
export { BOARD_POWER_TRANSIENT_MARGIN, maxPlausiblePowerW } from './power/plausibility.js';
export type { NodeBounds } from './power/plausibility.js';
export { powerStep, singleNodeCsvPath } from './power/step.js';
export {
  aggInputFromText,
  aggregatePowerLegacy,
  crossCheckAccumulator,
  detectColumns,
  integratePower,
  patchAggResultLegacy,
  runSingleNode,
} from './power/single-node.js';
export type { AggInput, BenchInput, PowerIntegration, SingleNodeInput, SingleNodeResult } from './power/single-node.js';
export { agenticPowerStep, buildPowerWindow } from './power/agentic.js';
export type { AgenticPowerOptions, AgenticPowerPlan, AdapterFailure } from './power/agentic.js';
export { runAggregatePowerFs, runAgenticPowerFs } from './power/run-fs.js';
export type { AgenticPowerArgs, AggregatePowerArgs, StepRun } from './power/run-fs.js';
export { BENCHMARK_TYPE_SA_BENCH, openPowerPackage, writePowerPackage } from './power/package-write.js';
export type { PackageOutcome, PowerPackageInput, WindowRecord } from './power/package-write.js';
export { readSamples } from './power/package.js';
export type { ExpectedDevice } from './power/package.js';
export type { SampleRow } from '../telemetry/dcgm-file.js';
