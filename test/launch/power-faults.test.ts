// GPU telemetry that goes wrong during a `frontier run`: the monitor dies mid-benchmark, its clock
// is off, a GPU is missing from it, or it samples too seldom. Each point's power verdict names the
// reason InferenceX's aggregate_power.py gives, and the benchmark result is kept all the same;
// --require-power makes such a point invalid (results still written).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Reporter, RunOptions } from '../../src/launch/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { runLocally, singleRow, strays } from './fixtures.js';

const FAULT_ENV = 'FRONTIER_SIM_SMI_FAULT';
afterEach(() => {
  delete process.env[FAULT_ENV];
});

async function runRows(rows: MatrixRow[], o: Partial<RunOptions> & { fault?: string } = {}) {
  if (o.fault) process.env[FAULT_ENV] = o.fault;
  const result = await runLocally(rows, o);
  expect(strays(result.dir.root)).toEqual([]);
  return result;
}

type Verdict = { power_valid: boolean; reasons: string[]; device_issues: Record<string, string[]> };

/** The point's files and its power verdict; the benchmark's own files are there whatever the telemetry did. */
function pointOf(r: Awaited<ReturnType<typeof runRows>>, i = 0) {
  const p = r.manifest.points[i]!;
  const rf = p.resultFilename;
  expect(existsSync(r.dir.rawFile(rf))).toBe(true);
  const agg = JSON.parse(readFileSync(r.dir.aggFile(rf), 'utf8')) as Record<string, unknown>;
  const verdict = JSON.parse(readFileSync(join(r.dir.bmkDir(rf), `power_validation_${rf}.json`), 'utf8')) as Verdict;
  const logs = join(r.dir.root, r.manifest.launches[0]!.logs!);
  return { p, agg, verdict, logs };
}

describe('frontier run: GPU telemetry that fails', () => {
  it('a monitor that dies mid-benchmark: the window is not bracketed, the point is kept, its death recorded', async () => {
    // Kill the running fake nvidia-smi once the benchmark is under way.
    let killed = false;
    const reporter: Reporter = {
      pointProgress: (_g, _p, done) => {
        if (killed || done < 4) return;
        killed = true;
        execFileSync('pkill', ['-KILL', '-P', String(process.pid), '-f', 'sim smi nvidia-smi']);
      },
    };
    const r = await runRows([singleRow({ conc: 2, osl: 128 })], { reporter });
    expect(killed).toBe(true);
    const { p, agg, verdict, logs } = pointOf(r);
    expect(p.status).toBe('ok');
    expect(verdict.reasons).toEqual(['benchmark_window_not_bracketed']);
    expect(p.power).toEqual({ valid: false, reasons: ['benchmark_window_not_bracketed'] });
    expect(agg).toMatchObject({ power_valid: 0, power_metric_schema_version: 2 });
    expect(agg.joules_per_output_token).toBeUndefined();
    const sampler = JSON.parse(readFileSync(join(logs, 'gpu_metrics_sampler.json'), 'utf8')) as Record<string, unknown>;
    expect(sampler).toMatchObject({ died_before_stop: true, exit_signal: 'SIGKILL' });
  }, 120_000);

  it('a monitor whose clock is an hour ahead of the client’s: no sample falls near the window', async () => {
    const r = await runRows([singleRow({ conc: 1 })], { fault: 'clock-jump=3600@0' });
    expect(pointOf(r).verdict.reasons).toEqual(['no_usable_power_samples']);
  }, 120_000);

  it('a GPU the monitor does not see: the GPU count does not match the deployment', async () => {
    const r = await runRows([singleRow({ conc: 1, tp: 2 })], { fault: 'hide-gpu=1' });
    const { verdict } = pointOf(r);
    expect(verdict.reasons).toEqual(['expected_gpu_count_mismatch']);
    expect(Object.keys(verdict.device_issues)).toEqual([]);
  }, 120_000);

  it('a monitor that stalls for longer than the largest gap allowed (3 s): sampling_gap_exceeded on every GPU', async () => {
    // A long window (tens of simulated seconds from the monitor's start) that the 5-s stall falls in.
    const r = await runRows([singleRow({ conc: 1, tp: 2, osl: 512, 'max-model-len': 1024, 'exp-name': 'llama3.1-8b_256_512' })], {
      fault: 'stall=5@20',
    });
    const { verdict, p } = pointOf(r);
    const raw = JSON.parse(readFileSync(r.dir.rawFile(p.resultFilename), 'utf8')) as { duration: number };
    expect(raw.duration).toBeGreaterThan(20);
    expect(verdict.reasons).toEqual(['sampling_gap_exceeded']);
    expect(verdict.device_issues).toEqual({ '0': ['sampling_gap_exceeded'], '1': ['sampling_gap_exceeded'] });
  }, 120_000);

  it('--power-interval: a monitor sampling every 5 s cannot meet the 3-s gap limit', async () => {
    const r = await runRows([singleRow({ conc: 1 })], { powerIntervalMs: 5000 });
    const { verdict, logs } = pointOf(r);
    expect(verdict.power_valid).toBe(false);
    const sampler = JSON.parse(readFileSync(join(logs, 'gpu_metrics_sampler.json'), 'utf8')) as Record<string, unknown>;
    expect(sampler.command).toContain('5000');
  }, 120_000);

  it('--require-power: a point without valid power is invalid, with the reasons, and its results are still written', async () => {
    const r = await runRows([singleRow({ conc: 1 })], { fault: 'hide-gpu=0', requirePower: true });
    const { p, agg, verdict } = pointOf(r);
    expect(verdict.reasons).toEqual(['no_usable_power_samples']);
    expect(p.status).toBe('invalid');
    expect(p.error).toBe('power not valid (--require-power): no_usable_power_samples');
    expect(agg.power_valid).toBe(0);
    expect(r.manifest.status).toBe('failed');
  }, 120_000);
});
