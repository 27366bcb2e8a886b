// Every case of the reference utils/test_aggregate_power.py (InferenceX), with its inputs.
// Naive timestamps are local time: the CSVs are written and read under TZ=UTC, as the reference's
// tests write and read them in one local zone.
process.env.TZ = 'UTC';

import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/util/user-error.js';
import { resultsCommand } from '../../../src/cli/results.js';
import { PyFloat, dumps, floatRepr } from '../../../src/pycompat/index.js';
import type { PyJson } from '../../../src/pycompat/index.js';
import {
  aggregatePowerLegacy,
  crossCheckAccumulator,
  detectColumns,
  fsTelemetry,
  integratePower,
  patchAggResultLegacy,
  runAggregatePowerFs,
} from '../../../src/results/index.js';
import { parsePower, parseTimestamp } from '../../../src/results/power/timestamps.js';
import { tempFiles } from '../../helpers.js';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
/** `datetime.fromtimestamp(epoch)` (microseconds, local = UTC here). */
function civil(epoch: number): { date: Date; micro: number } {
  const whole = Math.floor(epoch);
  const micro = Math.round((epoch - whole) * 1e6);
  return { date: new Date(whole * 1000), micro };
}
/** `_nvidia_ts`: `%Y/%m/%d %H:%M:%S.%f`. */
function nvidiaTs(epoch: number): string {
  const { date: d, micro } = civil(epoch);
  return `${d.getFullYear()}/${pad(d.getMonth() + 1)}/${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(micro, 6)}`;
}
/** `datetime.fromtimestamp(ts).isoformat(timespec="milliseconds")`. */
function isoMs(epoch: number): string {
  const { date: d, micro } = civil(epoch);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(Math.floor(micro / 1000), 3)}`;
}

type Sample = [epoch: number, gpu: number, watts: number];

const nvidiaCsv = (samples: Sample[]): string =>
  [
    'timestamp, index, power.draw [W], temperature.gpu',
    ...samples.map(([t, g, p]) => `${nvidiaTs(t)}, ${g}, ${p.toFixed(2)} W, 65`),
  ].join('\n') + '\n';
const amdCsv = (samples: Sample[]): string =>
  ['timestamp,gpu,socket_power,temperature', ...samples.map(([t, g, p]) => `${isoMs(t)},${g},${floatRepr(p)},65`)].join('\n') +
  '\n';

const BASE = 1_700_000_000.0;
const approx = (actual: number | undefined, expected: number, abs = Math.max(1e-12, Math.abs(expected) * 1e-6)): void => {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(abs);
};

function benchJson(o: {
  start: number;
  end: number;
  duration: number;
  totalOutput: number;
  totalInput?: number;
  completed?: number;
}): string {
  return dumps(
    new Map<string, PyJson>([
      ['benchmark_start_time_unix', new PyFloat(o.start)],
      ['benchmark_end_time_unix', new PyFloat(o.end)],
      ['duration', new PyFloat(o.duration)],
      ['completed', o.completed ?? 1],
      ['total_output_tokens', o.totalOutput],
      ['total_input_tokens', o.totalInput ?? 0],
    ]),
  );
}

/** `_write_constant_window_samples`. */
function constantWindow(start: number, end: number, watts: number, gpus: number): Sample[] {
  const times = [start - 1];
  for (let k = 0; k <= Math.trunc(end - start); k++) times.push(start + k);
  times.push(end + 1);
  return times.flatMap((t) => Array.from({ length: gpus }, (_, g): Sample => [t, g, watts]));
}

const csvAt = (text: string): { files: ReturnType<typeof fsTelemetry>; dir: string } => {
  const dir = tempFiles({ 'gpu_metrics.csv': text });
  return { files: fsTelemetry(dir), dir };
};

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

const METRICS = [
  'avg_power_w',
  'avg_total_gpu_power_w',
  'total_gpu_energy_j',
  'joules_per_successful_query',
  'joules_per_input_token',
  'joules_per_output_token',
  'joules_per_total_token',
];

/** `run(csv, bench, agg, ...)` in `dir` (default validation path beside the bench result). */
function run(
  dir: string,
  o: { csv?: string; expectedGpus?: number | null; validation?: string; requirePower?: boolean } = {},
): number {
  return runAggregatePowerFs(
    {
      csv: o.csv ?? 'gpu_metrics.csv',
      benchResult: 'bench.json',
      aggResult: 'agg.json',
      expectedGpus: o.expectedGpus ?? null,
      validationResult: o.validation,
      requirePower: o.requirePower ?? false,
    },
    dir,
  ).exitCode;
}

describe('column and cell parsers', () => {
  it('test_detect_columns_nvidia', () => {
    expect(detectColumns(['timestamp', 'index', 'power.draw [W]', 'utilization.gpu'])).toEqual({
      timestamp: 'timestamp',
      power: 'power.draw [W]',
      gpu: 'index',
    });
  });
  it('test_detect_columns_amd', () => {
    expect(detectColumns(['timestamp', 'gpu', 'socket_power', 'temperature'])).toEqual({
      timestamp: 'timestamp',
      power: 'socket_power',
      gpu: 'gpu',
    });
  });
  it('test_detect_columns_amd_watch_mode_real_header', () => {
    const header = [
      'timestamp', 'gpu', 'gfx_activity', 'umc_activity', 'mm_activity', 'vcn_activity', 'jpeg_activity', 'gfx_busy_inst_xcp_0',
      'jpeg_busy_xcp_0', 'vcn_busy_xcp_0', 'socket_power', 'gfx_voltage', 'soc_voltage', 'mem_voltage', 'throttle_status',
      'power_management', 'gfx_0_clk', 'mem_0_clk', 'edge', 'hotspot', 'mem',
    ]; // prettier-ignore
    expect(detectColumns(header)).toEqual({ timestamp: 'timestamp', power: 'socket_power', gpu: 'gpu' });
  });
  it('test_detect_columns_excludes_power_limit', () => {
    expect(detectColumns(['timestamp', 'index', 'power.limit [W]', 'power.draw [W]']).power).toBe('power.draw [W]');
  });
  it('test_detect_columns_missing_power_returns_none', () => {
    expect(detectColumns(['timestamp', 'index', 'temperature.gpu']).power).toBeUndefined();
  });
  it('test_parse_power_nvidia_with_units', () => approx(parsePower('412.34 W'), 412.34));
  it('test_parse_power_bare_number', () => approx(parsePower('412.34'), 412.34));
  it('test_parse_power_handles_na', () => {
    expect(parsePower('[N/A]')).toBeUndefined();
    expect(parsePower('')).toBeUndefined();
  });
  it('test_parse_timestamp_nvidia_format', () => {
    approx(parseTimestamp('2025/01/15 12:34:56.789'), new Date(2025, 0, 15, 12, 34, 56, 789).getTime() / 1000, 0.01);
  });
  it('test_parse_timestamp_iso_format', () => {
    approx(parseTimestamp('2025-01-15T12:34:56.789'), new Date(2025, 0, 15, 12, 34, 56, 789).getTime() / 1000, 0.01);
  });
  it('test_parse_timestamp_epoch_seconds', () => approx(parseTimestamp('1736942096.789'), 1736942096.789));
  it('test_parse_timestamp_epoch_milliseconds', () => approx(parseTimestamp('1736942096789'), 1736942096.789));
  it('test_parse_timestamp_garbage_returns_none', () => {
    expect(parseTimestamp('not-a-date')).toBeUndefined();
    expect(parseTimestamp('')).toBeUndefined();
  });
});

describe('aggregate_power (the legacy arithmetic mean)', () => {
  it('test_aggregate_power_nvidia_single_gpu', () => {
    const { files } = csvAt(
      nvidiaCsv([
        [BASE + 1, 0, 400],
        [BASE + 2, 0, 410],
        [BASE + 3, 0, 420],
      ]),
    );
    const [avg, n] = aggregatePowerLegacy(files, 'gpu_metrics.csv', BASE, BASE + 10)!;
    approx(avg, 410);
    expect(n).toBe(1);
  });
  it('test_aggregate_power_nvidia_multi_gpu_sums_per_sample', () => {
    const samples: Sample[] = [];
    for (let s = 0; s < 3; s++) for (let g = 0; g < 8; g++) samples.push([BASE + s, g, 500]);
    const [avg, n] = aggregatePowerLegacy(csvAt(nvidiaCsv(samples)).files, 'gpu_metrics.csv', BASE, BASE + 10)!;
    approx(avg, 500);
    expect(n).toBe(8);
  });
  it('test_aggregate_power_window_filters_out_warmup_and_eval', () => {
    const { files } = csvAt(
      nvidiaCsv([
        [BASE, 0, 100],
        [BASE + 50, 0, 500],
        [BASE + 60, 0, 500],
        [BASE + 100, 0, 100],
      ]),
    );
    approx(aggregatePowerLegacy(files, 'gpu_metrics.csv', BASE + 45, BASE + 65)![0], 500);
  });
  it('test_aggregate_power_amd_csv', () => {
    const { files } = csvAt(
      amdCsv([
        [BASE + 1, 0, 350],
        [BASE + 1, 1, 355],
        [BASE + 2, 0, 360],
        [BASE + 2, 1, 365],
      ]),
    );
    const [avg, n] = aggregatePowerLegacy(files, 'gpu_metrics.csv', BASE, BASE + 10)!;
    approx(avg, 357.5);
    expect(n).toBe(2);
  });
  it('test_aggregate_power_no_gpu_column_infers_from_row_count', () => {
    const lines = ['timestamp,device_id,power.draw [W]'];
    for (let s = 0; s < 3; s++) for (let g = 0; g < 4; g++) lines.push(`${nvidiaTs(BASE + s)},${g},500.00 W`);
    const [avg, n] = aggregatePowerLegacy(csvAt(lines.join('\n') + '\n').files, 'gpu_metrics.csv', BASE, BASE + 10)!;
    approx(avg, 500);
    expect(n).toBe(4);
  });
  it('test_aggregate_power_missing_csv_returns_none', () => {
    expect(aggregatePowerLegacy(fsTelemetry(tempFiles({})), 'absent.csv', 0, 100)).toBeUndefined();
  });
  it('test_aggregate_power_empty_csv_returns_none', () => {
    expect(aggregatePowerLegacy(fsTelemetry(tempFiles({ 'empty.csv': '' })), 'empty.csv', 0, 100)).toBeUndefined();
  });
  it('test_aggregate_power_no_rows_in_window_returns_none', () => {
    const { files } = csvAt(nvidiaCsv([[1_700_000_000, 0, 400]]));
    expect(aggregatePowerLegacy(files, 'gpu_metrics.csv', 1_500_000_000, 1_600_000_000)).toBeUndefined();
  });
  it('test_aggregate_power_skips_malformed_rows', () => {
    const text =
      'timestamp, index, power.draw [W]\n' +
      `${nvidiaTs(BASE + 1)}, 0, 400 W\n` +
      'garbage, 0, also-garbage\n' +
      `${nvidiaTs(BASE + 2)}, 0, [N/A]\n` +
      `${nvidiaTs(BASE + 3)}, 0, 420 W\n`;
    approx(aggregatePowerLegacy(csvAt(text).files, 'gpu_metrics.csv', BASE, BASE + 10)![0], 410);
  });
  it('test_aggregate_power_invalid_window_returns_none', () => {
    const { files } = csvAt(nvidiaCsv([[1_700_000_000, 0, 400]]));
    expect(aggregatePowerLegacy(files, 'gpu_metrics.csv', 100, 100)).toBeUndefined();
    expect(aggregatePowerLegacy(files, 'gpu_metrics.csv', 200, 100)).toBeUndefined();
  });
});

describe('integrate_power: the validated per-device integration', () => {
  it('test_integrate_power_uses_per_device_trapezoidal_integration', () => {
    const samples: Sample[] = [
      [BASE - 1, 0, 100], [BASE + 1, 0, 140], [BASE + 3.5, 0, 190], [BASE + 6, 0, 240], [BASE + 8.5, 0, 290], [BASE + 11, 0, 340],
      [BASE - 1, 1, 200], [BASE + 1, 1, 240], [BASE + 3.5, 1, 290], [BASE + 6, 1, 340], [BASE + 8.5, 1, 390], [BASE + 11, 1, 440],
    ]; // prettier-ignore
    const r = integratePower(csvAt(nvidiaCsv(samples)).files, 'gpu_metrics.csv', {
      start: BASE,
      end: BASE + 10,
      expectedGpus: 2,
    });
    expect(r.valid).toBe(true);
    expect(r.reasons).toEqual([]);
    approx(r.energies.get('0'), 2200);
    approx(r.energies.get('1'), 3200);
    expect([...r.energies.keys()]).toEqual(['0', '1']);
    approx(r.totalGpuEnergyJ, 5400);
    approx(r.avgTotalGpuPowerW, 540);
    approx(r.avgPowerW, 270);
  });
  it('test_integrate_power_rejects_expected_gpu_count_mismatch', () => {
    const r = integratePower(csvAt(nvidiaCsv(constantWindow(BASE, BASE + 10, 500, 2))).files, 'gpu_metrics.csv', {
      start: BASE,
      end: BASE + 10,
      expectedGpus: 4,
    });
    expect(r.valid).toBe(false);
    expect(r.reasons).toContain('expected_gpu_count_mismatch');
    expect(r.expectedGpus).toBe(4);
    expect(r.observedGpuIds).toHaveLength(2);
  });
  it('test_integrate_power_requires_every_gpu_to_bracket_window', () => {
    const samples: Sample[] = [-1, 1, 3, 5, 7, 9, 11].map((o): Sample => [BASE + o, 0, 500]);
    samples.push(...[1, 3, 5, 7, 9, 11].map((o): Sample => [BASE + o, 1, 500]));
    const r = integratePower(csvAt(nvidiaCsv(samples)).files, 'gpu_metrics.csv', {
      start: BASE,
      end: BASE + 10,
      expectedGpus: 2,
    });
    expect(r.valid).toBe(false);
    expect(r.reasons).toContain('benchmark_window_not_bracketed');
    expect(Object.fromEntries(r.deviceIssues)).toEqual({ '1': ['benchmark_window_not_bracketed'] });
  });
  it('test_integrate_power_rejects_sampling_gap', () => {
    const samples: Sample[] = [-1, 1, 9, 11].map((o): Sample => [BASE + o, 0, 500]);
    const r = integratePower(csvAt(nvidiaCsv(samples)).files, 'gpu_metrics.csv', {
      start: BASE,
      end: BASE + 10,
      expectedGpus: 1,
    });
    expect(r.valid).toBe(false);
    expect(r.reasons).toContain('sampling_gap_exceeded');
    expect(Object.fromEntries(r.deviceIssues)).toEqual({ '0': ['sampling_gap_exceeded'] });
  });
  it('test_integrate_power_ignores_invalid_samples_far_outside_window', () => {
    const samples: Sample[] = [
      [BASE - 100, 0, -1],
      [BASE + 100, 0, 100],
      [BASE + 100, 0, 200],
    ];
    for (let o = -1; o < 12; o++) samples.push([BASE + o, 0, 500]);
    const r = integratePower(csvAt(nvidiaCsv(samples)).files, 'gpu_metrics.csv', {
      start: BASE,
      end: BASE + 10,
      expectedGpus: 1,
    });
    expect(r.valid).toBe(true);
    expect(r.reasons).toEqual([]);
    approx(r.totalGpuEnergyJ, 5000);
  });
});

describe('run: the aggregate patched and the sidecar written', () => {
  for (const [id, malformed, reason] of [
    ['timestamp', 'not-a-timestamp, 0, 500 W', 'invalid_timestamp_sample'],
    ['power', '{timestamp}, 0, [N/A]', 'invalid_power_sample'],
  ] as const) {
    it(`test_run_rejects_malformed_telemetry_inside_window[${id}]`, () => {
      const rows = ['timestamp, index, power.draw [W]'];
      for (let o = -1; o < 12; o++)
        rows.push(o === 5 ? malformed.replace('{timestamp}', nvidiaTs(BASE + o)) : `${nvidiaTs(BASE + o)}, 0, 500 W`);
      const dir = tempFiles({
        'gpu_metrics.csv': rows.join('\n') + '\n',
        'bench.json': benchJson({ start: BASE, end: BASE + 10, duration: 10, completed: 1, totalInput: 1000, totalOutput: 1000 }),
        'agg.json': JSON.stringify({ hw: 'h200' }),
      });
      expect(run(dir, { expectedGpus: 1, validation: 'power_validation.json' })).toBe(0);
      const patched = readJson(join(dir, 'agg.json'));
      expect(patched.power_valid).toBe(0);
      for (const m of METRICS) expect(patched).not.toHaveProperty(m);
      expect(readJson(join(dir, 'power_validation.json')).reasons).toEqual([reason]);
    });
  }

  it('test_run_patches_agg_with_power_and_joules', () => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv(constantWindow(BASE, BASE + 10, 500, 8)),
      'bench.json': benchJson({ start: BASE, end: BASE + 10, duration: 10, totalOutput: 20_000, totalInput: 20_000 }),
      'agg.json': JSON.stringify({ hw: 'h200', conc: 64 }),
    });
    expect(run(dir)).toBe(0);
    const p = readJson(join(dir, 'agg.json'));
    expect(p.hw).toBe('h200');
    expect(p.conc).toBe(64);
    approx(p.avg_power_w as number, 500);
    approx(p.joules_per_output_token as number, 2);
    approx(p.joules_per_total_token as number, 1);
  });

  it('test_run_computes_j_per_total_token_with_input_tokens', () => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv(constantWindow(BASE, BASE + 10, 500, 8)),
      'bench.json': benchJson({ start: BASE, end: BASE + 10, duration: 10, totalOutput: 65_536, totalInput: 524_288 }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir)).toBe(0);
    const p = readJson(join(dir, 'agg.json'));
    const energy = 500 * 8 * 10;
    approx(p.joules_per_output_token as number, energy / 65_536, 1e-5);
    approx(p.joules_per_total_token as number, energy / (65_536 + 524_288), 1e-5);
    const ratio = (p.joules_per_output_token as number) / (p.joules_per_total_token as number);
    expect(ratio).toBeGreaterThan(8.5);
    expect(ratio).toBeLessThan(9.5);
  });

  it('test_run_skips_when_bench_window_missing', () => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv([[1_700_000_000, 0, 400]]),
      'bench.json': JSON.stringify({ duration: 10.0, total_output_tokens: 1000 }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir)).toBe(0);
    expect(readJson(join(dir, 'agg.json'))).toEqual({ hw: 'h200', power_metric_schema_version: 2, power_valid: 0 });
  });

  it('test_run_skips_when_csv_missing', () => {
    const dir = tempFiles({
      'bench.json': benchJson({ start: 0, end: 10, duration: 10, totalOutput: 1000 }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir, { csv: 'absent.csv' })).toBe(0);
    expect(readJson(join(dir, 'agg.json'))).not.toHaveProperty('avg_power_w');
  });

  it('test_run_skips_when_total_output_tokens_zero', () => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv([[1_700_000_000, 0, 400]]),
      'bench.json': benchJson({ start: 1_700_000_000, end: 1_700_000_010, duration: 10, totalOutput: 0 }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir)).toBe(0);
    expect(readJson(join(dir, 'agg.json'))).not.toHaveProperty('joules_per_output_token');
  });

  it('test_patch_agg_result_is_atomic_via_tempfile', () => {
    const agg = new Map<string, PyJson>([['hw', 'h200']]);
    patchAggResultLegacy(agg, 400.0, 1.5, 0.5);
    const dir = tempFiles({});
    const data = JSON.parse(dumps(agg, { indent: 2 })) as Record<string, unknown>;
    expect(data).toEqual({ hw: 'h200', avg_power_w: 400, joules_per_output_token: 1.5, joules_per_total_token: 0.5 });
    // The file-writing steps write through a temporary file renamed over the target: none is left.
    writeFileSync(join(dir, 'agg.json'), JSON.stringify({ hw: 'h200' }));
    writeFileSync(join(dir, 'bench.json'), benchJson({ start: 0, end: 10, duration: 10, totalOutput: 1 }));
    run(dir);
    expect(readdirSync(dir).sort()).toEqual(['agg.json', 'bench.json', 'power_validation_bench.json']);
    expect(existsSync(join(dir, 'agg.json.tmp'))).toBe(false);
  });

  it('test_run_emits_complete_whole_deployment_metric_contract', () => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv(constantWindow(BASE, BASE + 10, 500, 8)),
      'bench.json': benchJson({
        start: BASE,
        end: BASE + 10,
        duration: 10,
        completed: 10,
        totalInput: 10_000,
        totalOutput: 2_000,
      }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir, { expectedGpus: 8, validation: 'power_validation.json' })).toBe(0);
    const p = readJson(join(dir, 'agg.json'));
    expect(p.power_metric_schema_version).toBe(2);
    expect(p.power_valid).toBe(1);
    expect(readFileSync(join(dir, 'agg.json'), 'utf8')).toContain('"power_valid": 1,');
    expect(p).not.toHaveProperty('power_invalid_reasons');
    approx(p.avg_power_w as number, 500);
    approx(p.avg_total_gpu_power_w as number, 4000);
    approx(p.total_gpu_energy_j as number, 40_000);
    approx(p.joules_per_successful_query as number, 4000);
    approx(p.joules_per_input_token as number, 4);
    approx(p.joules_per_output_token as number, 20);
    approx(p.joules_per_total_token as number, 40_000 / 12_000);
    const audit = readJson(join(dir, 'power_validation.json'));
    expect(audit.schema_version).toBe(1);
    expect(audit.power_valid).toBe(true);
    expect(audit.reasons).toEqual([]);
    expect(audit.expected_gpu_count).toBe(8);
    expect(audit.observed_gpu_count).toBe(8);
    expect(audit.benchmark_window).toMatchObject({ start_time_unix: BASE, end_time_unix: BASE + 10, integration_duration_s: 10 });
    expect(audit.integration_method).toBe('per_device_trapezoidal_with_linear_boundary_interpolation');
    expect(audit.accumulator_check).toBeNull();
  });

  it('test_run_best_effort_marks_invalid_power_and_preserves_benchmark', () => {
    const dir = tempFiles({
      'bench.json': benchJson({
        start: 1_700_000_000,
        end: 1_700_000_010,
        duration: 10,
        completed: 10,
        totalInput: 10_000,
        totalOutput: 2_000,
      }),
      'agg.json': JSON.stringify({ hw: 'h200', conc: 4 }),
    });
    expect(run(dir, { csv: 'missing.csv', expectedGpus: 8, validation: 'power_validation.json' })).toBe(0);
    const p = readJson(join(dir, 'agg.json'));
    expect(p).toMatchObject({ hw: 'h200', conc: 4, power_metric_schema_version: 2, power_valid: 0 });
    expect(p).not.toHaveProperty('power_invalid_reasons');
    for (const m of METRICS) expect(p).not.toHaveProperty(m);
    const audit = readJson(join(dir, 'power_validation.json'));
    expect(audit.power_valid).toBe(false);
    expect(audit.reasons).toEqual(['telemetry_file_missing']);
  });

  it('test_run_strict_mode_fails_after_writing_validation', () => {
    const dir = tempFiles({
      'bench.json': benchJson({
        start: 1_700_000_000,
        end: 1_700_000_010,
        duration: 10,
        completed: 10,
        totalInput: 10_000,
        totalOutput: 2_000,
      }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir, { csv: 'missing.csv', expectedGpus: 8, validation: 'power_validation.json', requirePower: true })).toBe(1);
    expect(readJson(join(dir, 'agg.json')).power_valid).toBe(0);
    expect(readJson(join(dir, 'power_validation.json')).reasons).toEqual(['telemetry_file_missing']);
  });

  it('test_run_invalid_benchmark_denominator_is_auditable', () => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv(constantWindow(BASE, BASE + 10, 500, 1)),
      'bench.json': benchJson({
        start: BASE,
        end: BASE + 10,
        duration: 10,
        completed: 0,
        totalInput: 10_000,
        totalOutput: 2_000,
      }),
      'agg.json': JSON.stringify({ hw: 'h200' }),
    });
    expect(run(dir, { expectedGpus: 1, validation: 'power_validation.json' })).toBe(0);
    expect(readJson(join(dir, 'agg.json')).power_valid).toBe(0);
    expect(readJson(join(dir, 'power_validation.json')).reasons).toEqual(['invalid_successful_query_count']);
  });
});

const ENERGY_HEADER =
  'gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management,total_energy_consumption';
const snapshot = (energy: Record<string, number>): string =>
  [ENERGY_HEADER, ...Object.entries(energy).map(([g, j]) => `${g},238,N/A,N/A,N/A,N/A,ENABLED,${floatRepr(j)}`)].join('\n') +
  '\n';
/** `_write_flat_stream`: 11 samples at 1 Hz per GPU. */
const flatStream = (watts: Record<number, number>): string =>
  amdCsv(Object.entries(watts).flatMap(([g, w]) => Array.from({ length: 11 }, (_, o): Sample => [BASE + o, Number(g), w])));

function check(files: Record<string, string>): Map<string, unknown> | null {
  const dir = tempFiles(files);
  return crossCheckAccumulator(fsTelemetry(dir), 'gpu_metrics.csv') as Map<string, unknown> | null;
}
const num = (v: unknown): number => (v instanceof PyFloat ? v.value : (v as number));
const nums = (v: unknown): Record<string, number> =>
  Object.fromEntries([...(v as Map<string, unknown>)].map(([k, x]) => [k, num(x)]));

describe('cross_check_accumulator: the advisory hardware energy-accumulator check', () => {
  const pair = (start: Record<string, number>, end: Record<string, number>) => ({
    'gpu_metrics_energy_start.csv': snapshot(start),
    'gpu_metrics_energy_end.csv': snapshot(end),
  });

  it('test_cross_check_accumulator_matches_full_stream_integral', () => {
    const r = check({ 'gpu_metrics.csv': flatStream({ 0: 500 }), ...pair({ '0': 1_000_000 }, { '0': 1_005_000 }) })!;
    expect(r.get('available')).toBe(true);
    approx(num(r.get('accumulator_delta_j')), 5000);
    approx(num(r.get('integrated_stream_j')), 5000);
    expect(num(r.get('relative_error'))).toBeLessThan(0.05);
    expect(r.get('within_tolerance')).toBe(true);
    expect(num(r.get('tolerance'))).toBe(0.05);
    expect(nums(r.get('per_gpu_delta_j'))).toEqual({ '0': 5000 });
    expect(r.get('integrated_gpu_ids')).toEqual(['0']);
    expect(r.get('unmatched_gpus')).toEqual([]);
    expect(r.get('negative_delta_gpus')).toEqual([]);
    approx(num(r.get('stream_span_s')), 10);
  });
  it('test_cross_check_accumulator_flags_disagreement_beyond_tolerance', () => {
    const r = check({ 'gpu_metrics.csv': flatStream({ 0: 400 }), ...pair({ '0': 1_000_000 }, { '0': 1_005_000 }) })!;
    expect(r.get('available')).toBe(true);
    approx(num(r.get('integrated_stream_j')), 4000);
    approx(num(r.get('relative_error')), 0.2);
    expect(r.get('within_tolerance')).toBe(false);
  });
  it('test_cross_check_accumulator_without_snapshots_returns_none', () => {
    expect(check({ 'gpu_metrics.csv': flatStream({ 0: 500 }) })).toBeNull();
  });
  it('test_cross_check_accumulator_reports_missing_end_snapshot', () => {
    const r = check({ 'gpu_metrics.csv': flatStream({ 0: 500 }), 'gpu_metrics_energy_start.csv': snapshot({ '0': 1_000_000 }) });
    expect(Object.fromEntries(r!)).toEqual({ available: false, reason: 'missing_end_snapshot' });
  });
  it('test_cross_check_accumulator_reports_unparseable_snapshot', () => {
    const r = check({
      'gpu_metrics.csv': flatStream({ 0: 500 }),
      'gpu_metrics_energy_start.csv': snapshot({ '0': 1_000_000 }),
      'gpu_metrics_energy_end.csv': 'gpu,socket_power\n0,238\n',
    });
    expect(Object.fromEntries(r!)).toEqual({ available: false, reason: 'unparseable_end_snapshot' });
  });
  it('test_cross_check_accumulator_flags_negative_delta', () => {
    const r = check({
      'gpu_metrics.csv': flatStream({ 0: 400, 1: 0 }),
      ...pair({ '0': 1_000_000, '1': 2_000_000 }, { '0': 1_005_000, '1': 1_999_000 }),
    })!;
    expect(r.get('negative_delta_gpus')).toEqual(['1']);
    approx(num(r.get('accumulator_delta_j')), 4000);
    approx(num(r.get('integrated_stream_j')), 4000);
    approx(num(r.get('relative_error')), 0);
    expect(r.get('within_tolerance')).toBe(false);
  });
  it('test_cross_check_accumulator_excludes_unmatched_gpu', () => {
    const r = check({
      'gpu_metrics.csv': flatStream({ 0: 500, 1: 5000 }),
      'gpu_metrics_energy_start.csv': snapshot({ '0': 1_000_000, '1': 3_000_000 }),
      'gpu_metrics_energy_end.csv': snapshot({ '0': 1_005_000 }),
    })!;
    expect(r.get('unmatched_gpus')).toEqual(['1']);
    expect(Object.keys(nums(r.get('per_gpu_delta_j')))).toEqual(['0']);
    expect(r.get('integrated_gpu_ids')).toEqual(['0']);
    approx(num(r.get('accumulator_delta_j')), 5000);
    approx(num(r.get('integrated_stream_j')), 5000);
    expect(r.get('within_tolerance')).toBe(true);
  });
  it('test_cross_check_accumulator_guards_zero_accumulator_delta', () => {
    const r = check({ 'gpu_metrics.csv': flatStream({ 0: 500 }), ...pair({ '0': 1_000_000 }, { '0': 1_000_000 }) })!;
    approx(num(r.get('accumulator_delta_j')), 0);
    expect(r.get('relative_error')).toBeNull();
    expect(r.get('within_tolerance')).toBe(false);
  });
  it('test_cross_check_accumulator_parses_real_amd_smi_snapshot', () => {
    const r = check({
      'gpu_metrics.csv': flatStream({ 0: 500 }),
      'gpu_metrics_energy_start.csv': `${ENERGY_HEADER}\n0,238,N/A,N/A,N/A,N/A,ENABLED,178319501.682\n1,241,N/A,N/A,N/A,N/A,ENABLED,178400000.000\n`,
      'gpu_metrics_energy_end.csv': `${ENERGY_HEADER}\n0,240,N/A,N/A,N/A,N/A,ENABLED,178324501.682\n1,239,N/A,N/A,N/A,N/A,ENABLED,N/A\n`,
    })!;
    expect(r.get('available')).toBe(true);
    approx(nums(r.get('per_gpu_delta_j'))['0'], 5000);
    expect(Object.keys(nums(r.get('per_gpu_delta_j')))).toEqual(['0']);
    expect(r.get('unmatched_gpus')).toEqual(['1']);
    expect(r.get('within_tolerance')).toBe(true);
  });

  const runWithSnapshots = (end: Record<string, number>) => {
    const dir = tempFiles({
      'gpu_metrics.csv': nvidiaCsv(constantWindow(BASE, BASE + 10, 500, 2)),
      ...pair({ '0': 1_000_000, '1': 2_000_000 }, end),
      'bench.json': benchJson({
        start: BASE,
        end: BASE + 10,
        duration: 10,
        completed: 10,
        totalInput: 10_000,
        totalOutput: 2_000,
      }),
      'agg.json': JSON.stringify({ hw: 'mi355x' }),
    });
    const code = run(dir, { expectedGpus: 2, validation: 'power_validation.json' });
    return { code, agg: readJson(join(dir, 'agg.json')), audit: readJson(join(dir, 'power_validation.json')) };
  };
  it('test_run_records_advisory_accumulator_check', () => {
    const { code, agg, audit } = runWithSnapshots({ '0': 1_006_000, '1': 2_006_000 });
    expect(code).toBe(0);
    expect(agg.power_valid).toBe(1);
    approx(agg.total_gpu_energy_j as number, 10_000);
    expect(audit.power_valid).toBe(true);
    expect(audit.reasons).toEqual([]);
    const c = audit.accumulator_check as Record<string, number | boolean>;
    expect(c.available).toBe(true);
    expect(c.within_tolerance).toBe(true);
    approx(c.accumulator_delta_j as number, 12_000);
    approx(c.integrated_stream_j as number, 12_000);
    approx(c.stream_span_s as number, 12);
  });
  it('test_run_accumulator_mismatch_leaves_power_validity_untouched', () => {
    const { code, agg, audit } = runWithSnapshots({ '0': 1_000_100, '1': 2_000_100 });
    expect(code).toBe(0);
    expect(agg.power_valid).toBe(1);
    approx(agg.avg_power_w as number, 500);
    expect(audit.power_valid).toBe(true);
    expect(audit.reasons).toEqual([]);
    expect((audit.accumulator_check as Record<string, unknown>).within_tolerance).toBe(false);
  });
});

describe('the command line', () => {
  it('test_cli_requires_expected_gpu_count', async () => {
    const command = resultsCommand({ cwd: tempFiles({}), env: {}, stdout: () => {}, stderr: () => {} });
    const failure = command.parseAsync([
      'node',
      'frontier-results',
      'power',
      '--bench-result',
      'bench.json',
      '--agg-result',
      'agg.json',
    ]);
    await expect(failure).rejects.toThrow(UserError);
    await expect(failure).rejects.toMatchObject({
      exitCode: 2,
      message: 'the following arguments are required: --expected-num-gpus',
    });
  });
});
