import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, runCliAsync } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson, historyRuns } from '../store/helpers.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';

type Row = Record<string, unknown>;

/** The fixture with every throughput 20% lower: a run that regressed. */
function slowerRun(): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) =>
    (rows as Row[]).map((r) => ({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * 0.8 })),
  );
  return dir;
}

describe('frontier ingest, compare and token on the command line', () => {
  const db = join(mkdtempSync(join(tmpdir(), 'frontier-cli-')), 'frontier.db');

  it('ingest reports what it wrote, and that a second ingest changed nothing; bad input names the fix', () => {
    const missing = runCli(['ingest', ARTIFACTS, '--db', db]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('an InferenceX artifact set does not name its run: pass --run-id (the GitHub run id)');
    expect(missing.stderr).toContain('nothing was written');

    const first = runCli(['ingest', ARTIFACTS, '--run-id', '100', '--official', '--date', '2026-08-21', '--db', db]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(`ingested run 100 (attempt 1, official, 2026-08-21) into ${db}`);
    expect(first.stdout).toContain('points: 6 (6 new)');
    expect(first.stdout).toContain('evals: 3 (3 new)');
    const again = runCli(['ingest', ARTIFACTS, '--run-id', '100', '--official', '--db', db]);
    expect(again.stdout).toContain('(already stored: nothing changed)');
    // The stored date is kept when a re-ingest names none.
    expect(again.stdout).toContain('official, 2026-08-21');

    expect(runCli(['ingest', ARTIFACTS, '--run-id', '100', '--official', '--unofficial', '--db', db]).stderr).toContain(
      'pick one',
    );
    expect(runCli(['ingest', ARTIFACTS, '--run-id', '100', '--attempt', '0', '--db', db]).stderr).toContain(
      '--attempt 0: expected a positive integer',
    );
  });

  it('compare prints the markdown report and exits 1 on a significant regression, 0 on an inconclusive one', () => {
    runCli(['ingest', slowerRun(), '--run-id', 'pr-7', '--db', db]);
    // One official sample and no history of the spread: a 20% drop is inconclusive, and says what would settle it.
    const unsure = runCli(['compare', 'pr-7', '--db', db]);
    expect(unsure.status).toBe(0);
    expect(unsure.stdout).toContain('**0 regressions**');
    expect(unsure.stdout).toContain('Inconclusive, and what would settle it');
    for (const [i, dir] of historyRuns(ARTIFACTS).entries())
      expect(runCli(['ingest', dir, '--run-id', `h${i}`, '--official', '--date', `2026-08-0${i + 1}`, '--db', db]).status).toBe(
        0,
      );
    const c = runCli(['compare', 'pr-7', '--db', db]);
    expect(c.status).toBe(1);
    expect(c.stdout).toContain('## Run pr-7 against the official results');
    expect(c.stdout).toContain('**6 regressions**');
    expect(c.stdout).toMatch(/ −20\.0% \[−2\d\.\d, −1\d\.\d\] ▼/);
    const loose = runCli(['compare', 'pr-7', '--threshold', '25', '--json', '--db', db]);
    expect(loose.status).toBe(0);
    expect(JSON.parse(loose.stdout)).toMatchObject({ run_id: 'pr-7', method: { min_effect_pct: 25 }, regressions: 0 });
    expect(runCli(['compare', 'pr-7', '--min-effect', '25', '--json', '--db', db]).stdout).toBe(loose.stdout);
    expect(runCli(['compare', 'pr-7', '--alpha', '0.9', '--db', db]).stderr).toContain(
      "option '--alpha <rate>' argument '0.9' is invalid. expected a rate in [0.0001, 0.5]",
    );
    // --format json is the spelling every command takes; --json stays its alias.
    expect(runCli(['compare', 'pr-7', '--threshold', '25', '--format', 'json', '--db', db]).stdout).toBe(loose.stdout);
    const ingested = runCli(['ingest', slowerRun(), '--run-id', 'pr-8', '--dry-run', '--format', 'json', '--db', db]);
    expect(JSON.parse(ingested.stdout)).toEqual(
      JSON.parse(runCli(['ingest', slowerRun(), '--run-id', 'pr-8', '--dry-run', '--json', '--db', db]).stdout),
    );
    expect(runCli(['compare', 'nope', '--db', db]).stderr).toContain('no run nope in');
  });

  it('serve: the API on a port, ingest with a token from token create, and a clean stop on SIGTERM', async () => {
    const token = runCli(['token', 'create', 'ci', '--db', db]).stdout.trim();
    expect(token).toMatch(/^ftk_/);
    expect(runCli(['token', 'list', '--db', db]).stdout).toMatch(/^ci\tcreated .*\tlast used never\n$/);

    const server = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = / on (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
          if (m) resolve(m[1]!);
        });
        server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      expect(await (await fetch(`${url}/api/v1/health`)).json()).toEqual({
        ok: true,
        dialect: 'sqlite',
        queries: { running: 0, queued: 0 },
      });

      const archive = join(mkdtempSync(join(tmpdir(), 'frontier-up-')), 'run.tar.gz');
      execFileSync('tar', ['-czf', archive, '-C', ARTIFACTS, '.']);
      const post = (auth: string) =>
        fetch(`${url}/api/v1/ingest?run_id=http-9`, {
          method: 'POST',
          body: readFileSync(archive),
          headers: { 'content-type': 'application/gzip', authorization: auth },
        });
      expect((await post('Bearer nope')).status).toBe(401);
      const ok = await post(`Bearer ${token}`);
      expect(ok.status).toBe(201);
      const runs = (await (await fetch(`${url}/api/v1/runs`)).json()) as Row[];
      expect(runs.map((r) => r.run_id)).toContain('http-9');
      expect(runCli(['token', 'list', '--db', db]).stdout).not.toContain('last used never');

      const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    expect(runCli(['token', 'revoke', 'ci', '--db', db]).stdout).toContain('revoked');
    expect(runCli(['token', 'revoke', 'ci', '--db', db]).stderr).toContain('no token named "ci"');
  });
});

describe('the command line on PostgreSQL ($FRONTIER_DB)', () => {
  let pg: LocalPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => pg?.stop());

  it('ingests into and compares from a PostgreSQL store named by FRONTIER_DB', async () => {
    const env = { FRONTIER_DB: pg.url };
    const first = await runCliAsync(['ingest', ARTIFACTS, '--run-id', '1', '--official'], { env });
    expect(first.stdout).toContain('points: 6 (6 new)');
    expect(first.stdout).toContain(`into ${pg.url}`);
    for (const [i, dir] of historyRuns(ARTIFACTS).entries())
      await runCliAsync(['ingest', dir, '--run-id', `h${i}`, '--official', '--date', `2025-01-0${i + 1}`], { env });
    await runCliAsync(['ingest', slowerRun(), '--run-id', '2'], { env });
    const c = await runCliAsync(['compare', '2', '--json'], { env });
    expect(JSON.parse(c.stdout)).toMatchObject({ regressions: 6, unmatched: 0 });
  });
});
