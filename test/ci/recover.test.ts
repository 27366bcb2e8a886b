// `frontier ingest --recover`: a failed ingest after a green sweep, and a reused run, recovered from
// the InferenceX artifact set fixture and recorded gh api answers; each refusal; recovering twice.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecoveryRefused, recoverIngest } from '../../src/ci/recover.js';
import type { RecoverOptions } from '../../src/ci/recover.js';
import { DEFAULT_MIN_SCORE, floatThreshold, referenceThresholds, resolveThreshold } from '../../src/evals/index.js';
import { TABLES, openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { runCli } from '../helpers.js';
import { ARTIFACTS, copyDir } from '../store/helpers.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';
import {
  FAILED_INGEST,
  HEAD,
  MERGE_SHA,
  REPO_NAME,
  REUSED,
  SOURCE_SHA,
  artifacts,
  jobs,
  mergeChangelog,
  recorded,
  run,
} from './recover-fixtures.js';
import type { Json } from './recover-fixtures.js';

const newDb = (): string => join(mkdtempSync(join(tmpdir(), 'frontier-recover-')), 'frontier.db');

/** Every row of every table (ids and ingest times included): two equal listings are the same store content. */
async function listing(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = await store.db.selectFrom(t).selectAll().orderBy('id').execute();
  return out;
}

async function withStore<T>(db: string, f: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(db);
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}

/** The eval thresholds `frontier ingest` records (InferenceX's), so that the command and these calls store the same rows. */
const THRESHOLDS = referenceThresholds();
const thresholdOf = (prefix: string, task: string) =>
  resolveThreshold(THRESHOLDS, prefix, task, floatThreshold(DEFAULT_MIN_SCORE)).threshold.value;

const options = (o: Partial<RecoverOptions> & { githubDir: string }): RecoverOptions => ({
  dir: ARTIFACTS,
  thresholdOf,
  runId: '7001',
  repository: REPO_NAME,
  workflowId: 'frontier-sweep.yml',
  mainBranch: 'main',
  ...o,
});

/** The refusal a recovery meets (its code), or undefined when it goes through. */
async function refusal(o: RecoverOptions): Promise<RecoveryRefused> {
  const store = await openStore(newDb());
  try {
    await recoverIngest(store, o);
  } catch (e) {
    if (e instanceof RecoveryRefused) return e;
    throw e;
  } finally {
    await store.close();
  }
  throw new Error('the recovery went through');
}

describe('frontier ingest --recover: a failed ingest after a green sweep', () => {
  it('ingests the run as its results job would have: official (a push to main), its attempt, URL, commit and changelog', async () => {
    const db = newDb();
    const gh = recorded(FAILED_INGEST);
    await withStore(db, async (store) => {
      const { plan, summary } = await recoverIngest(store, options({ githubDir: gh }));
      expect(plan.kind).toBe('failed-ingest');
      expect(plan.ingest).toEqual({
        runId: '7001',
        attempt: 1,
        url: `https://github.com/${REPO_NAME}/actions/runs/7001`,
        commit: HEAD,
        official: true,
      });
      expect(summary).toMatchObject({ run_id: '7001', official: true, unchanged: false, changelog: 1 });
      expect(summary.benchmarks).toMatchObject({ total: 6, new: 6 });
      const stored = await store.db.selectFrom('runs').selectAll().execute();
      expect(stored.map((r) => [r.run_id, r.official, r.commit_sha, r.url, r.source_run_id])).toEqual([
        ['7001', 1, HEAD, `https://github.com/${REPO_NAME}/actions/runs/7001`, ''],
      ]);
      expect(plan.checked.join('\n')).toContain('then Ingest failure');
    });
  });

  it('a pull-request run is recovered unofficial', async () => {
    const gh = recorded({ ...FAILED_INGEST, 'runs-7001.json': run(7001, { event: 'pull_request', head_branch: 'feature' }) });
    await withStore(newDb(), async (store) => {
      const { summary } = await recoverIngest(store, options({ githubDir: gh }));
      expect([summary.official, summary.unchanged]).toEqual([false, false]);
    });
  });

  it('recovering twice leaves every row as it was (ids and ingest time too) and says so; a dry run writes nothing', async () => {
    const db = newDb();
    const gh = recorded(FAILED_INGEST);
    const dry = await withStore(db, (store) => recoverIngest(store, options({ githubDir: gh, dryRun: true })));
    expect([dry.summary.dry_run, dry.summary.benchmarks.new]).toEqual([true, 6]);
    expect(await withStore(db, async (store) => (await listing(store)).runs)).toEqual([]);

    await withStore(db, (store) => recoverIngest(store, options({ githubDir: gh })));
    const first = await withStore(db, listing);
    const bytes = readFileSync(db);
    const again = await withStore(db, (store) => recoverIngest(store, options({ githubDir: gh })));
    expect(again.summary.unchanged).toBe(true);
    expect(await withStore(db, listing)).toEqual(first);
    expect(Object.fromEntries(Object.entries(first).map(([t, rows]) => [t, rows.length]))).toMatchObject({
      runs: 1,
      benchmark_results: 6,
      changelog_entries: 1,
      run_stats: 5,
    });
    expect(readFileSync(db).equals(bytes)).toBe(true);

    // The command says it in words, and changes nothing either.
    const cli = runCli(['ingest', ARTIFACTS, '--recover', '--run-id', '7001', '--github', gh, '--repo', REPO_NAME, '--db', db]);
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain('recover run 7001: a failed ingest after a green sweep, official (a push to main)');
    expect(cli.stdout).toContain('already ingested, nothing changed: run 7001 (attempt 1)');
    expect(await withStore(db, listing)).toEqual(first);
  });

  describe('on PostgreSQL', () => {
    let pg: LocalPostgres | undefined;
    afterAll(async () => pg?.stop());

    it('recovering twice leaves every row as it was, and says so', async () => {
      pg = await startPostgres();
      const db = await pg.createDatabase('recover_twice');
      const gh = recorded(FAILED_INGEST);
      await withStore(db, (store) => recoverIngest(store, options({ githubDir: gh })));
      const first = await withStore(db, listing);
      const again = await withStore(db, (store) => recoverIngest(store, options({ githubDir: gh })));
      expect(again.summary.unchanged).toBe(true);
      expect(await withStore(db, listing)).toEqual(first);
      expect(first.benchmark_results).toHaveLength(6);
    });
  });

  it('refuses, with its code and the fix, a run that is not a green sweep whose results were kept', async () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['run-not-found', { 'runs-7001.json': run(7002) }, 'run-not-found', /is run 7002/],
      [
        'another repository',
        { 'runs-7001.json': run(7001, { repository: { full_name: 'someone/else' } }) },
        'wrong-repository',
        /belongs to someone\/else, not acme\/bench/,
      ],
      [
        'another workflow',
        { 'runs-7001.json': run(7001, { path: '.github/workflows/other.yml' }) },
        'wrong-workflow',
        /other\.yml/,
      ],
      [
        'still running',
        { 'runs-7001.json': run(7001, { status: 'in_progress', conclusion: null }) },
        'not-completed',
        /in_progress/,
      ],
      ['cancelled', { 'runs-7001.json': run(7001, { conclusion: 'cancelled' }) }, 'sweep-not-green', /concluded cancelled/],
      ['a failed row', { 'jobs-7001.json': jobs({ failedRow: true }) }, 'sweep-not-green', /sweep \(0\).*failure/],
      ['collect failed', { 'jobs-7001.json': jobs({ failedStep: 'Collect' }) }, 'results-not-kept', /“Collect” failure/],
      ['reused', { 'jobs-7001.json': jobs({ reused: true }) }, 'run-reused', /reused run/],
      [
        'expired',
        {
          'artifacts-7001.json': artifacts(
            7001,
            ['results_bmk', 'eval_results_all', 'run-stats'],
            ['results_bmk', 'eval_results_all', 'run-stats'],
          ),
        },
        'artifacts-expired',
        /no unexpired/,
      ],
      [
        'not downloaded',
        { 'artifacts-7001.json': artifacts(7001, ['results_bmk', 'run-stats', 'bmk_agentic_x', 'agentic_x']) },
        'artifacts-not-downloaded',
        /bmk_agentic_x/,
      ],
    ];
    for (const [label, files, code, message] of cases) {
      const e = await refusal(options({ githubDir: recorded({ ...FAILED_INGEST, ...files }) }));
      expect([label, e.code]).toEqual([label, code]);
      expect(e.message).toMatch(message);
      expect(e.hint).toBeTruthy();
    }
  });

  it('refuses artifacts that contradict themselves, and a changelog of another commit or none for an official run', async () => {
    const twice = copyDir(ARTIFACTS);
    const rows = JSON.parse(readFileSync(join(twice, 'results_bmk/agg_bmk.json'), 'utf8')) as unknown[];
    writeFileSync(join(twice, 'results_bmk/agg_bmk.json'), JSON.stringify([...rows, rows[0]]));
    const dup = await refusal(options({ githubDir: recorded(FAILED_INGEST), dir: twice }));
    expect([dup.code, dup.message]).toEqual(['artifacts-invalid', expect.stringContaining('[duplicate-rows]')]);

    const other = await refusal(
      options({ githubDir: recorded({ ...FAILED_INGEST, 'runs-7001.json': run(7001, { head_sha: 'e'.repeat(40) }) }) }),
    );
    expect([other.code, other.message]).toEqual([
      'changelog-mismatch',
      expect.stringContaining(`the changelog metadata is for ${HEAD}; run 7001 measured eeee`),
    ]);

    const bare = copyDir(ARTIFACTS);
    writeFileSync(
      join(bare, 'changelog-metadata/changelog_metadata.json'),
      JSON.stringify({ base_ref: 'b', head_ref: HEAD, entries: [] }),
    );
    expect((await refusal(options({ githubDir: recorded(FAILED_INGEST), dir: bare }))).code).toBe('changelog-missing');
  });
});

describe('frontier ingest --recover: a reused run', () => {
  const reused = (o: Partial<RecoverOptions> = {}, files: Record<string, unknown> = {}): RecoverOptions =>
    options({
      githubDir: recorded({ ...REUSED, ...files }),
      runId: '8001',
      sourceRunId: '6001',
      changelogFile: mergeChangelog(),
      ...o,
    });

  it("stores the source run's results with the merge run's changelog, linked both ways, once", async () => {
    const db = newDb();
    const o = reused();
    const { plan, summary } = await withStore(db, (store) => recoverIngest(store, o));
    expect([plan.kind, plan.prNumber, summary.run_id, summary.official]).toEqual(['reused-run', 42, '6001', true]);
    const first = await withStore(db, listing);
    const runs = first.runs as Json[];
    expect(runs.map((r) => [r.run_id, r.source_run_id, r.merge_run_id, r.official])).toEqual([
      ['6001', '', '8001', 1],
      ['8001', '6001', '', 1],
    ]);
    // The changelog is the merge run's (its head_ref is the merge commit), attached to the merge run.
    const merge = runs.find((r) => r.run_id === '8001')!;
    expect((first.changelog_entries as Json[]).map((c) => [c.run_pk, c.head_ref])).toEqual([[merge.id, MERGE_SHA]]);

    const again = await withStore(db, (store) => recoverIngest(store, o));
    expect(again.summary.unchanged).toBe(true);
    expect(await withStore(db, listing)).toEqual(first);
  });

  it('refuses a broken pair: a merge run that swept itself, a source not of the PR, a changelog not of the merge', async () => {
    const cases: [string, RecoverOptions, string, RegExp][] = [
      ['not reused', reused({}, { 'jobs-8001.json': jobs() }), 'run-not-reused', /swept itself/],
      [
        'merge not on main',
        reused({}, { 'runs-8001.json': run(8001, { event: 'pull_request', head_branch: 'feature', head_sha: MERGE_SHA }) }),
        'merge-not-main',
        /not a push to main/,
      ],
      ['no PR', reused({}, { 'pulls.json': [[]] }), 'no-pull-request', /maps to 0 pull requests/],
      [
        'not merged',
        reused({}, { 'pr-42.json': { number: 42, merged_at: null, head: { sha: SOURCE_SHA } } }),
        'no-pull-request',
        /not merged/,
      ],
      [
        'source off the PR',
        reused({}, { 'commits-42.json': [[{ sha: 'a'.repeat(40) }]] }),
        'source-run',
        /is not in PR #42's commit list.*run-commit-not-in-pr/,
      ],
      [
        'source a push',
        reused({}, { 'runs-6001.json': run(6001, { conclusion: 'success', head_sha: SOURCE_SHA }) }),
        'source-run',
        /not a pull_request run/,
      ],
      [
        'source of another repository',
        reused(
          {},
          {
            'runs-6001.json': run(6001, {
              event: 'pull_request',
              conclusion: 'success',
              head_sha: SOURCE_SHA,
              repository: { full_name: 'fork/bench' },
            }),
          },
        ),
        'wrong-repository',
        /source run 6001 belongs to fork\/bench/,
      ],
      ['no changelog', reused({ changelogFile: undefined }), 'changelog-missing', /no --changelog/],
      ['changelog of the source', reused({ changelogFile: mergeChangelog(SOURCE_SHA) }), 'changelog-mismatch', /measured ffff/],
    ];
    for (const [label, o, code, message] of cases) {
      const e = await refusal(o);
      expect([label, e.code]).toEqual([label, code]);
      expect(e.message).toMatch(message);
    }
  });
});

describe('frontier ingest --recover (the command)', () => {
  it('names what recovery takes from the run, and what it needs', () => {
    const gh = recorded(FAILED_INGEST);
    const base = ['ingest', ARTIFACTS, '--recover', '--db', newDb()];
    const official = runCli([...base, '--run-id', '7001', '--github', gh, '--repo', REPO_NAME, '--official']);
    expect([official.status, official.stderr]).toEqual([
      1,
      expect.stringContaining('--recover takes --official from the recorded run'),
    ]);
    const noGithub = runCli([...base, '--run-id', '7001', '--repo', REPO_NAME]);
    expect(noGithub.stderr).toContain('--recover needs --github DIR');
    const refused = runCli([...base, '--run-id', '7001', '--github', gh], { env: { GITHUB_REPOSITORY: 'someone/else' } });
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining('[wrong-repository]')]);
    expect(refused.stderr).toContain('hint: recover a run of this repository');
  });
});
