// Retries of flaky launches (issue 42), on this host: an engine that crashes at start-up is an
// infrastructure failure and its launch is tried again (--retries), every attempt recorded in
// run.json; a point that ran and failed its checks is a measurement failure and is never retried.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifacts } from '../../src/store/index.js';
import type { RunManifest } from '../../src/launch/index.js';
import { runCli, tempFiles } from '../helpers.js';
import { runLocally, simCluster, singleRow, pointStatuses } from './fixtures.js';

/** A cluster whose simulated engine crashes at start-up the first time it starts (the marker file says it has). */
const crashingOnce = (marker: string) =>
  simCluster({ engines: { sim: { speed: 4, 'extra-args': `--fault-start-crash-once ${marker}` } } });

const statuses = (m: RunManifest): string[] => m.points.map((p) => `${p.conc}:${p.status}`);

describe('retries of a launch that failed for infrastructure reasons', () => {
  it('--retries 1 retries an engine that crashed at start-up, and run.json records both attempts', async () => {
    const marker = join(tempFiles({}), 'crashed-once');
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2 })];
    const { manifest, dir } = await runLocally(rows, { cluster: crashingOnce(marker), retries: 1 });
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    expect(manifest.status).toBe('completed');
    const launch = manifest.launches[0]!;
    expect(launch.status).toBe('done');
    expect(launch.error).toBeUndefined();
    const [first, second] = launch.attempts!;
    expect(launch.attempts).toHaveLength(2);
    expect(first).toMatchObject({
      attempt: 1,
      nodes: [hostname()],
      outcome: 'infrastructure',
      concs: [1, 2],
      logs: `${launch.logs}/attempt-1`,
    });
    expect(first!.reason).toMatch(
      /^engine failed to start: server exited \(exit code 1\) before it was ready … frontier sim: crashed at start-up \(--fault-start-crash-once: first start/,
    );
    expect(second).toMatchObject({ attempt: 2, nodes: [hostname()], outcome: 'ok', concs: [1, 2] });
    expect(second!.reason).toBeUndefined();
    expect(Date.parse(first!.ended)).toBeLessThanOrEqual(Date.parse(second!.started));
    // The failed attempt's logs are kept beside the retry's: its engine's last words among them.
    const kept = join(dir.root, first!.logs!);
    expect(readFileSync(join(kept, 'server.log'), 'utf8')).toContain('crashed at start-up (--fault-start-crash-once');
    expect(readFileSync(join(dir.root, launch.logs!, 'server.log'), 'utf8')).toContain('serving');
    // run_stats.json keeps InferenceX's format: matrix rows, not attempts.
    expect(JSON.parse(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'))).toEqual({
      'test-sim': { n_success: 2, total: 2 },
    });
    // The run directory ingests with both attempts and both attempts' logs.
    const batch = readArtifacts(dir.root, {});
    expect(batch.attempts.map((a) => `${a.attempt}:${a.outcome}:${a.nodes.join(',')}`)).toEqual([
      `1:infrastructure:${hostname()}`,
      `2:ok:${hostname()}`,
    ]);
    expect(batch.logs.map((l) => l.name)).toContain(`${first!.logs}/server.log`);
  });

  it('without retries (a local profile’s default) the launch fails after its one attempt, which says why; --resume goes on counting', async () => {
    const marker = join(tempFiles({}), 'crashed-once');
    const { manifest, dir } = await runLocally([singleRow({ conc: 1 })], { cluster: crashingOnce(marker) });
    expect(statuses(manifest)).toEqual(['1:failed']);
    expect(manifest.launches[0]!.status).toBe('failed');
    expect(manifest.launches[0]!.attempts).toMatchObject([{ attempt: 1, outcome: 'infrastructure' }]);
    expect(manifest.launches[0]!.attempts![0]!.logs).toBeUndefined();
    expect(manifest.launches[0]!.attempts![0]!.excluded).toBeUndefined();
    // --resume tries it again as attempt 2, the first attempt's logs kept aside.
    const resumed = await runLocally([singleRow({ conc: 1 })], {
      cluster: crashingOnce(marker),
      out: dir.root,
      resume: true,
    });
    expect(pointStatuses(resumed.manifest)).toEqual(['1:ok']);
    const attempts = resumed.manifest.launches[0]!.attempts!;
    expect(attempts.map((a) => `${a.attempt}:${a.outcome}`)).toEqual(['1:infrastructure', '2:ok']);
    expect(attempts[0]!.logs).toBe(`${resumed.manifest.launches[0]!.logs}/attempt-1`);
    expect(readFileSync(join(dir.root, attempts[0]!.logs!, 'server.log'), 'utf8')).toContain('crashed at start-up');
  });

  it('an invalid point (a measurement failure) is never retried, nor is an engine that died while measured', async () => {
    const failing = simCluster({ engines: { sim: { speed: 4, 'extra-args': '--fault-error-rate 1' } } });
    const invalid = await runLocally([singleRow({ conc: 1 })], { cluster: failing, retries: 3 });
    expect(statuses(invalid.manifest)).toEqual(['1:invalid']);
    expect(invalid.manifest.launches[0]!.attempts).toHaveLength(1);
    expect(invalid.manifest.launches[0]!.attempts![0]).toMatchObject({ attempt: 1, outcome: 'measurement' });
    expect(invalid.manifest.launches[0]!.attempts![0]!.reason).toMatch(/^conc 1 invalid: .*requests failed/);
    // Its raw result and the reason stay as measured: nothing was run again over them.
    expect(existsSync(invalid.dir.rawFile(invalid.manifest.points[0]!.resultFilename))).toBe(true);
    expect(readdirSync(join(invalid.dir.root, invalid.manifest.launches[0]!.logs!))).not.toContain('attempt-1');

    // conc 1 sends 12 requests (2 warmups), conc 2 then dies at its 14th: after it served, not a start-up failure.
    const crashing = simCluster({ engines: { sim: { speed: 4, 'extra-args': '--fault-crash-after 25' } } });
    const died = await runLocally([singleRow({ conc: 1 }), singleRow({ conc: 2 })], { cluster: crashing, retries: 2 });
    expect(statuses(died.manifest)).toEqual(['1:ok', '2:failed']);
    expect(died.manifest.launches[0]!.attempts).toMatchObject([{ attempt: 1, outcome: 'measurement' }]);
    expect(died.manifest.launches[0]!.attempts![0]!.reason).toMatch(
      /^conc 2: server exited \(exit code 1\) during the benchmark/,
    );
  });

  it('frontier run --retries overrides the profile (a local profile retries nothing), and takes a whole number', () => {
    const dir = tempFiles({});
    const files = tempFiles({
      'matrix.json': JSON.stringify([singleRow({ conc: 1 })]),
      'clusters/flaky.yaml': [
        'scheduler: local',
        'nodes: 1',
        'gpus-per-node: 8',
        'gpu: h100',
        'simulate: true',
        'health-check: { attempts: 100, interval: 0.1 }',
        'engines:',
        `  sim: { speed: 4, extra-args: '--fault-start-crash-once ${join(dir, 'crashed-once')}' }`,
        '',
      ].join('\n'),
    });
    const args = ['-C', files, 'run', '--matrix', join(files, 'matrix.json'), '--cluster', 'flaky'];
    const bad = runCli([...args, '--out', join(dir, 'bad'), '--retries', '-1']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--retries -1: expected a whole number ≥ 0');
    const out = join(dir, 'run');
    const result = runCli([...args, '--out', out, '--retries', '1']);
    expect(result.stderr).toMatch(
      /attempt 1 failed \(infrastructure on \S+: engine failed to start: .* crashed at start-up .*\); retrying the launch \(retry 1 of 1\)\n/,
    );
    expect(result.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.launches[0]!.attempts!.map((a) => a.outcome)).toEqual(['infrastructure', 'ok']);
  });
});
