// Failure paths of the single-node step, each checked side by side with the reference's behaviour.
process.env.TZ = 'UTC';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loads, toPlain } from '../../../src/pycompat/index.js';
import type { PyJson } from '../../../src/pycompat/index.js';
import { aggInputFromText, memoryTelemetry, runSingleNode } from '../../../src/results/index.js';
import { sortGpuIds } from '../../../src/results/power/single-node.js';
import type { AggInput } from '../../../src/results/index.js';
import { REPO } from '../../helpers.js';

const CASE = join(REPO, 'test/fixtures/power/single-node/nvidia-valid-8gpu');
const csv = readFileSync(join(CASE, 'gpu_metrics.csv'), 'utf8');
const raw = loads(readFileSync(join(CASE, 'raw.json'), 'utf8'));
const agg = (): AggInput => ({ kind: 'parsed', agg: new Map<string, PyJson>([['hw', 'h200']]) });

function step(files: Record<string, string | null>, o: { agg?: AggInput; expectedGpus?: number | null } = {}) {
  return runSingleNode(
    {
      csvPath: 'gpu_metrics.csv',
      benchResultPath: 'raw.json',
      bench: { kind: 'parsed', raw },
      aggPath: 'agg.json',
      agg: o.agg ?? agg(),
      expectedGpus: o.expectedGpus === undefined ? 8 : o.expectedGpus,
      validationPath: 'power_validation_raw.json',
      requirePower: false,
    },
    memoryTelemetry(files),
  );
}

describe('single-node failure paths', () => {
  it('a telemetry file that cannot be read, or CSV Python cannot parse: telemetry_file_unreadable', () => {
    expect(step({ 'gpu_metrics.csv': null }).reasons).toEqual(['telemetry_file_unreadable']);
    expect(step({ 'gpu_metrics.csv': `${csv}${'x'.repeat(140_000)}\n` }).reasons).toEqual(['telemetry_file_unreadable']);
  });

  it('an accumulator snapshot CSV Python cannot parse: cross_check_error, validity untouched', () => {
    const r = step({
      'gpu_metrics.csv': `${csv}${'x'.repeat(140_000)}\n`,
      'gpu_metrics_energy_start.csv': 'gpu,total_energy_consumption\n0,5\n',
      'gpu_metrics_energy_end.csv': 'gpu,total_energy_consumption\n0,9\n',
    });
    expect(toPlain(r.validation.get('accumulator_check')!)).toEqual({ available: false, reason: 'cross_check_error' });
    const ok = step({ 'gpu_metrics.csv': csv, 'gpu_metrics_energy_start.csv': 'gpu,x\n' });
    expect(ok.valid).toBe(true);
    expect(toPlain(ok.validation.get('accumulator_check')!)).toEqual({ available: false, reason: 'missing_end_snapshot' });
  });

  it('the expected GPU count 0, an aggregate missing or not JSON (the messages Python prints)', () => {
    const missing = step({ 'gpu_metrics.csv': csv }, { agg: { kind: 'missing' }, expectedGpus: 0 });
    expect(missing.reasons).toEqual(['invalid_expected_gpu_count', 'aggregate_result_missing']);
    expect(missing.agg).toBeUndefined();
    const bad = step({ 'gpu_metrics.csv': csv }, { agg: aggInputFromText('{"hw": ') });
    expect(bad.reasons).toEqual(['aggregate_result_unwritable']);
    expect(bad.stderr).toEqual([
      '[aggregate_power] Failed to patch agg.json: Expecting value: line 1 column 8 (char 7)',
      '[aggregate_power] Power validation failed: aggregate_result_unwritable (details: power_validation_raw.json)',
    ]);
  });

  it('no --expected-num-gpus: no count check, expected_gpu_count null', () => {
    const r = step({ 'gpu_metrics.csv': csv }, { expectedGpus: null });
    expect(r.valid).toBe(true);
    expect(r.validation.get('expected_gpu_count')).toBeNull();
    expect(r.stdout[0]).toMatch(
      /^\[aggregate_power\] avg_power_w=552\.55 avg_total_gpu_power_w=4420\.38 .* \(n=8\) -> agg\.json$/,
    );
  });

  it('a write of the aggregate that fails turns the verdict into aggregate_result_unwritable', () => {
    const r = step({ 'gpu_metrics.csv': csv }).onAggWriteError("[Errno 28] No space left on device: 'agg.json'");
    expect(r.valid).toBe(false);
    expect(r.reasons).toEqual(['aggregate_result_unwritable']);
    expect(toPlain(r.validation.get('metrics')!)).toEqual({});
    expect(r.stderr[0]).toBe("[aggregate_power] Failed to patch agg.json: [Errno 28] No space left on device: 'agg.json'");
  });

  it('GPU ids sort as _gpu_sort_key: decimal ids by value (any Unicode digits), ties in order seen, then the rest', () => {
    // As Python sorts them: U+1D7D8 is a zero, U+FF11 a one.
    expect(sortGpuIds(['10', '2', 'b', 'a', '01', '1', 'card-1', '\uff11', '\u{1d7d8}'])).toEqual([
      '\u{1d7d8}',
      '01',
      '1',
      '\uff11',
      '2',
      '10',
      'a',
      'b',
      'card-1',
    ]);
    expect(() => sortGpuIds(['0', '\u00b2'])).toThrow("invalid literal for int() with base 10: '\u00b2'");
  });
});
