// Every case of the reference utils/agentic/aggregation/test_power_adapter.py (InferenceX), with its inputs.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsCli } from '../results-cli.js';

import { PyFloat, toPlain } from '../../../src/pycompat/index.js';
import {
  aggInputFromText,
  agenticPowerStep,
  buildPowerWindow,
  fsTelemetry,
  memoryTelemetry,
  runAgenticPowerFs,
} from '../../../src/results/index.js';
import { tempFiles } from '../../helpers.js';

interface RecordOptions {
  startNs: number;
  endNs: number;
  inputTokens?: number | null;
  outputTokens?: number | null;
  phase?: string;
  error?: Record<string, string> | null;
}

/** `_record`: one AIPerf profile_export.jsonl record. */
function record(o: RecordOptions): Record<string, unknown> {
  const metrics: Record<string, unknown> = {};
  const input = o.inputTokens === undefined ? 100 : o.inputTokens;
  const output = o.outputTokens === undefined ? 50 : o.outputTokens;
  if (input !== null) metrics.input_sequence_length = { value: input, unit: 'tokens' };
  if (output !== null) metrics.output_sequence_length = { value: output, unit: 'tokens' };
  return {
    metadata: { benchmark_phase: o.phase ?? 'profiling', request_start_ns: o.startNs, request_end_ns: o.endNs },
    metrics,
    error: o.error ?? null,
  };
}

/** `_write_artifacts`: results/aiperf_artifacts/{profile_export_aiperf.json, profile_export.jsonl} in a fresh folder. */
function writeArtifacts(o: { aggregate?: Record<string, unknown>; records?: Record<string, unknown>[] } = {}): {
  tmp: string;
  resultDir: string;
} {
  const aggregate = o.aggregate ?? { start_time: '2023-11-14T22:13:21+00:00', end_time: '2023-11-14T22:13:24+00:00' };
  // JSON numbers above 2^53 (the nanosecond times) are written as literals, as Python's json.dumps does.
  const records = o.records ?? [
    record({ startNs: 1_700_000_001_500_000_000, endNs: 1_700_000_002_000_000_000 }),
    record({ startNs: 1_700_000_002_500_000_000, endNs: 1_700_000_003_500_000_000, inputTokens: 200, outputTokens: 100 }),
    record({ startNs: 1_699_999_999_000_000_000, endNs: 1_700_000_000_000_000_000, phase: 'warmup' }),
    record({ startNs: 1_700_000_003_000_000_000, endNs: 1_700_000_004_000_000_000, error: { type: 'HTTPStatusError' } }),
  ];
  const tmp = tempFiles({
    'results/aiperf_artifacts/profile_export_aiperf.json': JSON.stringify(aggregate),
    'results/aiperf_artifacts/profile_export.jsonl': records.map((r) => `${JSON.stringify(r)}\n`).join(''),
  });
  return { tmp, resultDir: join(tmp, 'results') };
}

/** `_write_power_csv`: epoch-second samples of two GPUs at 400 W and 600 W. */
function writePowerCsv(resultDir: string): void {
  const rows = ['timestamp, index, power.draw [W]'];
  for (const t of ['1700000020.0', '1700000021.0', '1700000024.0', '1700000025.0']) rows.push(`${t}, 0, 400 W`, `${t}, 1, 600 W`);
  writeFileSync(join(resultDir, 'gpu_metrics.csv'), rows.join('\n') + '\n');
}

const window = (resultDir: string) => {
  const { window: w, reasons } = buildPowerWindow(fsTelemetry('/'), resultDir);
  return { window: w ? (toPlain(w) as Record<string, number>) : undefined, reasons };
};
const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('build_power_window', () => {
  it('test_build_power_window_uses_profile_lifecycle_and_successful_records', () => {
    const { resultDir } = writeArtifacts();
    const { window: w, reasons } = window(resultDir);
    expect(reasons).toEqual([]);
    expect(w).toEqual({
      benchmark_start_time_unix: 1_700_000_001.0,
      benchmark_end_time_unix: 1_700_000_004.0,
      duration: 3.0,
      completed: 2,
      total_input_tokens: 300,
      total_output_tokens: 150,
    });
    // Floats stay floats, counts ints (json.dumps writes 1700000001.0 and 2).
    const raw = buildPowerWindow(fsTelemetry('/'), resultDir).window!;
    expect(raw.get('duration')).toBeInstanceOf(PyFloat);
    expect(raw.get('completed')).toBe(2);
  });

  it('test_build_power_window_applies_captured_offset_to_naive_aiperf_times', () => {
    const { resultDir } = writeArtifacts({ aggregate: { start_time: '2023-11-14T14:13:21', end_time: '2023-11-14T14:13:24' } });
    writeFileSync(join(resultDir, 'agentic_power_timezone_offset.txt'), '-0800\n');
    const { window: w, reasons } = window(resultDir);
    expect(reasons).toEqual([]);
    expect(w!.benchmark_start_time_unix).toBe(1_700_000_001.0);
    expect(w!.benchmark_end_time_unix).toBe(1_700_000_004.0);
  });

  for (const [offset, reason] of [
    [null, 'profile_timezone_offset_missing'],
    ['PST', 'profile_timezone_offset_invalid'],
  ] as const) {
    it(`test_build_power_window_rejects_naive_times_without_valid_captured_offset[${offset}-${reason}]`, () => {
      const { resultDir } = writeArtifacts({ aggregate: { start_time: '2023-11-14T14:13:21', end_time: '2023-11-14T14:13:24' } });
      if (offset !== null) writeFileSync(join(resultDir, 'agentic_power_timezone_offset.txt'), offset);
      const { window: w, reasons } = window(resultDir);
      expect(w).toBeUndefined();
      expect(reasons).toContain(reason);
    });
  }

  const ambiguous: [string, Record<string, unknown> | undefined, Record<string, unknown>[] | undefined, string][] = [
    ['missing-start', { end_time: '2023-11-14T22:13:24+00:00' }, undefined, 'profile_window_missing'],
    [
      'reversed',
      { start_time: '2023-11-14T22:13:24+00:00', end_time: '2023-11-14T22:13:21+00:00' },
      undefined,
      'profile_window_invalid',
    ],
    ['no-output-tokens', undefined, [record({ startNs: 1, endNs: 2, outputTokens: null })], 'incomplete_token_accounting'],
    ['only-warmup', undefined, [record({ startNs: 1, endNs: 2, phase: 'warmup' })], 'successful_request_count_invalid'],
  ];
  for (const [id, aggregate, records, reason] of ambiguous) {
    it(`test_build_power_window_rejects_ambiguous_inputs[${id}]`, () => {
      const { resultDir } = writeArtifacts({ aggregate, records });
      const { window: w, reasons } = window(resultDir);
      expect(w).toBeUndefined();
      expect(reasons).toContain(reason);
    });
  }
});

describe('run_agentic_power', () => {
  it('test_run_agentic_power_patches_strict_whole_deployment_metrics', () => {
    const { tmp, resultDir } = writeArtifacts();
    writeFileSync(
      join(resultDir, 'aiperf_artifacts/profile_export_aiperf.json'),
      JSON.stringify({ start_time: '2023-11-14T22:13:41+00:00', end_time: '2023-11-14T22:13:44+00:00' }),
    );
    writePowerCsv(resultDir);
    const aggPath = join(tmp, 'agg_agentx.json');
    writeFileSync(aggPath, JSON.stringify({ hw: 'h200', scenario_type: 'agentic-coding' }));
    const run = runAgenticPowerFs({ resultDir, aggResult: aggPath, expectedGpus: 2, requirePower: true });
    expect(run.exitCode).toBe(0);
    const agg = readJson(aggPath);
    expect(agg).toMatchObject({
      power_metric_schema_version: 2,
      power_valid: 1,
      avg_power_w: 500.0,
      avg_total_gpu_power_w: 1000.0,
      total_gpu_energy_j: 3000.0,
      joules_per_successful_query: 1500.0,
      joules_per_input_token: 10.0,
      joules_per_output_token: 20.0,
    });
    expect(Math.abs((agg.joules_per_total_token as number) - 6.666667)).toBeLessThan(1e-6);
    expect(statSync(join(resultDir, 'agentic_power_window.json')).isFile()).toBe(true);
    expect(readJson(join(resultDir, 'power_validation.json')).power_valid).toBe(true);
  });

  for (const [requirePower, expectedExit] of [
    [false, 0],
    [true, 1],
  ] as const) {
    it(`test_run_agentic_power_records_window_write_failure_before_returning[${requirePower}-${expectedExit}]`, () => {
      const { tmp, resultDir } = writeArtifacts();
      const aggPath = join(tmp, 'agg_agentx.json');
      writeFileSync(aggPath, JSON.stringify({ power_valid: 1, avg_power_w: 999, joules_per_output_token: 999 }));
      // The window cannot be written: a non-empty folder holds its name.
      mkdirSync(join(resultDir, 'agentic_power_window.json', 'x'), { recursive: true });
      const run = runAgenticPowerFs({ resultDir, aggResult: aggPath, expectedGpus: 2, requirePower });
      expect(run.exitCode).toBe(expectedExit);
      expect(statSync(join(resultDir, 'agentic_power_window.json')).isFile()).toBe(false);
      const agg = readJson(aggPath);
      expect(agg.power_metric_schema_version).toBe(2);
      expect(agg.power_valid).toBe(0);
      expect(agg).not.toHaveProperty('avg_power_w');
      expect(agg).not.toHaveProperty('joules_per_output_token');
      const validation = readJson(join(resultDir, 'power_validation.json'));
      expect(validation.power_valid).toBe(false);
      expect(validation.reasons).toEqual(['power_window_unwritable']);
      expect(validation.window_source).toBe('aiperf_profile_lifecycle');
      expect(run.stderr.join('\n')).toContain('Power-window adaptation failed: power_window_unwritable');

      // The same through the pure plan: the unwritable branch is prepared before writing.
      const plan = agenticPowerStep(
        { resultDir, aggPath, expectedGpus: 2, requirePower },
        aggInputFromText(JSON.stringify({ power_valid: 1 })),
        fsTelemetry('/'),
      );
      expect(plan.kind).toBe('window');
      if (plan.kind === 'window') expect(plan.unwritable.reasons).toEqual(['power_window_unwritable']);
    });
  }

  for (const [requirePower, expectedExit] of [
    [false, 0],
    [true, 1],
  ] as const) {
    it(`test_run_agentic_power_records_adapter_failure_before_returning[${requirePower}-${expectedExit}]`, () => {
      const { tmp, resultDir } = writeArtifacts({ records: [record({ startNs: 1, endNs: 2, outputTokens: null })] });
      const aggPath = join(tmp, 'agg_agentx.json');
      writeFileSync(aggPath, JSON.stringify({ power_valid: 1, avg_power_w: 999, joules_per_output_token: 999 }));
      const run = runAgenticPowerFs({ resultDir, aggResult: aggPath, expectedGpus: 2, requirePower });
      expect(run.exitCode).toBe(expectedExit);
      const agg = readJson(aggPath);
      expect(agg.power_metric_schema_version).toBe(2);
      expect(agg.power_valid).toBe(0);
      expect(agg).not.toHaveProperty('avg_power_w');
      expect(agg).not.toHaveProperty('joules_per_output_token');
      const validation = readJson(join(resultDir, 'power_validation.json'));
      expect(validation.power_valid).toBe(false);
      expect(validation.reasons).toContain('incomplete_token_accounting');
    });
  }
});

describe('beyond the reference tests', () => {
  it('an aggregate that is not there: nothing written, both messages printed', () => {
    const { tmp, resultDir } = writeArtifacts({ records: [record({ startNs: 1, endNs: 2, outputTokens: null })] });
    const run = runAgenticPowerFs(
      { resultDir: 'results', aggResult: 'absent.json', expectedGpus: null, requirePower: false },
      tmp,
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toEqual([
      "[agentx_power] Failed to record adapter failure: [Errno 2] No such file or directory: 'absent.json'",
      '[agentx_power] Power-window adaptation failed: incomplete_token_accounting',
    ]);
    expect(() => statSync(join(resultDir, 'power_validation.json'))).toThrow();
  });

  it('artifacts in a per-run child folder, and missing or invalid artifacts', () => {
    const files = memoryTelemetry({
      'r/aiperf_artifacts/run-1/profile_export_aiperf.json': JSON.stringify({
        start_time: 1_700_000_001,
        end_time: 1_700_000_004.5,
      }),
      'r/aiperf_artifacts/run-1/profile_export.jsonl': `${JSON.stringify(record({ startNs: 1, endNs: 2 }))}\n`,
    });
    expect(toPlain(buildPowerWindow(files, 'r').window!)).toMatchObject({
      benchmark_start_time_unix: 1_700_000_001,
      duration: 3.5,
    });
    expect(buildPowerWindow(memoryTelemetry({}), 'r').reasons).toEqual(['profile_artifacts_missing']);
    const bad = memoryTelemetry({
      'r/aiperf_artifacts/profile_export_aiperf.json': '{',
      'r/aiperf_artifacts/profile_export.jsonl': '',
    });
    expect(buildPowerWindow(bad, 'r').reasons).toEqual(['profile_artifacts_invalid']);
  });

  it('frontier results power-agentic: the reference flags and exit status', async () => {
    const { tmp } = writeArtifacts({ records: [record({ startNs: 1, endNs: 2, outputTokens: null })] });
    writeFileSync(join(tmp, 'agg.json'), '{"hw": "h200"}');
    const out = await resultsCli(['power-agentic', '--result-dir', 'results', '--agg-result', 'agg.json'], tmp, {
      REQUIRE_POWER: 'true',
    });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe('[agentx_power] Power-window adaptation failed: incomplete_token_accounting\n');
    expect(readFileSync(join(tmp, 'agg.json'), 'utf8')).toBe(
      '{\n  "hw": "h200",\n  "power_metric_schema_version": 2,\n  "power_valid": 0\n}',
    );
    expect(readJson(join(tmp, 'results/power_validation.json'))).toMatchObject({
      telemetry_source: 'results/gpu_metrics.csv',
      benchmark_result: 'results/agentic_power_window.json',
      expected_gpu_count: null,
      window_source: 'aiperf_profile_lifecycle',
    });
  });
});

describe('an aggregate that is not a JSON object', () => {
  it('is refused before anything is written, as the reference crashes there', () => {
    const { tmp } = writeArtifacts();
    writeFileSync(join(tmp, 'agg.json'), '[1, 2]');
    expect(() =>
      runAgenticPowerFs({ resultDir: 'results', aggResult: 'agg.json', expectedGpus: 2, requirePower: false }, tmp),
    ).toThrow(/agg\.json: the aggregate is not a JSON object/);
    expect(readFileSync(join(tmp, 'agg.json'), 'utf8')).toBe('[1, 2]');
  });
});
