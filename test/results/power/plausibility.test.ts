// Frontier's plausibility bounds on single-node telemetry (docs/power.md, "Plausibility"): the
// hostile cases of test/fixtures/power/implausible/, which the reference accepts as valid.
process.env.TZ = 'UTC';

import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsCli } from '../results-cli.js';
import { LOCAL_PROFILE } from '../../../src/clusters/index.js';
import { launchNode } from '../../../src/launch/power.js';
import type { RunnablePlan } from '../../../src/plan/index.js';
import { loads } from '../../../src/pycompat/index.js';
import type { PyJson } from '../../../src/pycompat/index.js';
import { maxPlausiblePowerW, memoryTelemetry, runAggregatePowerFs, runSingleNode } from '../../../src/results/index.js';
import type { NodeBounds } from '../../../src/results/index.js';
import { powerBoundsOf } from '../../../src/sim/index.js';
import { REPO } from '../../helpers.js';
import { DEVICES, buildPackage } from './multinode-fixture.js';

const CASES = join(REPO, 'test/fixtures/power/implausible');
const VALID = join(REPO, 'test/fixtures/power/single-node/nvidia-valid-8gpu');
const H200 = powerBoundsOf('h200');

/** A copy of a case folder to run in. */
function workOn(name: string): string {
  const work = mkdtempSync(join(tmpdir(), 'frontier-implausible-'));
  for (const file of readdirSync(join(CASES, name))) cpSync(join(CASES, name, file), join(work, file));
  return work;
}

interface Sidecar {
  power_valid: boolean;
  reasons: string[];
  observed_gpu_ids: string[];
  metrics: Record<string, number>;
  plausibility: Record<string, unknown> & { first_rejected_rows: Record<string, unknown>[] };
}

function sidecarOf(work: string): Sidecar {
  return JSON.parse(readFileSync(join(work, 'power_validation_raw.json'), 'utf8')) as Sidecar;
}

function runCase(name: string, node?: NodeBounds) {
  const work = workOn(name);
  const run = runAggregatePowerFs(
    {
      csv: 'gpu_metrics.csv',
      benchResult: 'raw.json',
      aggResult: 'agg.json',
      expectedGpus: 8,
      requirePower: true,
      ...(node ? { node } : {}),
    },
    work,
  );
  return { run, sidecar: sidecarOf(work), agg: JSON.parse(readFileSync(join(work, 'agg.json'), 'utf8')) };
}

const EXPECTED: Record<string, { reason: string; row: Record<string, unknown> }> = {
  'board-power-99999999': {
    reason: 'power_sample_above_board_limit',
    row: { reason: 'power_sample_above_board_limit', row: 25, gpu: '0', power_w: 99999999 },
  },
  'gpu-index-99': {
    reason: 'gpu_index_out_of_range',
    row: { reason: 'gpu_index_out_of_range', row: 32, gpu: '99', power_w: 717.56 },
  },
  'gpu-index-zero-padded': {
    reason: 'gpu_index_not_canonical',
    row: { reason: 'gpu_index_not_canonical', row: 29, gpu: '00', power_w: 511.16 },
  },
};

describe('implausible telemetry: the reference accepts it, Frontier refuses it', () => {
  it('has every case the issue names', () => {
    expect(readdirSync(CASES).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name}: ${expected.reason}, the first refused row in the sidecar, no metrics, exit 1 with REQUIRE_POWER`, () => {
      const reference = JSON.parse(readFileSync(join(CASES, name, 'reference_verdict.json'), 'utf8'));
      expect(reference.power_valid).toBe(true); // recorded by scripts/power-implausible-reference.py

      const { run, sidecar, agg } = runCase(name, H200);
      expect(sidecar.power_valid).toBe(false);
      expect(sidecar.reasons).toContain(expected.reason);
      expect(sidecar.plausibility).toMatchObject({
        gpu: 'h200',
        board_power_w: 700,
        max_plausible_power_w: 1050,
        gpus_per_node: 8,
      });
      expect(sidecar.plausibility.first_rejected_rows[0]).toMatchObject(expected.row);
      expect(sidecar.metrics).toEqual({});
      expect(agg.power_valid).toBe(0);
      expect(agg).not.toHaveProperty('avg_power_w');
      expect(run.exitCode).toBe(1);
      expect(run.stderr.at(-1)).toContain(`Power validation failed: ${sidecar.reasons.join(', ')}`);
    });

    it(`${name}: without the node (the reference's checks alone) it stays what the reference says`, () => {
      const reference = JSON.parse(readFileSync(join(CASES, name, 'reference_verdict.json'), 'utf8'));
      const { sidecar } = runCase(name);
      expect(sidecar.power_valid).toBe(reference.power_valid);
      expect(sidecar.observed_gpu_ids).toEqual(reference.observed_gpu_ids);
      expect(sidecar).not.toHaveProperty('plausibility');
    });
  }

  it('zero-padded ids are refused, not counted: only 0-3 are observed, so the count of 8 is not met either', () => {
    const { sidecar } = runCase('gpu-index-zero-padded', H200);
    expect(sidecar.observed_gpu_ids).toEqual(['0', '1', '2', '3']);
    expect(sidecar.reasons).toEqual(['gpu_index_not_canonical', 'expected_gpu_count_mismatch']);
  });

  it('an unknown GPU gets the widest catalogued bounds: 99,999,999 W and index 99 are still refused', () => {
    const node = powerBoundsOf('h20-mystery');
    expect(node).toMatchObject({ boardPowerW: 1400, gpusPerNode: 8 });
    expect(node.gpu).toContain('not in the catalog');
    expect(runCase('board-power-99999999', node).sidecar.reasons).toContain('power_sample_above_board_limit');
    expect(runCase('gpu-index-99', node).sidecar.reasons).toContain('gpu_index_out_of_range');
  });
});

describe('the bounds', () => {
  const csv = readFileSync(join(VALID, 'gpu_metrics.csv'), 'utf8');
  const raw = loads(readFileSync(join(VALID, 'raw.json'), 'utf8'));
  const step = (text: string, node: NodeBounds = H200) =>
    runSingleNode(
      {
        csvPath: 'gpu_metrics.csv',
        benchResultPath: 'raw.json',
        bench: { kind: 'parsed', raw },
        aggPath: 'agg.json',
        agg: { kind: 'parsed', agg: new Map<string, PyJson>() },
        expectedGpus: 8,
        node,
        validationPath: 'power_validation_raw.json',
        requirePower: false,
      },
      memoryTelemetry({ 'gpu_metrics.csv': text }),
    );
  /** The valid recording with GPU 3's reading at 11:53:40, inside the window, replaced. */
  const withReading = (watts: string): string => csv.replace('11:53:40.008, 3, 500.06 W,', `11:53:40.008, 3, ${watts},`);

  it('a reading at board power + 50 % is accepted, one a hundredth of a watt above it refused', () => {
    expect(maxPlausiblePowerW(H200)).toBe(1050);
    expect(step(withReading('1050.00 W')).valid).toBe(true);
    expect(step(withReading('1050.01 W')).reasons).toEqual(['power_sample_above_board_limit']);
  });

  it('negative, NaN and [N/A] readings: invalid_power_sample (as the reference)', () => {
    for (const bad of ['-5.00 W', 'NaN W', '[N/A]'])
      expect(step(withReading(bad)).reasons, bad).toEqual(['invalid_power_sample']);
  });

  it('GPU ids: canonical integers below the node count (spaces around them are the CSV reader’s)', () => {
    const node = { gpu: 'h200', boardPowerW: 700, gpusPerNode: 4 };
    // GPUs 4-7 of the recording are outside a 4-GPU node.
    expect(step(csv, node).reasons).toEqual(['gpu_index_out_of_range', 'expected_gpu_count_mismatch']);
    for (const id of ['+1', '1.0', 'GPU-1', '\uff11', '-0'])
      expect(step(csv.replace('11:53:40.019, 1, ', `11:53:40.019, ${id}, `)).reasons, id).toContain('gpu_index_not_canonical');
  });

  it('a valid recording within the bounds: valid, and the sidecar is the reference’s (no plausibility key)', () => {
    const r = step(csv);
    expect(r.valid).toBe(true);
    expect(r.validation.has('plausibility')).toBe(false);
  });

  it("frontier run's node: the launch plan's hardware, the cluster's GPUs per node", () => {
    const plan = (hardware: string): RunnablePlan => ({ hardware }) as unknown as RunnablePlan;
    expect(launchNode(plan('mi355x'), { ...LOCAL_PROFILE, gpusPerNode: 4 })).toEqual({
      gpu: 'mi355x',
      boardPowerW: 1400,
      gpusPerNode: 4,
    });
    expect(launchNode(plan('b200'), LOCAL_PROFILE)).toMatchObject({ gpu: 'b200', boardPowerW: 1000 });
  });
});

describe('the multinode (DCGM package) step', () => {
  it("a sample above the deployment's board power: power_sample_above_board_limit, naming the row", () => {
    const watts = Object.fromEntries(DEVICES.map(([h, i, , , w]) => [`${h}/${i}`, w]));
    const pkg = buildPackage({
      powerFn: (h, i, ts) => (h === 'node-p' && i === 1 && ts === 1030 ? 99999999 : watts[`${h}/${i}`]!),
    });
    try {
      const plain = pkg.run();
      expect(plain.sidecar.power_valid).toBe(true); // the reference's checks alone
      const bounded = pkg.run({ node: powerBoundsOf('gb200') });
      expect(bounded.sidecar.power_valid).toBe(false);
      expect(bounded.sidecar.reasons).toEqual(['power_sample_above_board_limit']);
      expect(bounded.sidecar.failures).toEqual([
        "samples.csv: node-p GPU 1 reads 99999999.0 W at 1030.0, above 1800.0 W (gb200's board power 1200.0 W + 50 %)",
      ]);
      expect(bounded.agg.power_valid).toBe(0);
      expect(bounded.agg).not.toHaveProperty('avg_power_w');
      expect(pkg.run({ node: powerBoundsOf('gb200'), requirePower: true }).exitCode).toBe(1);
    } finally {
      pkg.remove();
    }
  });
});

describe('the command lines', () => {
  const cli = (args: string[], env: Record<string, string>, cwd: string) => resultsCli(args, cwd, env);
  const powerArgs = ['power', '--csv', 'gpu_metrics.csv', '--bench-result', 'raw.json', '--agg-result', 'agg.json'];

  it('frontier results power: the node from --gpu/--gpus-per-node, else RUNNER_TYPE, else the widest bounds', async () => {
    const byRunner = workOn('gpu-index-99');
    await cli([...powerArgs, '--expected-num-gpus', '8'], { RUNNER_TYPE: 'mi300x-amd' }, byRunner);
    expect(sidecarOf(byRunner).plausibility).toMatchObject({ gpu: 'mi300x', board_power_w: 750, gpus_per_node: 8 });

    const byFlag = workOn('gpu-index-99');
    await cli([...powerArgs, '--expected-num-gpus', '8', '--gpu', 'gb200', '--gpus-per-node', '100'], {}, byFlag);
    expect(sidecarOf(byFlag).power_valid).toBe(true);

    const plain = workOn('board-power-99999999');
    const out = await cli([...powerArgs, '--expected-num-gpus', '8'], { REQUIRE_POWER: '1' }, plain);
    expect(sidecarOf(plain).reasons).toEqual(['power_sample_above_board_limit', 'no_usable_power_samples']);
    expect(out.exitCode).toBe(1);
  });

  it('frontier results power --gpus-per-node 0: a clear error, nothing written', async () => {
    const work = workOn('gpu-index-99');
    await expect(cli([...powerArgs, '--expected-num-gpus', '8', '--gpus-per-node', '0'], {}, work)).rejects.toThrow(
      '--gpus-per-node 0: a node has at least one GPU',
    );
    expect(readdirSync(work)).not.toContain('power_validation_raw.json');
  });
});
