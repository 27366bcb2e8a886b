import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunManifest } from '../../src/launch/index.js';
import { CLI, runCli, runCliAsync, tempFiles } from '../helpers.js';
import { disaggRow, engineServing, singleRow, strays } from '../launch/fixtures.js';
import { waitFor } from '../support/wait.js';

const manifestOf = (out: string): RunManifest => JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;

// conc 1 at 2,000 output tokens in real time (speed 1): the run is busy for minutes.
const SLOW_CLUSTER =
  'scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\nsimulate: true\nhealth-check: { attempts: 100, interval: 0.1 }\nengines:\n  sim: { speed: 1 }\n';

/** `frontier run` (the dist build) of one slow sim point, in a process of its own. */
function startSlowRun() {
  const dir = tempFiles({
    'matrix.json': JSON.stringify([singleRow({ conc: 1, osl: 2000, 'max-model-len': 2400 })]),
    'clusters/slow.yaml': SLOW_CLUSTER,
  });
  const out = join(dir, 'run');
  const child = spawn(process.execPath, [CLI, 'run', '--matrix', 'matrix.json', '--cluster', 'slow', '--out', out], {
    cwd: dir,
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Kill whatever the test left running: frontier and every process carrying this run's marker. */
  const cleanup = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    for (const pid of strays(out))
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
  };
  return { dir, out, child, exited, cleanup };
}

function describeProcess(pid: number): string {
  try {
    return `  ${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')}`;
  } catch {
    return `  ${pid}: (gone)`;
  }
}

/** Wait up to `timeoutMs` for the run's processes (those with its log folder `logs`) to be gone, `after` something. */
async function processesGone(logs: string, after: string, timeoutMs: number): Promise<void> {
  await waitFor(() => strays(logs).length === 0, {
    timeoutMs,
    intervalMs: 100,
    what: () => `the run's processes to end after ${after}; still running:\n${strays(logs).map(describeProcess).join('\n')}`,
  });
}

describe('frontier run', () => {
  it('runs rows of the example catalog on the local-sim profile and prints the summary table', async () => {
    const matrix = runCli(
      ['-C', 'examples', 'matrix', 'test-config', '--config-files', 'examples/configs/example-master.yaml'].concat([
        '--config-keys',
        'llama3.1-8b-fp8-h100-sim',
        '--conc',
        '1',
        '2',
      ]),
    );
    expect(matrix.status).toBe(0);
    const dir = tempFiles({ 'matrix.json': matrix.stdout });
    const out = join(dir, 'run');
    const result = await runCliAsync([
      '-C',
      'examples',
      'run',
      '--matrix',
      join(dir, 'matrix.json'),
      '--filter',
      'isl=1024',
      '--out',
      out,
    ]);
    expect(result.stderr).toContain('cluster: local-sim');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/llama3\.1-8b fp8 sim TP1 1024\/64\s+1\s+ok/);
    expect(result.stdout).toMatch(/llama3\.1-8b fp8 sim TP1 1024\/64\s+2\s+ok/);
    expect(result.stdout).toContain('2 of 2 points ok · run completed');
    expect(result.stdout).toContain(`run directory: ${out}`);
    const manifest = manifestOf(out);
    expect(manifest).toMatchObject({ status: 'completed', cluster: { name: 'local-sim' } });
    expect(manifest.points.map((p) => p.conc)).toEqual([1, 2]);
  });

  it('--dry-run prints each launch script and starts nothing', () => {
    const dir = tempFiles({ 'matrix.json': JSON.stringify([disaggRow({ conc: [4] }), singleRow({ conc: 2 })]) });
    const out = join(dir, 'run');
    const local = runCli([
      '-C',
      'examples',
      'run',
      '--matrix',
      join(dir, 'matrix.json'),
      '--cluster',
      'local-sim',
      '--dry-run',
      '--out',
      out,
    ]);
    expect(local.status).toBe(0);
    expect(local.stdout).toContain('cluster local-sim (local, simulated engines)');
    expect(local.stdout).toContain('16 GPUs on 2 node(s); engine sim');
    expect(local.stdout).toContain('# prefill-0 (prefill; host 127.0.0.1, GPUs 0,1,2,3,4,5,6,7)');
    expect(local.stdout).toContain('--role prefill');
    expect(local.stdout).toContain('--role decode');
    expect(local.stdout).toMatch(/\| .*frontier\.cjs sim router/);
    expect(existsSync(out)).toBe(false);
    const slurm = runCli([
      '-C',
      'examples',
      'run',
      '--matrix',
      join(dir, 'matrix.json'),
      '--cluster',
      'example-slurm',
      '--dry-run',
      '--out',
      out,
    ]);
    expect(slurm.status).toBe(0);
    expect(slurm.stdout).toContain('#SBATCH --nodes=2');
    expect(slurm.stdout).toContain('srun');
    expect(existsSync(out)).toBe(false);
  });

  it('SIGTERM stops the engines, and the manifest says the run was interrupted (exit 130)', async () => {
    const run = startSlowRun();
    try {
      const logs = await engineServing(run.out);
      expect(strays(logs).length).toBeGreaterThan(0);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(130);
      expect(manifestOf(run.out).status).toBe('interrupted');
      // Its last act was a SIGKILL to each engine's process group: what was left there may take a moment to go.
      await processesGone(logs, 'SIGTERM of frontier run', 5_000);
    } finally {
      await run.cleanup();
    }
  });

  it('kill -9 of frontier run takes its engines with it', async () => {
    const run = startSlowRun();
    try {
      const logs = await engineServing(run.out);
      expect(strays(logs).length).toBeGreaterThan(0);
      run.child.kill('SIGKILL');
      await run.exited;
      await processesGone(logs, 'kill -9 of frontier run', 15_000);
    } finally {
      await run.cleanup();
    }
  });

  it('--resume stops the engines a killed run left running, says so, and goes on', async () => {
    const run = startSlowRun();
    try {
      const logs = await engineServing(run.out);
      const recorded = JSON.parse(readFileSync(join(run.out, 'engines.json'), 'utf8')) as { engines: { pid: number }[] };
      const engine = recorded.engines[0]!.pid;
      // The engine's watchdog dies with frontier (as the OOM killer might do): the engine is left.
      for (const pid of strays(logs)) if (pid !== engine) process.kill(pid, 'SIGKILL');
      run.child.kill('SIGKILL');
      await run.exited;
      await waitFor(() => strays(logs).join() === String(engine), {
        what: () => `only the engine (${engine}) to be left; still running:\n${strays(logs).map(describeProcess).join('\n')}`,
      });
      writeFileSync(join(run.dir, 'clusters/slow.yaml'), SLOW_CLUSTER.replace('speed: 1 ', 'speed: 200 '));
      const resumed = await runCliAsync(['run', '--matrix', 'matrix.json', '--cluster', 'slow', '--out', run.out, '--resume'], {
        cwd: run.dir,
      });
      expect(resumed.stderr).toContain(
        `--resume: stopped server (pid ${engine}, logs in ${logs}), left running by the previous run`,
      );
      expect(resumed.status).toBe(0);
      expect(manifestOf(run.out).status).toBe('completed');
      await processesGone(logs, 'frontier run --resume', 5_000);
      expect(existsSync(join(run.out, 'engines.json'))).toBe(false);
    } finally {
      await run.cleanup();
    }
  });

  it('--resume over a corrupt or foreign run.json says which file and what to do, and changes nothing', () => {
    for (const [what, text] of [
      ['truncated', '{"version": 1, "matrix": {"sha2'],
      ['not a manifest', '{"version": 1, "points": "all"}'],
      [
        'a point without status',
        JSON.stringify({ version: 1, matrix: { sha256: 'x' }, started: 'now', groups: [], points: [{}] }),
      ],
    ]) {
      const dir = tempFiles({ 'rows.json': JSON.stringify([singleRow()]), 'run/run.json': text! });
      const out = join(dir, 'run');
      const result = runCli(['-C', 'examples', 'run', '--matrix', join(dir, 'rows.json'), '--out', out, '--resume']);
      expect(result.status, what).toBe(1);
      expect(result.stderr, what).toMatch(
        new RegExp(`^frontier: error: ${join(out, 'run.json')} is not a run manifest \\(.+\\), so --resume cannot tell`, 'm'),
      );
      expect(result.stderr, what).toContain('Repair or restore that file, or start afresh with another --out');
      expect(result.stderr, what).not.toMatch(/^\s+at /m);
      expect(readFileSync(join(out, 'run.json'), 'utf8'), what).toBe(text);
      expect(readdirSync(out), what).toEqual(['run.json']);
    }
  });

  it('says what is wrong with its input', () => {
    const dir = tempFiles({ 'bad.json': '{"not": "rows"', 'rows.json': JSON.stringify([singleRow()]) });
    const notJson = runCli(['run', '--matrix', join(dir, 'bad.json')]);
    expect(notJson.status).toBe(1);
    expect(notJson.stderr).toContain(`--matrix ${join(dir, 'bad.json')}: not JSON`);
    const noRows = runCli(['run', '--matrix', join(dir, 'rows.json'), '--filter', 'framework=vllm']);
    expect(noRows.status).toBe(1);
    expect(noRows.stderr).toContain('no rows match the filters');
    const badFilter = runCli(['run', '--matrix', join(dir, 'rows.json'), '--filter', 'framework']);
    expect(badFilter.stderr).toContain('--filter framework: expected FIELD=GLOB');
    const unknown = runCli(['-C', 'examples', 'run', '--matrix', join(dir, 'rows.json'), '--cluster', 'nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/nope/);
    expect(unknown.stderr).toMatch(/local-sim/);
  });

  it('refuses a row whose names would make it write outside its run directory, before writing anything', () => {
    const dir = tempFiles({ 'rows.json': JSON.stringify([singleRow({ 'model-prefix': '../../escaped' })]) });
    const out = join(dir, 'run');
    const result = runCli(['-C', 'examples', 'run', '--matrix', join(dir, 'rows.json'), '--cluster', 'local-sim', '--out', out]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`row 0: model-prefix "../../escaped" cannot be part of a file name`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['rows.json']);
  });
});

describe('frontier probe', () => {
  it('waits until every URL answers 200 (with the text asked for), and fails after its attempts', async () => {
    let calls = 0;
    const server = createServer((req, res) => {
      calls++;
      if (calls < 3) res.writeHead(503).end('loading');
      else res.writeHead(200).end('{"data":[{"id":"my-model"}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/models`;
    try {
      const ok = await runCliAsync(['probe', `${url}@my-model`, '--attempts', '20', '--interval', '0.05']);
      expect(ok.status).toBe(0);
      expect(ok.stdout).toContain(`ready: ${url}@my-model`);
      expect(calls).toBeGreaterThanOrEqual(3);
      const missing = await runCliAsync(['probe', `${url}@other-model`, '--attempts', '3', '--interval', '0.05']);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain('not ready after 3 attempts');
    } finally {
      server.close();
    }
  });

  it('--watch-pid fails at once when the engine process has exited', async () => {
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    // 100 attempts a second apart: only the watched PID makes it fail within the test's timeout.
    const result = await runCliAsync([
      'probe',
      'http://127.0.0.1:9/health',
      '--attempts',
      '100',
      '--interval',
      '1',
      '--watch-pid',
      String(gone.pid),
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`process ${gone.pid} exited before the engine was ready`);
  });
});
