export {
  DCGM_CSV,
  DEFAULT_CSV,
  DEFAULT_DCGM_URL,
  DEFAULT_HWMON_ROOT,
  DEFAULT_INTERVAL_MS,
  SAMPLER_SOURCES,
  repairTruncatedTail,
  smiTimestamp,
  stemOf,
  timezoneOffset,
} from './common.js';
export type { DcgmEndpoint, ResolvedSource, SamplerHandle, SamplerOptions, SamplerSource, SamplerSummary } from './common.js';
export { DcgmReason, parsePowerScrape, parsePrometheusText } from './dcgm.js';
export {
  POWER_METRIC,
  SAMPLES_FILENAME,
  SAMPLES_HEADER,
  SAMPLES_HEADER_LINE,
  SAMPLES_SCHEMA_VERSION,
  csvField,
  sampleLine,
} from './dcgm-file.js';
export type { SampleRow } from './dcgm-file.js';
export { HWMON_HEADER, discoverHwmon } from './hwmon.js';
export type { HwmonDevice } from './hwmon.js';
export { NVIDIA_QUERY, amdIntervalS } from './smi.js';
export { detectSource, startSampler } from './sampler.js';
