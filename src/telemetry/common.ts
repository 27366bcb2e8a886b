/**
 * What every sampler shares: its options and summary, the files beside its CSV (the time zone
 * offset and the `<stem>_sampler.json` status), the repair of a truncated last row, and the
 * formats the samplers that stamp their own samples write (nvidia-smi's local timestamp; srt-slurm's
 * samples.csv is `dcgm-file.ts`).
 */
import { smiTimestamp, utcOffset } from '../util/date.js';
import { SAMPLES_FILENAME } from './dcgm-file.js';
import { execFileSync } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { VirtualClock } from '../util/virtual-clock.js';

export const SAMPLER_SOURCES = ['auto', 'nvidia-smi', 'amd-smi', 'dcgm', 'hwmon'] as const;
export type SamplerSource = (typeof SAMPLER_SOURCES)[number];
/** What a sampler ended up sampling: `none` when `auto` found no source. */
export type ResolvedSource = Exclude<SamplerSource, 'auto'> | 'none';

/** InferenceX's `GPU_METRICS_CSV` default, and srt-slurm's dcgm-power `samples.csv`. */
export const DEFAULT_CSV = 'gpu_metrics.csv';
export const DCGM_CSV = SAMPLES_FILENAME;
export const DEFAULT_INTERVAL_MS = 1000;
/** dcgm-exporter's default listen address. */
export const DEFAULT_DCGM_URL = 'http://localhost:9400/metrics';
export const DEFAULT_HWMON_ROOT = '/sys';

export interface DcgmEndpoint {
  url: string;
  /** The node the URL belongs to (samples.csv's `hostname`); default: the URL's host, this host's name for localhost. */
  hostname?: string;
}

export interface SamplerOptions {
  source: SamplerSource;
  /** Directory the CSV and its sidecars go to (created). */
  dir: string;
  /** CSV file name (default gpu_metrics.csv; samples.csv for dcgm). */
  csvName?: string;
  intervalMs?: number;
  /** Environment of the tools run (PATH finds them, TZ sets their timestamps); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** dcgm: the exporters to scrape (default one: http://localhost:9400/metrics). */
  dcgmEndpoints?: DcgmEndpoint[];
  /** dcgm: per-request timeout (default 2000 ms). */
  requestTimeoutMs?: number;
  /** hwmon: the sysfs root (default /sys). */
  hwmonRoot?: string;
  /** hwmon: only devices whose `name` is one of these (default: every device with a power file). */
  hwmonNames?: string[];
  /** hwmon and dcgm stamp their own samples: on this clock (a simulated run's virtual clock; default the wall clock). */
  clock?: VirtualClock;
  /**
   * amd-smi: the longest wait before the watch is stopped (default (interval s + 2) s, the
   * reference's sleep); it ends sooner once three whole ticks with new timestamps have arrived.
   */
  amdSettleMs?: number;
  /** Progress lines (`[GPU Monitor] …`); default: none. */
  log?: (line: string) => void;
}

export interface SamplerSummary {
  source: ResolvedSource;
  /** The CSV written (absent for `none`). */
  csv?: string;
  command: string[] | null;
  interval_ms: number;
  started_at: string;
  stopped_at: string | null;
  /** The tool's exit: code and signal (null while running, or for in-process samplers). */
  exit_code: number | null;
  exit_signal: string | null;
  /** The tool (or the collector) ended before stop() was called: the samples stop where it died. */
  died_before_stop: boolean;
  /** Data rows in the CSV (one per GPU per sample). */
  samples: number;
  /** What went wrong or was repaired, in order (e.g. "dropped truncated trailing sample"). */
  warnings: string[];
  /** Reason codes with counts (dcgm: srt-slurm's endpoint and parse reasons). */
  reasons?: Record<string, number>;
  /** The tool's last stderr, when it wrote any. */
  stderr_tail?: string;
}

/** A sampler's status as it starts: nothing sampled yet, still running. */
export function newSummary(
  source: ResolvedSource,
  csv: string | undefined,
  command: string[] | null,
  intervalMs: number,
): SamplerSummary {
  return {
    source,
    ...(csv === undefined ? {} : { csv }),
    command,
    interval_ms: intervalMs,
    started_at: new Date().toISOString(),
    stopped_at: null,
    exit_code: null,
    exit_signal: null,
    died_before_stop: false,
    samples: 0,
    warnings: [],
  };
}

export interface SamplerHandle {
  readonly source: ResolvedSource;
  /** The CSV path (undefined for `none`). */
  readonly csvPath: string | undefined;
  /** Whether the tool or collector is still running. */
  alive(): boolean;
  /** Stop sampling: final samples, repairs, sidecars; the summary (also in `<stem>_sampler.json`). Idempotent. */
  stop(): Promise<SamplerSummary>;
}

/** `gpu_metrics.csv` → `gpu_metrics` (the reference's `${output%.csv}`). */
export const stemOf = (csvName: string): string => (csvName.endsWith('.csv') ? csvName.slice(0, -4) : csvName);

export const sidecarPath = (dir: string, csvName: string, suffix: string): string =>
  join(dir, `${stemOf(basename(csvName))}${suffix}`);

/** `date +%z` in `env` (the tools' TZ): `+HHMM` / `-HHMM`; computed here when `date` cannot run. */
export function timezoneOffset(env: NodeJS.ProcessEnv, at: Date = new Date()): string {
  try {
    const out = execFileSync('date', ['+%z'], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
    if (/^[+-]\d{4}$/.test(out)) return out;
  } catch {
    // no date(1): the process's own zone
  }
  return utcOffset(at);
}

export function writeTimezoneFile(dir: string, csvName: string, env: NodeJS.ProcessEnv): void {
  writeFileAtomic(sidecarPath(dir, csvName, '_timezone_offset.txt'), `${timezoneOffset(env)}\n`);
}

export function writeSummary(dir: string, csvName: string, summary: SamplerSummary): void {
  writeFileAtomic(sidecarPath(dir, csvName, '_sampler.json'), `${JSON.stringify(summary, null, 2)}\n`);
}

/**
 * Drop a partial last row (the file does not end in a newline), as the reference's
 * `_repair_truncated_gpu_metrics_tail` does with `sed '$d'`. True when a row was dropped.
 */
export function repairTruncatedTail(path: string): boolean {
  if (!existsSync(path)) return false;
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    // Find the previous newline: everything after it is the partial row.
    const chunk = 64 * 1024;
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk);
      const buf = Buffer.alloc(end - start);
      readSync(fd, buf, 0, buf.length, start);
      const nl = buf.lastIndexOf(0x0a);
      if (nl >= 0) {
        ftruncateSync(fd, start + nl + 1);
        return true;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Non-empty lines after the header: one per GPU per sample. */
export function countDataRows(path: string): number {
  if (!existsSync(path)) return 0;
  const lines = readFileSync(path, 'utf8').split('\n');
  return Math.max(0, lines.slice(1).filter((l) => l.trim() !== '').length);
}

export { smiTimestamp };

/** Whether `name` is an executable file on `env.PATH` (as `command -v` finds it). */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
