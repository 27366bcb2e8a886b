// The generated /stage-results workflow (frontier-stage-results.yml), run locally by
// test/support/actions-runner.ts: a writer's comment stages the pull request's sweep run into the
// store, apart from the record, and the outcome is commented; a reader's comment is refused with
// the reason commented, and nothing is downloaded or written.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { benchmarks, ingestBatch, openStore, readArtifacts, runs } from '../../src/store/index.js';
import { CLI, runCli, tempFiles } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';
import type { RunResult } from '../support/actions-runner.js';
import { ARTIFACTS } from '../store/helpers.js';
import { catalogRepository } from './repository.js';
import type { CatalogRepository } from './repository.js';

const WORKFLOW = '.github/workflows/frontier-stage-results.yml';
const SWEEP_RUN = 9001;

function repository(): CatalogRepository {
  const repo = catalogRepository();
  const init = runCli(['ci', 'init', '--dir', repo.dir, '--dashboard-url', 'https://frontier.example']);
  expect(init.status, init.stderr).toBe(0);
  return repo;
}

const commentEvent = (user: string, body = '/stage-results') =>
  JSON.stringify({
    action: 'created',
    repository: { full_name: 'acme/catalog' },
    issue: {
      number: 2,
      title: 'The v2 sim image',
      body: '',
      pull_request: { url: 'https://api.github.com/repos/acme/catalog/pulls/2' },
    },
    comment: { id: 77, body, user: { login: user }, author_association: 'MEMBER', created_at: '2026-09-01T00:00:00Z' },
  });

/** The comment run against recorded answers: `permission` is what GitHub says of the commenter. */
function stage(
  repo: CatalogRepository,
  db: string,
  user: string,
  permission: string,
  body = '/stage-results',
  artifacts: Record<string, string> = { [SWEEP_RUN]: ARTIFACTS },
): RunResult {
  const sweepRun = {
    id: SWEEP_RUN,
    event: 'pull_request',
    status: 'completed',
    conclusion: 'success',
    path: '.github/workflows/frontier-sweep.yml',
    head_sha: repo.head,
    head_branch: 'pr',
    run_attempt: 1,
    html_url: `https://github.com/acme/catalog/actions/runs/${SWEEP_RUN}`,
  };
  return runWorkflowLocally({
    repo: repo.dir,
    sha: repo.head,
    workflow: WORKFLOW,
    eventName: 'issue_comment',
    event: commentEvent(user, body),
    frontier: CLI,
    runId: 9100,
    secrets: { FRONTIER_DB: db },
    api: {
      [`collaborators/${user}/permission`]: { permission, role_name: permission, user: { login: user } },
      'pulls/2': { number: 2, labels: [{ name: 'full-sweep-enabled' }], head: { ref: 'pr', sha: repo.head }, merged_at: null },
      'actions/workflows/frontier-sweep.yml/runs': {
        total_count: 1,
        workflow_runs: [sweepRun],
      },
      [`actions/runs/${SWEEP_RUN}`]: sweepRun,
      [`actions/runs/${SWEEP_RUN}/artifacts`]: {
        total_count: 4,
        artifacts: ['results_bmk', 'eval_results_all', 'run-stats', 'changelog-metadata'].map((name) => ({
          name,
          expired: false,
        })),
      },
    },
    runArtifacts: artifacts,
  });
}

const failures = (r: RunResult): string =>
  r.jobs
    .flatMap((j) => j.steps.filter((s) => s.conclusion === 'failure').map((s) => `${j.path} › ${s.name}:\n${s.log}`))
    .join('\n\n');

describe('the generated /stage-results workflow, run locally', () => {
  const repo = repository();

  it('a writer’s comment stages the PR’s sweep run apart from the record, and says so on the PR', async () => {
    const db = join(tempFiles({}), 'frontier.db');
    const store = await openStore(db);
    try {
      await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'main-1', official: true, date: '2026-08-01' }));
    } finally {
      await store.close();
    }
    const r = stage(repo, db, 'alice', 'write');
    expect(failures(r)).toBe('');
    expect(r.results).toEqual({ stage: 'success' });
    expect(r.gh.some((a) => a[0] === 'run' && a[1] === 'download' && a[2] === String(SWEEP_RUN))).toBe(true);
    expect(r.comments).toHaveLength(1);
    const { pr, body } = r.comments[0]!;
    expect(pr).toBe(2);
    expect(body).toMatch(
      /^<!-- frontier-stage-results -->\n@alice staged \[run 9001\]\(https:\/\/github\.com\/acme\/catalog\/actions\/runs\/9001\)/,
    );
    expect(body).toContain('for PR #2: 6 points, 0 agentic points,');
    expect(body).toContain('[See the staged run](https://frontier.example/inference?staged=9001)');

    const after = await openStore(db);
    try {
      const [staged] = await runs(after, { source: 'staged' });
      expect(staged).toMatchObject({
        run_id: '9001',
        official: false,
        staged_pr: 2,
        staged_by: 'alice',
        branch: 'pr',
        points: 6,
      });
      expect(staged!.commit_sha).toBe(repo.head);
      // The record is as it was: the official latest points are main-1's, and no unofficial run appeared.
      expect(new Set((await benchmarks(after)).map((p) => p.run_id))).toEqual(new Set(['main-1']));
      expect(
        await benchmarks(after, { source: 'all', date: '9999-12-31' }).then((rows) => rows.some((p) => p.run_id === '9001')),
      ).toBe(false);
      expect((await runs(after)).map((x) => x.run_id)).toEqual(['main-1']);
      const app = await buildApi({ store: after });
      try {
        const listed = await app.inject({ method: 'GET', url: '/api/v1/runs?pr=2' });
        expect(listed.json()).toEqual([expect.objectContaining({ run_id: '9001', staged_pr: 2, official: false })]);
        expect((await app.inject({ method: 'GET', url: '/api/v1/benchmarks?run=9001' })).json()).toHaveLength(6);
      } finally {
        await app.close();
      }
    } finally {
      await after.close();
    }
  }, 120_000);

  it('a run named in the comment is looked up by id and staged', async () => {
    const db = join(tempFiles({}), 'frontier.db');
    const r = stage(repo, db, 'alice', 'maintain', `/stage-results ${SWEEP_RUN}`);
    expect(failures(r)).toBe('');
    expect(r.gh).toContainEqual(['api', `repos/acme/catalog/actions/runs/${SWEEP_RUN}`]);
    expect(r.comments[0]!.body).toContain('@alice staged [run 9001]');
    const store = await openStore(db);
    try {
      expect((await runs(store, { pr: 2 })).map((x) => x.run_id)).toEqual(['9001']);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('a download that fails is reported on the PR with the log’s link, and nothing is staged', async () => {
    const db = join(tempFiles({}), 'frontier.db');
    const r = stage(repo, db, 'alice', 'write', '/stage-results', {});
    expect(r.results).toEqual({ stage: 'failure' });
    const steps = r.jobs.find((j) => j.path === 'stage')!.steps;
    expect(steps.map((s) => [s.name, s.conclusion]).slice(-5)).toEqual([
      ['Download the run’s results', 'failure'],
      ['Stage', 'skipped'],
      ['Report', 'skipped'],
      ['Report the failure', 'success'],
      ['Answer on the pull request', 'success'],
    ]);
    expect(r.comments).toHaveLength(1);
    expect(r.comments[0]!.body).toContain(
      '@alice staging [run 9001](https://github.com/acme/catalog/actions/runs/9001) failed; nothing was staged (an ingest writes all or nothing). [The staging workflow’s log](https://github.com/acme/catalog/actions/runs/9100) says why.',
    );
    const store = await openStore(db);
    try {
      expect(await runs(store, { source: 'staged' })).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('a reader’s comment is refused with the reason on the PR; nothing is downloaded or written', async () => {
    const db = join(tempFiles({}), 'frontier.db');
    const r = stage(repo, db, 'mallory', 'read');
    expect(failures(r)).toBe('');
    const job = r.jobs.find((j) => j.path === 'stage')!;
    expect(job.steps.find((s) => s.name === 'Decide')!.outputs).toMatchObject({ stage: 'false', code: 'not-authorized' });
    for (const name of ['Download the run’s results', 'Stage', 'Report'])
      expect([name, job.steps.find((s) => s.name === name)!.conclusion]).toEqual([name, 'skipped']);
    expect(r.gh.some((a) => a[0] === 'run')).toBe(false);
    expect(r.comments).toEqual([
      {
        pr: 2,
        body: '<!-- frontier-stage-results -->\n@mallory `/stage-results` was refused [not-authorized]: @mallory has read access to this repository; staging needs write, maintain or admin.\n\nask a maintainer with write access to the repository to comment /stage-results.\n',
      },
    ]);
    const store = await openStore(db);
    try {
      expect(await runs(store, { source: 'staged' })).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
