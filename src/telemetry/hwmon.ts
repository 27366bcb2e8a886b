/**
 * Linux hwmon: `<root>/class/hwmon/hwmonN/power1_average` (else `power1_input`), in microwatts,
 * read every interval for each device that has one (amdgpu exposes power1_average). Written as
 * nvidia-smi's CSV (`timestamp, index, power.draw [W]`), stamped on the run's clock; the device
 * behind each index goes to `<stem>_hwmon.json`.
 */
import { appendFileSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countDataRows, newSummary, sidecarPath, smiTimestamp, writeSummary, writeTimezoneFile } from './common.js';
import type { SamplerHandle, SamplerSummary } from './common.js';
import { virtualEpochMs, wallMsOf } from '../util/virtual-clock.js';
import type { VirtualClock } from '../util/virtual-clock.js';

export const HWMON_HEADER = 'timestamp, index, power.draw [W]';
const POWER_FILES = ['power1_average', 'power1_input'] as const;

export interface HwmonDevice {
  index: number;
  /** `hwmonN` */
  hwmon: string;
  name: string;
  file: (typeof POWER_FILES)[number];
  path: string;
  /** Where `device` points (e.g. the PCI device), when it resolves. */
  device: string | null;
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The devices with a power file, in hwmon number order, indexed from 0. */
export function discoverHwmon(root: string, names?: readonly string[]): HwmonDevice[] {
  const base = join(root, 'class', 'hwmon');
  let entries: string[];
  try {
    entries = readdirSync(base);
  } catch {
    return [];
  }
  const devices: HwmonDevice[] = [];
  const ordered = entries.filter((e) => /^hwmon\d+$/.test(e)).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  for (const hwmon of ordered) {
    const dir = join(base, hwmon);
    const file = POWER_FILES.find((f) => isFile(join(dir, f)));
    if (!file) continue;
    const name = readText(join(dir, 'name')) ?? '';
    if (names && names.length > 0 && !names.includes(name)) continue;
    let device: string | null = null;
    try {
      device = realpathSync(join(dir, 'device'));
    } catch {
      device = null;
    }
    devices.push({ index: devices.length, hwmon, name, file, path: join(dir, file), device });
  }
  return devices;
}

/** One row per device: `YYYY/MM/DD HH:MM:SS.mmm, N, W.WW W` (`[N/A]` when the file cannot be read). */
export function hwmonRows(devices: readonly HwmonDevice[], stampMs: number): string {
  const ts = smiTimestamp(stampMs);
  let out = '';
  for (const d of devices) {
    const raw = readText(d.path);
    const micro = raw !== undefined && /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    out += `${ts}, ${d.index}, ${Number.isFinite(micro) ? `${(micro / 1e6).toFixed(2)} W` : '[N/A]'}\n`;
  }
  return out;
}

export interface HwmonSamplerOptions {
  dir: string;
  csvName: string;
  intervalMs: number;
  env: NodeJS.ProcessEnv;
  root: string;
  devices: HwmonDevice[];
  clock: VirtualClock;
  log: (line: string) => void;
}

export function startHwmon(o: HwmonSamplerOptions): SamplerHandle {
  const csv = join(o.dir, o.csvName);
  const summary = newSummary('hwmon', o.csvName, null, o.intervalMs);
  writeTimezoneFile(o.dir, o.csvName, o.env);
  writeFileSync(
    sidecarPath(o.dir, o.csvName, '_hwmon.json'),
    `${JSON.stringify({ root: o.root, devices: o.devices.map(({ path: _p, ...d }) => d) }, null, 2)}\n`,
  );
  writeFileSync(csv, `${HWMON_HEADER}\n`);
  writeSummary(o.dir, o.csvName, summary);

  let failed: Error | undefined;
  const sample = (): void => {
    if (failed) return;
    try {
      appendFileSync(csv, hwmonRows(o.devices, virtualEpochMs(o.clock)));
    } catch (e) {
      failed = e as Error;
      summary.died_before_stop = true;
      summary.warnings.push(`hwmon sampling stopped: ${failed.message}`);
    }
  };
  // The interval is on the run's clock: a simulated run samples `scale` times as often.
  const periodMs = wallMsOf(o.clock, o.intervalMs);
  const t0 = Date.now();
  let k = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    sample();
    k += 1;
    if (failed) return;
    timer = setTimeout(tick, Math.max(0, t0 + k * periodMs - Date.now()));
  };
  tick();
  o.log(`[GPU Monitor] Started hwmon (${o.devices.length} devices under ${o.root}, interval=${o.intervalMs}ms, output=${csv})`);

  let stopped: Promise<SamplerSummary> | undefined;
  const stop = async (): Promise<SamplerSummary> => {
    if (timer) clearTimeout(timer);
    // One sample past the benchmark's end, as nvidia-smi's post-exit sample.
    sample();
    summary.stopped_at = new Date().toISOString();
    summary.samples = countDataRows(csv);
    writeSummary(o.dir, o.csvName, summary);
    o.log(`[GPU Monitor] Stopped hwmon; ${summary.samples} rows -> ${csv}`);
    return summary;
  };
  return {
    source: 'hwmon',
    csvPath: csv,
    alive: () => stopped === undefined && !failed,
    stop: () => (stopped ??= stop()),
  };
}
