/**
 * dcgm-exporter scraping as srt-slurm's dcgm-power collector does it: every interval one cycle
 * polls every exporter's `/metrics` concurrently, reads `DCGM_FI_DEV_POWER_USAGE` per GPU (the
 * `gpu` and `UUID` labels), stamps each endpoint's rows with the midpoint of its request on the
 * run's clock and appends them to `samples.csv` (its contract: `dcgm-file.ts`), with a final cycle
 * at stop.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import { POWER_METRIC, SAMPLES_HEADER_LINE, sampleLine } from './dcgm-file.js';
import type { SampleRow } from './dcgm-file.js';
import { newSummary, writeSummary, writeTimezoneFile } from './common.js';
import type { DcgmEndpoint, SamplerHandle, SamplerSummary } from './common.js';
import { virtualEpochMs, wallMsOf } from '../util/virtual-clock.js';
import type { VirtualClock } from '../util/virtual-clock.js';

const MIG_LABELS = ['GPU_I_ID', 'GPU_I_PROFILE'];

/** srt-slurm's reason codes for what a scrape or a request dropped. */
export const DcgmReason = {
  ENDPOINT_TIMEOUT: 'endpoint_timeout',
  ENDPOINT_HTTP_ERROR: 'endpoint_http_error',
  ENDPOINT_PARSE_ERROR: 'endpoint_parse_error',
  POWER_METRIC_MISSING: 'power_metric_missing',
  DUPLICATE_POWER_METRIC: 'duplicate_power_metric',
  GPU_INDEX_MISSING: 'gpu_index_missing',
  GPU_UUID_MISSING: 'gpu_uuid_missing',
  INVALID_POWER_VALUE: 'invalid_power_value',
  MIG_INSTANCE_UNSUPPORTED: 'mig_instance_unsupported',
  COLLECTOR_EXCEPTION: 'collector_exception',
} as const;

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;

function parseValue(text: string): number | undefined {
  if (/^[+-]?inf(inity)?$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(text)) return NaN;
  return FLOAT.test(text) ? Number(text) : undefined;
}

/**
 * The Prometheus text exposition format (version 0.0.4), samples only: `name{l="v",…} value
 * [timestamp]`; `#` lines and blank lines skipped. Throws on a malformed line.
 */
export function parsePrometheusText(text: string): PromSample[] {
  const out: PromSample[] = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] ?? '').replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const bad = (why: string): Error => new Error(`line ${n + 1}: ${why}: ${line.slice(0, 120)}`);
    const name = NAME.exec(line)?.[0];
    if (!name) throw bad('no metric name');
    let at = name.length;
    const labels: Record<string, string> = {};
    if (line[at] === '{') {
      at++;
      for (;;) {
        while (line[at] === ' ') at++;
        if (line[at] === '}') {
          at++;
          break;
        }
        const label = LABEL_NAME.exec(line.slice(at))?.[0];
        if (!label) throw bad('bad label name');
        at += label.length;
        while (line[at] === ' ') at++;
        if (line[at] !== '=') throw bad('expected =');
        at++;
        while (line[at] === ' ') at++;
        if (line[at] !== '"') throw bad('expected "');
        at++;
        let value = '';
        for (;;) {
          const c = line[at];
          if (c === undefined) throw bad('unterminated label value');
          at++;
          if (c === '"') break;
          if (c === '\\') {
            const e = line[at];
            at++;
            if (e === 'n') value += '\n';
            else if (e === '\\' || e === '"') value += e;
            else throw bad('bad escape');
          } else value += c;
        }
        labels[label] = value;
        while (line[at] === ' ') at++;
        if (line[at] === ',') at++;
        else if (line[at] !== '}') throw bad('expected , or }');
      }
    }
    const rest = line.slice(at).trim().split(/\s+/);
    if (rest.length < 1 || rest.length > 2 || rest[0] === '' || (line[at] !== ' ' && line[at] !== '\t')) throw bad('bad value');
    const value = parseValue(rest[0] ?? '');
    if (value === undefined) throw bad('bad value');
    if (rest[1] !== undefined && !/^-?\d+$/.test(rest[1])) throw bad('bad timestamp');
    out.push({ name, labels, value });
  }
  return out;
}

export interface PowerReading {
  gpuIndex: number;
  gpuUuid: string;
  powerW: number;
}

/** One exporter body → its publishable readings (by GPU index) and why anything was dropped. */
export function parsePowerScrape(text: string): { readings: PowerReading[]; reasons: string[] } {
  let samples: PromSample[];
  try {
    samples = parsePrometheusText(text);
  } catch {
    return { readings: [], reasons: [DcgmReason.ENDPOINT_PARSE_ERROR] };
  }
  const reasons: string[] = [];
  const byIndex = new Map<number, PowerReading>();
  const duplicated = new Set<number>();
  let sawPower = false;
  for (const s of samples) {
    if (s.name !== POWER_METRIC) continue;
    sawPower = true;
    if (MIG_LABELS.some((l) => s.labels[l])) {
      reasons.push(DcgmReason.MIG_INSTANCE_UNSUPPORTED);
      continue;
    }
    const rawIndex = s.labels.gpu;
    const gpuIndex = rawIndex !== undefined && /^\s*[+-]?\d+\s*$/.test(rawIndex) ? Number(rawIndex) : -1;
    if (gpuIndex < 0) {
      reasons.push(DcgmReason.GPU_INDEX_MISSING);
      continue;
    }
    const gpuUuid = (s.labels.UUID ?? '').trim();
    if (!gpuUuid) {
      reasons.push(DcgmReason.GPU_UUID_MISSING);
      continue;
    }
    if (!Number.isFinite(s.value) || s.value < 0) {
      reasons.push(DcgmReason.INVALID_POWER_VALUE);
      continue;
    }
    if (byIndex.has(gpuIndex)) {
      duplicated.add(gpuIndex);
      continue;
    }
    byIndex.set(gpuIndex, { gpuIndex, gpuUuid, powerW: s.value });
  }
  if (duplicated.size > 0) {
    reasons.push(DcgmReason.DUPLICATE_POWER_METRIC);
    for (const i of duplicated) byIndex.delete(i);
  }
  if (!sawPower) reasons.push(DcgmReason.POWER_METRIC_MISSING);
  return { readings: [...byIndex.values()].sort((a, b) => a.gpuIndex - b.gpuIndex), reasons: [...new Set(reasons)] };
}

/** The node name for an exporter URL: given, else the URL's host (this machine's name for a loopback URL). */
export function endpointHostname(e: DcgmEndpoint): string {
  if (e.hostname) return e.hostname;
  const host = new URL(e.url).hostname;
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(host) ? osHostname() : host;
}

export interface DcgmSamplerOptions {
  dir: string;
  csvName: string;
  intervalMs: number;
  env: NodeJS.ProcessEnv;
  endpoints: DcgmEndpoint[];
  requestTimeoutMs: number;
  clock: VirtualClock;
  log: (line: string) => void;
}

export function startDcgm(o: DcgmSamplerOptions): SamplerHandle {
  const csv = join(o.dir, o.csvName);
  const endpoints = o.endpoints.map((e) => ({ url: e.url, hostname: endpointHostname(e) }));
  const reasons: Record<string, number> = {};
  const summary: SamplerSummary = {
    ...newSummary(
      'dcgm',
      o.csvName,
      endpoints.map((e) => `${e.hostname}=${e.url}`),
      o.intervalMs,
    ),
    reasons,
  };
  const count = (r: string): void => {
    reasons[r] = (reasons[r] ?? 0) + 1;
  };
  writeTimezoneFile(o.dir, o.csvName, o.env);
  writeFileSync(csv, SAMPLES_HEADER_LINE);
  writeSummary(o.dir, o.csvName, summary);

  let seq = 0;
  const poll = async (
    e: { url: string; hostname: string },
    scrapeSeq: number,
  ): Promise<{ rows: SampleRow[]; reasons: string[] }> => {
    const started = Date.now();
    let body: string;
    try {
      const res = await fetch(e.url, { signal: AbortSignal.timeout(o.requestTimeoutMs) });
      if (!res.ok) {
        await res.body?.cancel();
        return { rows: [], reasons: [DcgmReason.ENDPOINT_HTTP_ERROR] };
      }
      body = await res.text();
    } catch (err) {
      const name = (err as Error).name;
      return {
        rows: [],
        reasons: [
          name === 'TimeoutError' || name === 'AbortError' ? DcgmReason.ENDPOINT_TIMEOUT : DcgmReason.ENDPOINT_HTTP_ERROR,
        ],
      };
    }
    const settled = Date.now();
    const parsed = parsePowerScrape(body);
    const timestampUnix = (virtualEpochMs(o.clock, started) + virtualEpochMs(o.clock, settled)) / 2 / 1000;
    return {
      rows: parsed.readings.map((r) => ({
        timestampUnix,
        scrapeSeq,
        hostname: e.hostname,
        gpuIndex: r.gpuIndex,
        gpuUuid: r.gpuUuid,
        powerW: r.powerW,
      })),
      reasons: parsed.reasons,
    };
  };

  let failed: Error | undefined;
  const cycle = async (): Promise<void> => {
    const scrapeSeq = seq++;
    const results = await Promise.all(endpoints.map((e) => poll(e, scrapeSeq)));
    const order = endpoints
      .map((e, i) => ({ e, r: results[i]! }))
      .sort((a, b) => (a.e.hostname < b.e.hostname ? -1 : a.e.hostname > b.e.hostname ? 1 : 0));
    let text = '';
    for (const { r } of order) {
      r.reasons.forEach(count);
      for (const row of r.rows) text += sampleLine(row);
      summary.samples += r.rows.length;
    }
    if (text) appendFileSync(csv, text);
  };

  // Fixed-cadence cycles that never overlap; the interval is on the run's clock.
  const periodMs = wallMsOf(o.clock, o.intervalMs);
  let stopping = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    let next = Date.now();
    try {
      while (!stopping) {
        await cycle();
        next += periodMs;
        await new Promise<void>((resolve) => {
          if (stopping) return resolve();
          const timer = setTimeout(resolve, Math.max(0, next - Date.now()));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await cycle();
    } catch (e) {
      failed = e as Error;
      count(DcgmReason.COLLECTOR_EXCEPTION);
      summary.died_before_stop = !stopping;
      summary.warnings.push(`collector stopped: ${failed.message}`);
    }
  })();
  o.log(`[GPU Monitor] Started DCGM (${endpoints.length} exporters, interval=${o.intervalMs}ms, output=${csv})`);

  let stopped: Promise<SamplerSummary> | undefined;
  const stop = async (): Promise<SamplerSummary> => {
    stopping = true;
    wake?.();
    await loop;
    summary.stopped_at = new Date().toISOString();
    writeSummary(o.dir, o.csvName, summary);
    o.log(`[GPU Monitor] Stopped DCGM; ${summary.samples} rows -> ${csv}`);
    return summary;
  };
  return {
    source: 'dcgm',
    csvPath: csv,
    alive: () => !stopping && !failed,
    stop: () => (stopped ??= stop()),
  };
}
