/* eslint-disable @typescript-eslint/no-explicit-any -- files read back as loose JSON */
/**
 * The srt-slurm package tests about the written files' format and validity
 * (tests/test_power_artifacts.py: samples, device validation, manifest, windows, path safety;
 * tests/test_power_collector.py's finalize outcomes), against Frontier's package model and
 * producer. Where InferenceX's consumer (whose code both use) differs from srt-slurm's own
 * validator, the test says so and pins the consumer's behaviour.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loads, toPlain } from '../../../src/pycompat/index.js';
import { fsTelemetry } from '../../../src/results/power/files.js';
import { convertRunningWindows, openPowerPackage, writePowerPackage } from '../../../src/results/power/package-write.js';
import type { PowerPackageInput, PowerPackageMeta } from '../../../src/results/power/package-write.js';
import {
  deriveObservedDevices,
  isSafeRelativeSubpath,
  readSamples,
  validateDevices,
  validateExpectedWindows,
} from '../../../src/results/power/package.js';
import type { ArtifactError, ExpectedDevice } from '../../../src/results/power/package.js';
import { SAMPLES_HEADER, sampleLine } from '../../../src/telemetry/dcgm-file.js';
import type { SampleRow } from '../../../src/telemetry/dcgm-file.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'frontier-power-pkg-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const files = fsTelemetry('/');
const row = (t: number, seq: number, host: string, gpu: number, uuid: string, w: number): SampleRow => ({
  timestampUnix: t,
  scrapeSeq: seq,
  hostname: host,
  gpuIndex: gpu,
  gpuUuid: uuid,
  powerW: w,
});
const HEADER = SAMPLES_HEADER.join(',');

describe('samples.csv', () => {
  it('pins the header', () => {
    expect(SAMPLES_HEADER).toEqual([
      'schema_version',
      'timestamp_unix',
      'scrape_seq',
      'hostname',
      'gpu_index',
      'gpu_uuid',
      'power_w',
    ]);
  });

  it('round-trips rows and derives devices', () => {
    const dir = tmp();
    const w = openPowerPackage(dir, meta([]));
    w.appendSamples([row(1000.0, 0, 'node-a', 0, 'GPU-aaa', 400.0), row(1000.1, 0, 'node-b', 0, 'GPU-bbb', 401.0)]);
    w.appendSamples([row(1001.0, 1, 'node-a', 0, 'GPU-aaa', 402.0)]);
    const text = readFileSync(join(dir, 'samples.csv'), 'utf8');
    expect(text).toBe(
      `${HEADER}\r\n1,1000.0,0,node-a,0,GPU-aaa,400.0\r\n1,1000.1,0,node-b,0,GPU-bbb,401.0\r\n1,1001.0,1,node-a,0,GPU-aaa,402.0\r\n`,
    );
    const { rows, reasons } = readSamples(files, join(dir, 'samples.csv'));
    expect(reasons).toEqual([]);
    expect(rows).toHaveLength(3);
    const observed = deriveObservedDevices(rows);
    expect(observed.map((d) => [d.hostname, d.gpuIndex, d.gpuUuids])).toEqual([
      ['node-a', 0, ['GPU-aaa']],
      ['node-b', 0, ['GPU-bbb']],
    ]);
    expect(observed[0]!.firstSampleTimeUnix).toBe(1000.0);
    expect(observed[0]!.lastSampleTimeUnix).toBe(1001.0);
  });

  it('quotes fields as csv.writer does', () => {
    expect(sampleLine(row(1e16, 3, 'a,b', 1, 'GPU-"x"', 0.1))).toBe('1,1e+16,3,"a,b",1,"GPU-""x""",0.1\r\n');
  });

  it('retains and flags a UUID change', () => {
    const path = join(tmp(), 'samples.csv');
    writeFileSync(path, `${HEADER}\n1,1000.0,0,node-a,0,GPU-aaa,400.0\n1,1001.0,1,node-a,0,GPU-zzz,400.0\n`);
    expect(deriveObservedDevices(readSamples(files, path).rows)[0]!.gpuUuids).toEqual(['GPU-aaa', 'GPU-zzz']);
  });

  it.each([
    '1,1000.0,0,node-a,0,GPU-aaa,not-a-number',
    '1,1000.0,0,node-a,0,GPU-aaa,NaN',
    '1,1000.0,0,node-a,0,GPU-aaa,-5',
    '1,1000.0,0,node-a,0,GPU-aaa',
  ])('reports the malformed row %s', (bad) => {
    const path = join(tmp(), 'samples.csv');
    writeFileSync(path, `${HEADER}\n${bad}\n`);
    const { rows, reasons } = readSamples(files, path);
    expect(rows).toEqual([]);
    expect(reasons).toContain('samples_csv_malformed');
  });

  it('reports a duplicate row key', () => {
    const path = join(tmp(), 'samples.csv');
    writeFileSync(path, `${HEADER}\n1,1000.0,0,node-a,0,GPU-aaa,400.0\n1,1000.5,0,node-a,0,GPU-aaa,401.0\n`);
    expect(readSamples(files, path).reasons).toContain('duplicate_sample_row');
  });

  it('reports non-monotonic device timestamps', () => {
    const path = join(tmp(), 'samples.csv');
    writeFileSync(path, `${HEADER}\n1,1001.0,0,node-a,0,GPU-aaa,400.0\n1,1000.0,1,node-a,0,GPU-aaa,401.0\n`);
    expect(readSamples(files, path).reasons).toContain('timestamp_non_monotonic');
  });

  it('equal device timestamps: srt-slurm allows them, the InferenceX consumer does not', () => {
    // srt-slurm samples.py flags `current < previous`; aggregate_power_multinode.py `current <= previous`.
    const path = join(tmp(), 'samples.csv');
    writeFileSync(path, `${HEADER}\n1,1000.0,0,node-a,0,GPU-aaa,400.0\n1,1000.0,1,node-a,0,GPU-aaa,401.0\n`);
    expect(readSamples(files, path).reasons).toContain('timestamp_non_monotonic');
  });

  it('reports invalid UTF-8 bytes', () => {
    const path = join(tmp(), 'samples.csv');
    writeFileSync(
      path,
      Buffer.concat([Buffer.from(`${HEADER}\n1,1000.0,0,node-`), Buffer.from([0xff, 0xfe]), Buffer.from(',0,GPU-aaa,400.0\n')]),
    );
    const { rows, reasons } = readSamples(files, path);
    expect(rows).toEqual([]);
    expect(reasons).toContain('samples_csv_malformed');
  });

  it('reports a field over the csv size limit', () => {
    const path = join(tmp(), 'samples.csv');
    writeFileSync(path, `${HEADER}\n1,1000.0,0,${'x'.repeat(131073)},0,GPU-aaa,400.0\n`);
    const { rows, reasons } = readSamples(files, path);
    expect(rows).toEqual([]);
    expect(reasons).toContain('samples_csv_malformed');
  });

  it('reports a header mismatch and a missing file', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'wrong.csv'), 'timestamp,power\n');
    expect(readSamples(files, join(dir, 'wrong.csv')).reasons).toContain('samples_csv_header_mismatch');
    expect(readSamples(files, join(dir, 'nope.csv')).reasons).toContain('samples_csv_missing');
  });
});

const device = (hostname: string, gpuIndex: number, role: string, het: number | null = null): ExpectedDevice => ({
  hostname,
  gpuIndex,
  assignments: [{ workerRole: role, workerIndex: 0, workerProcess: 0, hetGroup: het }],
});

describe('device validation', () => {
  const expected = [
    device('node-a', 0, 'prefill', 0),
    device('node-a', 1, 'prefill', 0),
    device('node-b', 0, 'decode', 1),
    device('node-b', 1, 'decode', 1),
  ];
  const rows = (): SampleRow[] => [
    row(1000.0, 0, 'node-a', 0, 'GPU-a0', 400.0),
    row(1000.0, 0, 'node-a', 1, 'GPU-a1', 400.0),
    row(1000.0, 0, 'node-b', 0, 'GPU-b0', 400.0),
    row(1000.0, 0, 'node-b', 1, 'GPU-b1', 400.0),
  ];
  const reasons = (exp: ExpectedDevice[], r: SampleRow[]): string[] => validateDevices(exp, deriveObservedDevices(r)).reasons;

  it('accepts a matching topology', () => expect(reasons(expected, rows())).toEqual([]));
  it('invalidates a missing device', () => expect(reasons(expected, rows().slice(0, 3))).toContain('expected_device_missing'));
  it('invalidates an unexpected device', () =>
    expect(reasons(expected, [...rows(), row(1000.0, 0, 'node-c', 0, 'GPU-c0', 400.0)])).toContain('unexpected_device'));
  it('invalidates a changed UUID', () =>
    expect(reasons(expected, [...rows(), row(1001.0, 1, 'node-a', 0, 'GPU-swapped', 400.0)])).toContain('gpu_uuid_changed'));
  it('invalidates one UUID under two device keys', () =>
    expect(reasons(expected, [...rows().slice(0, 3), row(1000.0, 0, 'node-b', 1, 'GPU-a0', 400.0)])).toContain(
      'gpu_uuid_changed',
    ));
  it('invalidates conflicting roles on one device', () => {
    const conflicting: ExpectedDevice = {
      hostname: 'node-a',
      gpuIndex: 0,
      assignments: [
        { workerRole: 'prefill', workerIndex: 0, workerProcess: 0, hetGroup: null },
        { workerRole: 'decode', workerIndex: 0, workerProcess: 0, hetGroup: null },
      ],
    };
    expect(reasons([conflicting], [row(1000.0, 0, 'node-a', 0, 'GPU-a0', 400.0)])).toContain('conflicting_worker_roles');
  });
  it('invalidates conflicting het groups on one node', () =>
    expect(reasons([device('node-a', 0, 'prefill', 0), device('node-a', 1, 'prefill', 1)], [])).toContain(
      'conflicting_het_groups',
    ));
  it('invalidates an empty expected set', () => expect(reasons([], [])).toContain('expected_device_missing'));
});

function meta(expectedDevices: ExpectedDevice[], over: Partial<PowerPackageMeta> = {}): PowerPackageMeta {
  return {
    jobId: '12345',
    runName: 'recipe_12345',
    producerGitCommit: 'abcdef0123456789abcdef0123456789abcdef01',
    sampleIntervalSeconds: 1.0,
    requestTimeoutSeconds: 2.0,
    required: true,
    startedAtUnix: 1785168000.0,
    exporter: {
      containerImageResolved: '/containers/dcgm-exporter.sqsh',
      containerImageSha256: '0'.repeat(64),
      port: 9401,
      command: 'dcgm-exporter --collect-interval=100 --address :9401',
    },
    expectedDevices,
    expectedWindows: [{ benchmarkType: 'sa-bench', concurrency: 4 }],
    ...over,
  };
}

describe('manifest', () => {
  it('has the starting shape', () => {
    const dir = tmp();
    openPowerPackage(dir, meta([device('node-a', 0, 'agg')]));
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const payload = loads(text) as any;
    expect(Object.keys(payload)).toEqual([
      'schema_version',
      'producer',
      'producer_version',
      'producer_git_commit',
      'source_metric',
      'unit',
      'power_scope',
      'timestamp_source',
      'job_id',
      'run_name',
      'sample_interval_seconds',
      'request_timeout_seconds',
      'max_scrape_duration_seconds',
      'required',
      'started_at_unix',
      'stopped_at_unix',
      'status',
      'publication_valid',
      'dcgm_exporter',
      'expected_devices',
      'observed_devices',
      'expected_windows',
      'scrape_count',
      'sample_row_count',
      'window_validations',
      'artifact_errors',
      'reason_codes',
    ]);
    expect(payload.schema_version).toBe(1);
    expect(payload.producer).toBe('srt-slurm.dcgm-power');
    expect(payload.source_metric).toBe('DCGM_FI_DEV_POWER_USAGE');
    expect(payload.unit).toBe('W');
    expect(payload.timestamp_source).toBe('head_node_unix_clock');
    expect(payload.status).toBe('starting');
    expect(payload.publication_valid).toBeNull();
    expect(payload.stopped_at_unix).toBeNull();
    expect(payload.max_scrape_duration_seconds).toBeNull();
    expect(payload.scrape_count).toBe(0);
    expect(payload.sample_row_count).toBe(0);
    expect(payload.expected_windows).toEqual([{ benchmark_type: 'sa-bench', concurrency: 4 }]);
    expect(payload.expected_devices).toEqual([
      {
        hostname: 'node-a',
        gpu_index: 0,
        assignments: [{ worker_role: 'agg', worker_index: 0, worker_process: 0, het_group: null }],
      },
    ]);
    expect(text).toContain('"sample_interval_seconds": 1.0,');
  });

  it('a failed startup is never publishable', () => {
    const dir = tmp();
    const w = openPowerPackage(dir, meta([device('node-a', 0, 'agg')]));
    w.recordReason('exporter_startup_timeout');
    const outcome = w.finish({ stoppedAtUnix: 1785168010.0 });
    expect(outcome.status).toBe('failed');
    expect(outcome.publicationValid).toBe(false);
    expect(outcome.exitNonzero).toBe(true);
    const payload = loads(readFileSync(join(dir, 'manifest.json'), 'utf8')) as any;
    expect(payload.status).toBe('failed');
    expect(payload.publication_valid).toBe(false);
  });

  it('a lost collector is incomplete, and a second finish changes nothing', () => {
    const dir = tmp();
    const w = openPowerPackage(dir, meta([device('node-a', 0, 'agg')], { required: false }));
    w.recordReason('collector_join_timeout');
    const first = w.finish({ stoppedAtUnix: 1785168010.0 });
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    expect(first.status).toBe('incomplete');
    // Operational failure fails the job in either mode.
    expect(first.exitNonzero).toBe(true);
    expect(w.finish({ stoppedAtUnix: 1785168020.0 })).toBe(first);
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(text);
    expect(() => w.appendSamples([row(1.0, 0, 'node-a', 0, 'GPU-a', 1.0)])).toThrow(/finished/);
  });
});

describe('measurement windows', () => {
  const completed = (dir: string, start: number, end: number, duration: number, name = 'result'): void => {
    mkdirSync(join(dir, 'windows'), { recursive: true });
    const payload = {
      schema_version: 1,
      benchmark_type: 'sa-bench',
      result_path: 'result.json',
      concurrency: 4,
      benchmark_start_time_unix: start,
      benchmark_end_time_unix: end,
      duration,
      clock_source: 'head_node_unix_clock',
      status: 'completed',
      reason: null,
    };
    writeFileSync(join(dir, 'windows', `${name}`), JSON.stringify(payload));
    writeFileSync(join(dir, 'result.json'), JSON.stringify(payload));
  };
  const validate = (dir: string, keys: { hostname: string; gpuIndex: number }[] = [], rows: SampleRow[] = []) => {
    const errors: ArtifactError[] = [];
    const { validations } = validateExpectedWindows(
      files,
      dir,
      dir,
      [{ benchmarkType: 'sa-bench', concurrency: 4 }],
      keys,
      deriveObservedDevices(rows),
      errors,
    );
    return { row: validations[0]!, errors };
  };

  it('a window directory that is a symbolic link out of the package is an artifact error', () => {
    const root = tmp();
    mkdirSync(join(root, 'power'));
    mkdirSync(join(root, 'external'));
    symlinkSync(join(root, 'external'), join(root, 'power', 'windows'));
    const { row: r, errors } = validate(join(root, 'power'));
    expect(r.reasonCodes).toEqual(['measurement_window_missing']);
    expect(errors).toEqual([{ path: 'windows', reasonCodes: ['measurement_window_artifact_path_invalid'] }]);
  });

  it('interruption cleanup converts a running window and leaves a symlinked directory alone', () => {
    const root = tmp();
    mkdirSync(join(root, 'windows'));
    writeFileSync(
      join(root, 'windows', 'result.json'),
      JSON.stringify({ status: 'running', benchmark_end_time_unix: 1002.0, duration: 2.0, reason: null }),
    );
    expect(convertRunningWindows(join(root, 'windows'), 'benchmark child terminated')).toBe(1);
    const payload = JSON.parse(readFileSync(join(root, 'windows', 'result.json'), 'utf8'));
    expect(payload).toEqual({
      status: 'interrupted',
      benchmark_end_time_unix: null,
      duration: null,
      reason: 'benchmark child terminated',
    });

    mkdirSync(join(root, 'external'));
    writeFileSync(join(root, 'external', 'victim.json'), JSON.stringify({ status: 'running', sentinel: 'unchanged' }));
    mkdirSync(join(root, 'power'));
    symlinkSync(join(root, 'external'), join(root, 'power', 'windows'));
    expect(convertRunningWindows(join(root, 'power', 'windows'), 'interrupted')).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 'external', 'victim.json'), 'utf8')).status).toBe('running');
  });

  it('a non-.json window file: srt-slurm rejects it, the InferenceX consumer reads it', () => {
    const dir = tmp();
    completed(dir, 1000.0, 1001.0, 1.0, 'result.txt');
    const { row: r, errors } = validate(dir);
    // srt-slurm: measurement_window_missing plus an artifact error for windows/result.txt. The
    // consumer has no suffix check; its stored-evidence check still rejects a real srt-slurm
    // manifest that recorded the error.
    expect(r.reasonCodes).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a non-positive wall-clock interval within tolerance passes the consumer window audit', () => {
    // srt-slurm rejects wall <= 0 (measurement_window_clock_mismatch); the consumer only checks the
    // tolerance, and its benchmark contract (end > start) rejects such a window instead.
    const dir = tmp();
    completed(dir, 1000.1, 1000.0, 0.1);
    expect(validate(dir).row.reasonCodes).toEqual([]);
  });

  it('a clock mismatch beyond tolerance is reported', () => {
    const dir = tmp();
    completed(dir, 1000.0, 1010.0, 5.0);
    expect(validate(dir).row.reasonCodes).toEqual(['measurement_window_clock_mismatch']);
  });

  it('clears device gaps when coverage is invalid (srt-slurm keeps them)', () => {
    const dir = tmp();
    completed(dir, 1000.0, 1004.0, 4.0);
    const { row: r } = validate(
      dir,
      [
        { hostname: 'node-a', gpuIndex: 0 },
        { hostname: 'node-b', gpuIndex: 0 },
      ],
      [row(999.0, 0, 'node-a', 0, 'GPU-a', 400.0), row(1005.0, 1, 'node-a', 0, 'GPU-a', 400.0)],
    );
    expect(r.powerCoverageValid).toBe(false);
    expect(r.reasonCodes).toEqual(['sample_gap_exceeded', 'measurement_window_not_bracketed']);
    expect([...r.perDeviceMaxSampleGapSeconds]).toEqual([]);
  });

  it('coverage does not depend on the order samples were written in', () => {
    const dir = tmp();
    completed(dir, 1000.0, 1002.0, 2.0);
    const rows = [
      row(1000.0, 1, 'node-a', 0, 'GPU-a', 1),
      row(1003.0, 3, 'node-a', 0, 'GPU-a', 1),
      row(999.0, 0, 'node-a', 0, 'GPU-a', 1),
      row(1002.0, 2, 'node-a', 0, 'GPU-a', 1),
    ];
    const { row: r } = validate(dir, [{ hostname: 'node-a', gpuIndex: 0 }], rows);
    expect(r.powerCoverageValid).toBe(true);
    expect([...r.perDeviceMaxSampleGapSeconds]).toEqual([['node-a/GPU-a', 2.0]]);
  });

  it('three duplicate windows: every file is an error (the consumer names the first twice)', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'windows'));
    for (let i = 0; i < 3; i++) {
      writeFileSync(
        join(dir, 'windows', `result-${i}.json`),
        JSON.stringify({
          schema_version: 1,
          benchmark_type: 'sa-bench',
          result_path: `result-${i}.json`,
          concurrency: 4,
          benchmark_start_time_unix: 1000.0,
          benchmark_end_time_unix: 1020.0,
          duration: 20.0,
          clock_source: 'head_node_unix_clock',
          status: 'completed',
          reason: null,
        }),
      );
    }
    const { row: r, errors } = validate(dir);
    expect(r.reasonCodes).toEqual(['measurement_window_duplicate']);
    // srt-slurm records result-0, result-1, result-2 once each.
    expect(errors.map((e) => e.path)).toEqual([
      'windows/result-0.json',
      'windows/result-1.json',
      'windows/result-0.json',
      'windows/result-2.json',
    ]);
    expect(errors.every((e) => e.reasonCodes.join() === 'measurement_window_duplicate')).toBe(true);
  });
});

describe('storage subpath safety', () => {
  it.each(['power', 'telemetry/power', 'a/b/c'])('accepts %s', (v) => expect(isSafeRelativeSubpath(v)).toBe(true));
  it.each(['', '/power', '../power', 'power/../..', 'a/../../b', '~/power'])('rejects %j', (v) =>
    expect(isSafeRelativeSubpath(v)).toBe(false),
  );
});

describe('the producer and the consumer agree', () => {
  function input(dir: string, over: Partial<PowerPackageInput> = {}): PowerPackageInput {
    const devices = [device('node-d', 0, 'decode'), device('node-p', 0, 'prefill')];
    const samples: SampleRow[] = [];
    for (let k = 0; k <= 20; k++) {
      samples.push(row(998.0 + k, k, 'node-d', 0, 'GPU-d0', 300.0), row(998.0 + k + 0.01, k, 'node-p', 0, 'GPU-p0', 400.0));
    }
    writeFileSync(
      join(dir, 'LOGS', 'r.json'),
      JSON.stringify({ benchmark_start_time_unix: 1000.0, benchmark_end_time_unix: 1010.0, duration: 10.0 }),
    );
    return {
      ...meta(devices),
      samples,
      windows: [
        { concurrency: 4, resultPath: 'r.json', status: 'completed', startUnix: 1000.0, endUnix: 1010.0, duration: 10.0 },
      ],
      stoppedAtUnix: 1020.0,
      ...over,
    };
  }
  const setup = (): string => {
    const dir = tmp();
    mkdirSync(join(dir, 'LOGS'));
    return dir;
  };

  it('a good package is publishable, with the evidence the consumer recomputes', () => {
    const dir = setup();
    const outcome = writePowerPackage(join(dir, 'LOGS', 'power'), input(dir));
    expect(outcome).toEqual({ status: 'complete', publicationValid: true, reasonCodes: [], exitNonzero: false, failures: [] });
    const m = toPlain(loads(readFileSync(join(dir, 'LOGS', 'power', 'manifest.json'), 'utf8'))) as any;
    expect(m.scrape_count).toBe(21);
    expect(m.sample_row_count).toBe(42);
    const gaps = m.window_validations[0].per_device_max_sample_gap_seconds as Record<string, number>;
    expect(Object.keys(gaps)).toEqual(['node-d/GPU-d0', 'node-p/GPU-p0']);
    for (const gap of Object.values(gaps)) expect(gap).toBeCloseTo(1.0, 9);
    expect(readFileSync(join(dir, 'LOGS', 'power', 'windows', 'r.json'), 'utf8')).toBe(
      '{\n  "schema_version": 1,\n  "benchmark_type": "sa-bench",\n  "result_path": "r.json",\n  "concurrency": 4,\n  "benchmark_start_time_unix": 1000.0,\n  "benchmark_end_time_unix": 1010.0,\n  "duration": 10.0,\n  "clock_source": "head_node_unix_clock",\n  "status": "completed",\n  "reason": null\n}\n',
    );
  });

  it('a missing window is recorded and the package is not publishable', () => {
    const dir = setup();
    const outcome = writePowerPackage(join(dir, 'LOGS', 'power'), input(dir, { windows: [] }));
    expect(outcome.publicationValid).toBe(false);
    expect(outcome.reasonCodes).toEqual(['measurement_window_missing']);
    expect(outcome.failures).toEqual(['measurement_window_missing (window sa-bench/4)']);
    expect(outcome.exitNonzero).toBe(true);
  });

  it('the streaming session writes what the one-shot writer writes', () => {
    const a = setup();
    const b = setup();
    writePowerPackage(join(a, 'LOGS', 'power'), input(a));
    const inp = input(b);
    const w = openPowerPackage(join(b, 'LOGS', 'power'), inp);
    w.appendSamples(inp.samples.slice(0, 10));
    w.openWindow({ concurrency: 4, resultPath: 'r.json', startUnix: 1000.0 });
    expect(JSON.parse(readFileSync(join(b, 'LOGS', 'power', 'windows', 'r.json'), 'utf8')).status).toBe('running');
    w.appendSamples(inp.samples.slice(10));
    w.closeWindow({ resultPath: 'r.json', endUnix: 1010.0, duration: 10.0 });
    w.finish({ stoppedAtUnix: 1020.0 });
    for (const f of ['manifest.json', 'samples.csv', 'windows/r.json']) {
      expect(readFileSync(join(b, 'LOGS', 'power', f), 'utf8')).toBe(readFileSync(join(a, 'LOGS', 'power', f), 'utf8'));
    }
  });

  it('a window left running is interrupted at finish, and the package is unpublishable', () => {
    const dir = setup();
    const inp = input(dir);
    const w = openPowerPackage(join(dir, 'LOGS', 'power'), inp);
    w.appendSamples(inp.samples);
    w.openWindow({ concurrency: 4, resultPath: 'r.json', startUnix: 1000.0 });
    const outcome = w.finish({ stoppedAtUnix: 1020.0, interruptRunning: 'benchmark did not reach a formal end boundary' });
    expect(outcome.reasonCodes).toEqual(['measurement_window_incomplete']);
    expect(outcome.publicationValid).toBe(false);
    const window = JSON.parse(readFileSync(join(dir, 'LOGS', 'power', 'windows', 'r.json'), 'utf8'));
    expect(window.status).toBe('interrupted');
    expect(window.reason).toBe('benchmark did not reach a formal end boundary');
  });
});
