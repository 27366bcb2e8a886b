/**
 * The producer of the srt-slurm `dcgm-power` package (srt-slurm `srtctl/core/power`: the
 * `PowerTelemetrySession` lifecycle, `SampleWriter`, `PowerManifest`, and sa-bench's
 * `measurement_window.py`): `samples.csv`, one `windows/<result stem>.json` per measured
 * concurrency, and `manifest.json`. The terminal manifest's evidence (observed devices, window
 * audit, artifact errors) and its `publication_valid` are recomputed from the written bytes by the
 * same code the multinode power step validates them with (`package.ts`), so a package this writes
 * is accepted exactly when the consumer would accept it. Files are written as srt-slurm writes
 * them: CSV rows ending in CRLF with floats as Python's repr, JSON with a two-space indent and a
 * final newline.
 */
import { appendFileSync, mkdirSync, readFileSync, readdirSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PyFloat, dumps, isDict, loads, toPlain } from '../../pycompat/index.js';
import { POWER_METRIC, SAMPLES_FILENAME, SAMPLES_HEADER_LINE, sampleLine } from '../../telemetry/dcgm-file.js';
import type { SampleRow } from '../../telemetry/dcgm-file.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { fsTelemetry } from './files.js';
import {
  CLOCK_SOURCE,
  FATAL_LIFECYCLE_REASONS,
  MANIFEST_FILENAME,
  POWER_SCOPE,
  POWER_UNIT,
  PRODUCER,
  SCHEMA_VERSION,
  STARTUP_FAILURE_REASONS,
  STATUS_COMPLETE,
  WINDOWS_DIRNAME,
  artifactErrorJson,
  auditPackage,
  checkStoredEvidence,
  dedupe,
  observedDeviceJson,
  pathStem,
  recomputeFailures,
  windowValidationJson,
} from './package.js';
import type { ExpectedDevice, ExpectedWindow, PackageAudit } from './package.js';

/** The srtctl version the reference producer stamps as `producer_version`. */
export const PRODUCER_VERSION = '0.3.0';
export const BENCHMARK_TYPE_SA_BENCH = 'sa-bench';

/** Which exporter image produced the samples. */
export interface ExporterIdentity {
  containerImageResolved: string;
  /** sha256 of the image file; null for a registry URI. */
  containerImageSha256: string | null;
  port: number;
  command: string;
}

/** What the session knows before the first sample. */
export interface PowerPackageMeta {
  jobId: string;
  runName: string;
  /** The srt-slurm commit the consumer pins (`POWER_PRODUCER_SHA`). */
  producerGitCommit: string | null;
  /** Default `PRODUCER_VERSION`. */
  producerVersion?: string;
  sampleIntervalSeconds: number;
  requestTimeoutSeconds: number;
  /** `required` (REQUIRE_POWER on the producer side): startup failures make the package `failed`. */
  required: boolean;
  startedAtUnix: number;
  exporter: ExporterIdentity;
  /** The GPUs the deployment uses, with each one's worker role(s) and het group. */
  expectedDevices: ExpectedDevice[];
  /** The measured concurrencies. */
  expectedWindows: ExpectedWindow[];
  /** Where window `result_path`s resolve (the consumer's `POWER_RESULT_ROOT`); default: the package directory's parent. */
  resultRoot?: string;
}

/** One measurement window, as sa-bench writes it. */
export interface WindowRecord {
  /** Default `sa-bench`. */
  benchmarkType?: string;
  concurrency: number;
  /** The result file, relative to the result root; the window file is `windows/<its stem>.json`. */
  resultPath: string;
  status: 'running' | 'completed' | 'failed' | 'interrupted';
  startUnix: number;
  endUnix: number | null;
  duration: number | null;
  reason?: string | null;
}

export interface PowerPackageInput extends PowerPackageMeta {
  samples: readonly SampleRow[];
  windows: readonly WindowRecord[];
  stoppedAtUnix: number;
  /** Lifecycle reason codes the session recorded (exporter_exited, endpoint_timeout, …). */
  reasonCodes?: readonly string[];
  /** Collection cycles run; default: the highest scrape_seq + 1. */
  scrapeCount?: number;
  maxScrapeDurationSeconds?: number | null;
}

/** The terminal state (`SessionOutcome`). */
export interface PackageOutcome {
  status: 'complete' | 'incomplete' | 'failed';
  publicationValid: boolean;
  reasonCodes: string[];
  /** Operational failure, or invalid power when required. */
  exitNonzero: boolean;
  /** Why the consumer's recomputation finds the package unpublishable (empty when valid). */
  failures: string[];
}

const jsonText = (value: unknown): string => `${dumps(value, { indent: 2 })}\n`;
const orNull = (x: number | null | undefined): PyFloat | null => (x === null || x === undefined ? null : new PyFloat(x));

/** A window file's JSON (`MeasurementWindowWriter._write`). */
export function windowJson(w: WindowRecord): Map<string, unknown> {
  return new Map<string, unknown>([
    ['schema_version', SCHEMA_VERSION],
    ['benchmark_type', w.benchmarkType ?? BENCHMARK_TYPE_SA_BENCH],
    ['result_path', w.resultPath],
    ['concurrency', w.concurrency],
    ['benchmark_start_time_unix', new PyFloat(w.startUnix)],
    ['benchmark_end_time_unix', orNull(w.endUnix)],
    ['duration', orNull(w.duration)],
    ['clock_source', CLOCK_SOURCE],
    ['status', w.status],
    ['reason', w.reason ?? null],
  ]);
}

interface ManifestState {
  status: string;
  stoppedAtUnix: number | null;
  publicationValid: boolean | null;
  maxScrapeDurationSeconds: number | null;
  scrapeCount: number;
  sampleRowCount: number;
  audit?: PackageAudit;
  reasonCodes: string[];
}

function manifestJson(meta: PowerPackageMeta, s: ManifestState): Map<string, unknown> {
  return new Map<string, unknown>([
    ['schema_version', SCHEMA_VERSION],
    ['producer', PRODUCER],
    ['producer_version', meta.producerVersion ?? PRODUCER_VERSION],
    ['producer_git_commit', meta.producerGitCommit],
    ['source_metric', POWER_METRIC],
    ['unit', POWER_UNIT],
    ['power_scope', POWER_SCOPE],
    ['timestamp_source', CLOCK_SOURCE],
    ['job_id', meta.jobId],
    ['run_name', meta.runName],
    ['sample_interval_seconds', new PyFloat(meta.sampleIntervalSeconds)],
    ['request_timeout_seconds', new PyFloat(meta.requestTimeoutSeconds)],
    ['max_scrape_duration_seconds', orNull(s.maxScrapeDurationSeconds)],
    ['required', meta.required],
    ['started_at_unix', new PyFloat(meta.startedAtUnix)],
    ['stopped_at_unix', orNull(s.stoppedAtUnix)],
    ['status', s.status],
    ['publication_valid', s.publicationValid],
    [
      'dcgm_exporter',
      new Map<string, unknown>([
        ['container_image_resolved', meta.exporter.containerImageResolved],
        ['container_image_sha256', meta.exporter.containerImageSha256],
        ['port', meta.exporter.port],
        ['command', meta.exporter.command],
      ]),
    ],
    [
      'expected_devices',
      meta.expectedDevices.map(
        (d) =>
          new Map<string, unknown>([
            ['hostname', d.hostname],
            ['gpu_index', d.gpuIndex],
            [
              'assignments',
              d.assignments.map(
                (a) =>
                  new Map<string, unknown>([
                    ['worker_role', a.workerRole],
                    ['worker_index', a.workerIndex],
                    ['worker_process', a.workerProcess],
                    ['het_group', a.hetGroup],
                  ]),
              ),
            ],
          ]),
      ),
    ],
    ['observed_devices', (s.audit?.observed ?? []).map(observedDeviceJson)],
    [
      'expected_windows',
      meta.expectedWindows.map(
        (w) =>
          new Map<string, unknown>([
            ['benchmark_type', w.benchmarkType],
            ['concurrency', w.concurrency],
          ]),
      ),
    ],
    ['scrape_count', s.scrapeCount],
    ['sample_row_count', s.sampleRowCount],
    ['window_validations', (s.audit?.validations ?? []).map(windowValidationJson)],
    ['artifact_errors', (s.audit?.artifactErrors ?? []).map(artifactErrorJson)],
    ['reason_codes', dedupe(s.reasonCodes)],
  ]);
}

/** A live package (`PowerTelemetrySession`): samples appended as they come, windows opened and closed, then one terminal manifest. */
export interface PowerPackageWriter {
  readonly dir: string;
  appendSamples(rows: readonly SampleRow[]): void;
  /** Record a lifecycle reason code (endpoint_timeout, exporter_exited, …). */
  recordReason(reason: string): void;
  /** The formal start: a `running` window file. */
  openWindow(w: { benchmarkType?: string; concurrency: number; resultPath: string; startUnix: number }): void;
  /** The formal end (`completed`), or a failure at a known boundary (`failed`, with a reason). */
  closeWindow(w: {
    resultPath: string;
    endUnix: number;
    duration: number;
    status?: 'completed' | 'failed';
    reason?: string | null;
  }): void;
  /** Write one window record as is. */
  writeWindow(w: WindowRecord): void;
  /**
   * Stop: still-`running` windows become `interrupted` when `interruptRunning` gives the reason;
   * the terminal manifest is written from the files on disk. Idempotent.
   */
  finish(options: {
    stoppedAtUnix: number;
    scrapeCount?: number;
    maxScrapeDurationSeconds?: number | null;
    interruptRunning?: string;
  }): PackageOutcome;
}

function windowPath(dir: string, resultPath: string): string {
  return join(dir, WINDOWS_DIRNAME, `${pathStem(resultPath)}.json`);
}

/** Open a package: `windows/`, the samples header and a `starting` manifest (`PowerTelemetrySession.initialize`). */
export function openPowerPackage(dir: string, meta: PowerPackageMeta): PowerPackageWriter {
  mkdirSync(join(dir, WINDOWS_DIRNAME), { recursive: true });
  const samplesPath = join(dir, SAMPLES_FILENAME);
  writeFileAtomic(samplesPath, SAMPLES_HEADER_LINE);
  const reasons: string[] = [];
  let rowCount = 0;
  let maxSeq = -1;
  let outcome: PackageOutcome | undefined;
  const opened = new Map<string, { benchmarkType?: string; concurrency: number; resultPath: string; startUnix: number }>();
  const state = (): ManifestState => ({
    status: 'starting',
    stoppedAtUnix: null,
    publicationValid: null,
    maxScrapeDurationSeconds: null,
    scrapeCount: maxSeq + 1,
    sampleRowCount: rowCount,
    reasonCodes: reasons,
  });
  const manifestPath = join(dir, MANIFEST_FILENAME);
  writeFileAtomic(manifestPath, jsonText(manifestJson(meta, state())));
  const mutable = (): void => {
    if (outcome) throw new Error(`power package ${dir} is finished`);
  };
  const writer: PowerPackageWriter = {
    dir,
    appendSamples(rows) {
      mutable();
      if (!rows.length) return;
      appendFileSync(samplesPath, rows.map(sampleLine).join(''));
      rowCount += rows.length;
      for (const r of rows) maxSeq = Math.max(maxSeq, r.scrapeSeq);
    },
    recordReason(reason) {
      reasons.push(reason);
    },
    writeWindow(w) {
      mutable();
      writeFileAtomic(windowPath(dir, w.resultPath), jsonText(windowJson(w)));
    },
    openWindow(w) {
      writer.writeWindow({ ...w, status: 'running', endUnix: null, duration: null, reason: null });
      opened.set(w.resultPath, w);
    },
    closeWindow(w) {
      const start = opened.get(w.resultPath);
      if (!start) throw new Error(`no open window for ${w.resultPath}`);
      const status = w.status ?? 'completed';
      writer.writeWindow({
        ...start,
        status,
        endUnix: w.endUnix,
        duration: w.duration,
        reason: status === 'completed' ? null : (w.reason ?? null),
      });
      opened.delete(w.resultPath);
    },
    finish(options) {
      if (outcome) return outcome;
      if (options.interruptRunning !== undefined) convertRunningWindows(join(dir, WINDOWS_DIRNAME), options.interruptRunning);
      const resultRoot = meta.resultRoot ?? dirname(dir);
      const audit = auditPackage(fsTelemetry(), dir, resultRoot, meta.expectedDevices, meta.expectedWindows);
      const all = [
        ...reasons,
        ...audit.sampleReasons,
        ...audit.deviceReasons,
        ...audit.validations.flatMap((v) => v.reasonCodes),
        ...audit.artifactErrors.flatMap((e) => e.reasonCodes),
      ];
      const status: PackageOutcome['status'] = all.some((r) => (FATAL_LIFECYCLE_REASONS as readonly string[]).includes(r))
        ? 'incomplete'
        : meta.required && all.some((r) => (STARTUP_FAILURE_REASONS as readonly string[]).includes(r))
          ? 'failed'
          : 'complete';
      const s: ManifestState = {
        status,
        stoppedAtUnix: options.stoppedAtUnix,
        publicationValid: null,
        maxScrapeDurationSeconds: options.maxScrapeDurationSeconds ?? null,
        scrapeCount: options.scrapeCount ?? maxSeq + 1,
        sampleRowCount: audit.rows.length,
        audit,
        reasonCodes: all,
      };
      // The verdict is the consumer's: its recomputation over what this manifest will say.
      const draft = toPlain(manifestJson(meta, s)) as Record<string, unknown>;
      const failures = [
        ...recomputeFailures(draft, meta.expectedWindows, audit),
        ...checkStoredEvidence(draft, meta.expectedDevices, meta.expectedWindows, audit),
      ];
      s.publicationValid = failures.length === 0 && status === STATUS_COMPLETE;
      writeFileAtomic(manifestPath, jsonText(manifestJson(meta, s)));
      const reasonCodes = dedupe(all);
      const operational = reasonCodes.some((r) => r === 'benchmark_child_reap_timeout' || r === 'collector_join_timeout');
      outcome = {
        status,
        publicationValid: s.publicationValid,
        reasonCodes,
        exitNonzero: operational || (meta.required && !s.publicationValid),
        failures,
      };
      return outcome;
    },
  };
  return writer;
}

/** Turn every still-`running` window into `interrupted`, end and duration null (`convert_running_windows`). */
export function convertRunningWindows(windowsDir: string, reason: string): number {
  let converted = 0;
  let names: string[];
  try {
    if (lstatSync(windowsDir).isSymbolicLink()) return 0;
    names = readdirSync(windowsDir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(windowsDir, name);
    let payload: unknown;
    try {
      if (!lstatSync(path).isFile()) continue;
      payload = loads(readFileSync(path, 'utf8'));
    } catch {
      continue;
    }
    if (!isDict(payload) || payload.status !== 'running') continue;
    const updated = new Map<string, unknown>(Object.entries(payload));
    updated.set('status', 'interrupted');
    updated.set('benchmark_end_time_unix', null);
    updated.set('duration', null);
    updated.set('reason', reason);
    // srt-slurm's atomic_write_json: two-space indent and a final newline.
    writeFileAtomic(path, jsonText(updated));
    converted++;
  }
  return converted;
}

/** Write a whole package at once: samples, window files, terminal manifest. */
export function writePowerPackage(dir: string, input: PowerPackageInput): PackageOutcome {
  const writer = openPowerPackage(dir, input);
  writer.appendSamples(input.samples);
  for (const w of input.windows) writer.writeWindow(w);
  for (const r of input.reasonCodes ?? []) writer.recordReason(r);
  return writer.finish({
    stoppedAtUnix: input.stoppedAtUnix,
    scrapeCount: input.scrapeCount,
    maxScrapeDurationSeconds: input.maxScrapeDurationSeconds,
  });
}
