/**
 * The self-consistent v1 package of InferenceX's utils/test_aggregate_power_multinode.py
 * (`build_package`): manifest, samples, window, original result under LOGS and the renamed
 * workspace copy, written into a temporary directory; `run` is the multinode power step there.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PyFloat, dumps, floatRepr, loads, toPlain } from '../../../src/pycompat/index.js';
import type { PyJson } from '../../../src/pycompat/index.js';
import type { PointIdentity } from '../../../src/results/identity.js';
import { fsTelemetry } from '../../../src/results/power/files.js';
import { multinodePowerStep } from '../../../src/results/power/multinode.js';
import { csvReader } from '../../../src/results/power/csv.js';
import { SAMPLES_HEADER } from '../../../src/telemetry/dcgm-file.js';
import type { NodeBounds, PowerOutcome } from '../../../src/results/power.js';

export const PRODUCER_SHA = 'a'.repeat(40);
export const WINDOW_START = 1000.0;
export const WINDOW_END = 1060.0;
export const FIRST_TS = 998.0;
export const LAST_TS = 1062.0;
export const RESULT_STEM = 'my_result';
/** The workspace copy's name, as the launcher renamed it: RESULT_FILENAME. */
export const RESULT_FILENAME = 'renamed_by_launcher';

type Device = readonly [host: string, idx: number, role: string, het: number, watts: number];
export const DEVICES: readonly Device[] = [
  ['node-d', 0, 'decode', 1, 300.0],
  ['node-d', 1, 'decode', 1, 300.0],
  ['node-p', 0, 'prefill', 0, 400.0],
  ['node-p', 1, 'prefill', 0, 400.0],
];

export const BENCH_FIELDS: Record<string, unknown> = {
  model_id: 'test-model',
  max_concurrency: 4,
  benchmark_start_time_unix: new PyFloat(WINDOW_START),
  benchmark_end_time_unix: new PyFloat(WINDOW_END),
  duration: new PyFloat(60.0),
  completed: 8,
  total_input_tokens: 32768,
  total_output_tokens: 4096,
};

export const uuid = (host: string, idx: number): string => `GPU-${host}-${idx}`;
export const json = (v: unknown): string => dumps(v, { indent: 2 });

export function identity(prefillGpus: number, decodeGpus: number, resultFilename = RESULT_FILENAME): PointIdentity {
  const pool = { numWorkers: 1, tp: 1, ep: 1, dpAttention: 'false', pp: 1, dcpSize: 1, pcpSize: 1 };
  return {
    resultFilename,
    topology: { kind: 'multinode', prefillGpus, decodeGpus, prefill: pool, decode: pool },
  } as PointIdentity;
}

/** A CSV line as Python's csv.writer writes it. */
const csvLine = (row: readonly (string | number)[]): string =>
  row.map((f) => (typeof f === 'string' && /[",\r\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : String(f))).join(',') + '\r\n';

export class Package {
  readonly logsRoot: string;
  readonly powerDir: string;
  readonly windowsDir: string;
  readonly originalResult: string;
  readonly benchResult: string;
  constructor(readonly root: string) {
    this.logsRoot = join(root, 'LOGS');
    this.powerDir = join(this.logsRoot, 'power');
    this.windowsDir = join(this.powerDir, 'windows');
    this.originalResult = join(this.logsRoot, `${RESULT_STEM}.json`);
    this.benchResult = join(root, `${RESULT_FILENAME}.json`);
  }

  /** The step as process_result.py runs it in `root`; a fresh aggregate each time. */
  run(
    opts: { prefillGpus?: number; decodeGpus?: number; sha?: string | null; requirePower?: boolean; node?: NodeBounds } = {},
  ): PowerOutcome & {
    agg: Record<string, unknown>;
    sidecar: Record<string, unknown>;
    aggMap: Map<string, PyJson>;
  } {
    const aggMap = new Map<string, PyJson>([
      ['hw', 'gb200'],
      ['conc', 4],
    ]);
    const raw = loads(readFileSync(this.benchResult, 'utf8'));
    const sha = opts.sha === undefined ? PRODUCER_SHA : opts.sha;
    const outcome = multinodePowerStep(
      raw,
      identity(opts.prefillGpus ?? 2, opts.decodeGpus ?? 2),
      aggMap,
      {
        requirePower: opts.requirePower ?? false,
        ...(sha === null ? {} : { powerProducerSha: sha }),
        ...(opts.node ? { node: opts.node } : {}),
      },
      fsTelemetry(this.root),
    );
    return {
      ...outcome,
      aggMap,
      agg: toPlain(aggMap) as Record<string, unknown>,
      sidecar: toPlain(outcome.validation) as Record<string, unknown>,
    };
  }

  manifest(): Record<string, unknown> {
    return loads(readFileSync(join(this.powerDir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  }
  writeManifest(manifest: unknown): void {
    writeFileSync(join(this.powerDir, 'manifest.json'), json(manifest));
  }
  editManifest(changes: Record<string, unknown>): void {
    this.writeManifest({ ...this.manifest(), ...changes });
  }
  rewriteSamples(mutate: (body: string[][]) => string[][]): void {
    const path = join(this.powerDir, 'samples.csv');
    const rows = [...csvReader(readFileSync(path, 'utf8'), { skipInitialSpace: false })];
    writeFileSync(path, [rows[0]!, ...mutate(rows.slice(1))].map(csvLine).join(''));
  }
  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export type PowerFn = (host: string, idx: number, ts: number) => number;

export function sampleRows(powerFn?: PowerFn): { rows: (string | number)[][]; scrapes: number } {
  const rows: (string | number)[][] = [];
  let seq = 0;
  for (let ts = FIRST_TS; ts <= LAST_TS; ts += 1.0) {
    for (const [host, idx, , , watts] of DEVICES) {
      const power = powerFn ? powerFn(host, idx, ts) : watts;
      rows.push([1, floatRepr(ts), seq, host, idx, uuid(host, idx), floatRepr(power)]);
    }
    seq++;
  }
  return { rows, scrapes: seq };
}

const sortedDevices = (): Device[] => [...DEVICES].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));

export function buildPackage(
  opts: { powerFn?: PowerFn; publicationValid?: boolean; benchExtra?: Record<string, unknown> } = {},
): Package {
  const pkg = new Package(mkdtempSync(join(tmpdir(), 'frontier-mn-power-')));
  mkdirSync(pkg.windowsDir, { recursive: true });
  const { rows, scrapes } = sampleRows(opts.powerFn);
  writeFileSync(join(pkg.powerDir, 'samples.csv'), [SAMPLES_HEADER, ...rows].map(csvLine).join(''));
  const f = (x: number): PyFloat => new PyFloat(x);
  const observed = sortedDevices().map(([host, idx]) => ({
    hostname: host,
    gpu_index: idx,
    gpu_uuids: [uuid(host, idx)],
    first_sample_time_unix: f(FIRST_TS),
    last_sample_time_unix: f(LAST_TS),
  }));
  const gaps = Object.fromEntries(sortedDevices().map(([host, idx]) => [`${host}/${uuid(host, idx)}`, f(1.0)]));
  const manifest = {
    schema_version: 1,
    producer: 'srt-slurm.dcgm-power',
    producer_version: '1.0',
    producer_git_commit: PRODUCER_SHA,
    source_metric: 'DCGM_FI_DEV_POWER_USAGE',
    unit: 'W',
    power_scope: 'gpu_device_board_as_reported_by_dcgm',
    timestamp_source: 'head_node_unix_clock',
    job_id: '12345',
    run_name: 'canary',
    sample_interval_seconds: f(1.0),
    request_timeout_seconds: f(2.0),
    max_scrape_duration_seconds: f(0.05),
    required: true,
    started_at_unix: f(990.0),
    stopped_at_unix: f(1070.0),
    status: 'complete',
    publication_valid: opts.publicationValid ?? true,
    dcgm_exporter: {
      container_image_resolved: '/squash/dcgm-exporter.sqsh',
      container_image_sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      port: 9401,
      command: 'dcgm-exporter',
    },
    expected_devices: sortedDevices().map(([host, idx, role, het]) => ({
      hostname: host,
      gpu_index: idx,
      assignments: [{ worker_role: role, worker_index: 0, worker_process: 0, het_group: het }],
    })),
    observed_devices: observed,
    expected_windows: [{ benchmark_type: 'sa-bench', concurrency: 4 }],
    scrape_count: scrapes,
    sample_row_count: rows.length,
    window_validations: [
      {
        benchmark_type: 'sa-bench',
        concurrency: 4,
        window_file: `windows/${RESULT_STEM}.json`,
        power_coverage_valid: true,
        reason_codes: [],
        per_device_max_sample_gap_seconds: gaps,
      },
    ],
    artifact_errors: [],
    reason_codes: [],
  };
  pkg.writeManifest(manifest);
  const window = {
    schema_version: 1,
    clock_source: 'head_node_unix_clock',
    benchmark_type: 'sa-bench',
    concurrency: 4,
    status: 'completed',
    benchmark_start_time_unix: f(WINDOW_START),
    benchmark_end_time_unix: f(WINDOW_END),
    duration: f(60.0),
    reason: null,
    result_path: `${RESULT_STEM}.json`,
  };
  writeFileSync(join(pkg.windowsDir, `${RESULT_STEM}.json`), json(window));
  const bench = { ...BENCH_FIELDS, ...(opts.benchExtra ?? {}) };
  writeFileSync(pkg.originalResult, json(bench));
  writeFileSync(pkg.benchResult, json(bench));
  return pkg;
}
