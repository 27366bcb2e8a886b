/**
 * The generated sweep workflow, run locally end to end (issue 19): a recorded pull-request event
 * goes through `frontier ci plan` → the canary and sweep rows (`frontier run` on the simulated
 * cluster) → `frontier results collect` → `frontier ingest` → `frontier ci comment`, each job in its
 * own clone, as test/support/actions-runner.ts runs them.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CLI, REPO, git, runCli, tempFiles } from '../helpers.js';
import { evaluate } from '../support/actions-expressions.js';
import type { Scope } from '../support/actions-expressions.js';
import { artifactFiles, runWorkflowLocally } from '../support/actions-runner.js';
import type { JobRecord, RunResult } from '../support/actions-runner.js';
import { catalogRepository, pullRequestEvent } from './repository.js';
import type { CatalogRepository } from './repository.js';

const SWEEP = '.github/workflows/frontier-sweep.yml';
const RUN_ID = 7001;

/**
 * The catalog repository with, on the pull request's branch, the workflows `frontier ci init` writes,
 * a cluster profile serving the catalog's runners on the simulator (`faulty`: every request answered
 * with an error), and a smaller search space for the simulated config (four rows: conc 1 and 2 at
 * 1024/64, conc 1 at 8192/64 with tp 1, conc 4 with tp 2) so the sweep takes seconds.
 */
function sweepRepository(o: { faulty?: boolean } = {}): CatalogRepository {
  const repo = catalogRepository();
  const init = runCli(['ci', 'init', '--dir', repo.dir]);
  expect(init.status, init.stderr).toBe(0);
  const master = join(repo.dir, 'configs/example-master.yaml');
  writeFileSync(
    master,
    readFileSync(master, 'utf8')
      .replace('{ tp: 1, conc-start: 1, conc-end: 64 }', '{ tp: 1, conc-start: 1, conc-end: 2 }')
      .replace('{ tp: 1, conc-start: 1, conc-end: 8 }', '{ tp: 1, conc-start: 1, conc-end: 1 }')
      .replace('{ tp: 2, conc-start: 4, conc-end: 16 }', '{ tp: 2, conc-start: 4, conc-end: 4 }'),
  );
  let cluster = readFileSync(join(REPO, 'examples/clusters/local-sim.yaml'), 'utf8');
  if (o.faulty) cluster = cluster.replace('sim: { speed: 10 }', "sim: { speed: 10, extra-args: '--fault-error-rate 1' }");
  mkdirSync(join(repo.dir, 'clusters'));
  writeFileSync(join(repo.dir, 'clusters/local-sim.yaml'), cluster);
  git(repo.dir, 'add', '-A');
  git(repo.dir, 'commit', '-q', '-m', 'sim: the v2 image, a small search space, the sweep workflows');
  return { ...repo, head: git(repo.dir, 'rev-parse', 'HEAD') };
}

function sweep(repo: CatalogRepository, event: string, db: string, api?: Record<string, unknown>): RunResult {
  return runWorkflowLocally({
    api,
    repo: repo.dir,
    sha: repo.head,
    workflow: SWEEP,
    eventName: 'pull_request',
    event,
    frontier: CLI,
    runId: RUN_ID,
    secrets: { FRONTIER_DB: db },
  });
}

const job = (r: RunResult, path: string): JobRecord => {
  const found = r.jobs.find((j) => j.path === path);
  if (!found) throw new Error(`no job ${path}: ${r.jobs.map((j) => j.path).join(', ')}`);
  return found;
};
const step = (j: JobRecord, name: string) => {
  const found = j.steps.find((s) => s.name === name);
  if (!found) throw new Error(`no step ${name} in ${j.path}`);
  return found;
};
/** A failed step's log, to make a failing assertion say why. */
const failures = (r: RunResult): string =>
  r.jobs
    .flatMap((j) => j.steps.filter((s) => s.conclusion === 'failure').map((s) => `${j.path} › ${s.name}:\n${s.log}`))
    .join('\n\n');

const labeled = (repo: CatalogRepository, label: string) => pullRequestEvent(repo, { action: 'labeled', label, labels: [label] });

describe('the generated sweep workflow, run locally', () => {
  it('a full-sweep label: plan, the canary first, the sweep, results collected, ingested and commented', () => {
    const repo = sweepRepository();
    const db = join(tempFiles({}), 'frontier.db');
    const r = sweep(repo, labeled(repo, 'full-sweep-enabled'), db);
    expect(failures(r)).toBe('');

    const plan = job(r, 'plan');
    expect(plan.outputs).toMatchObject({ run: 'true', canary: 'true', official: 'false', 'ingest-args': '--unofficial' });
    const rows = JSON.parse(plan.outputs.jobs!) as { conc: number; isl: number; tp: number }[];
    expect(rows.map((row) => [row.isl, row.tp, row.conc])).toEqual(
      expect.arrayContaining([
        [1024, 1, 2],
        [8192, 1, 1],
        [8192, 2, 4],
      ]),
    );
    expect(rows).toHaveLength(3);

    // The canary ran first after the plan, on the conc-1 row, and passed; then every other row.
    expect(r.jobs.map((j) => j.path)).toEqual([
      'plan',
      'canary/benchmark',
      'sweep[0]/benchmark',
      'sweep[1]/benchmark',
      'sweep[2]/benchmark',
      'results',
    ]);
    const canary = job(r, 'canary/benchmark');
    expect(canary.name).toMatch(/^canary \/ llama3\.1-8b_1024_64 h100 conc 1$/);
    expect(canary.conclusion).toBe('success');
    const canaryAgg = Object.keys(r.artifact('bmk_canary'));
    expect(canaryAgg).toHaveLength(1);
    expect(JSON.parse(readFileSync(r.artifact('bmk_canary')[canaryAgg[0]!]!, 'utf8'))).toMatchObject({ conc: 1, isl: 1024 });
    expect(r.results).toEqual({ plan: 'success', canary: 'success', sweep: 'success', results: 'success' });
    const swept = r.jobs.filter((j) => j.path.startsWith('sweep['));
    expect(swept.map((j) => j.conclusion)).toEqual(['success', 'success', 'success']);
    expect(swept.map((j) => / conc (\d+)$/.exec(j.name)?.[1]).sort()).toEqual(rows.map((row) => String(row.conc)).sort());
    expect(r.artifacts).toEqual(
      expect.arrayContaining([
        'frontier-sweep',
        'bmk_canary',
        'bmk_sweep-0',
        'bmk_sweep-1',
        'bmk_sweep-2',
        'results_bmk',
        'run-stats',
      ]),
    );

    // Results: one aggregate per point, ingested into the store.
    const agg = JSON.parse(readFileSync(r.artifact('results_bmk')['agg_bmk.json']!, 'utf8')) as { conc: number; isl: number }[];
    expect(agg.map((a) => [a.isl, a.conc]).sort()).toEqual(
      [
        [1024, 1],
        [1024, 2],
        [8192, 1],
        [8192, 4],
      ].sort(),
    );
    const stats = JSON.parse(readFileSync(r.artifact('run-stats')['run_stats.json']!, 'utf8')) as Record<
      string,
      { n_success: number; total: number }
    >;
    expect(stats['h100-lab']).toEqual({ n_success: 4, total: 4 });
    const store = new Database(db, { readonly: true });
    try {
      const tables = store.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
      expect(tables.map((t) => t.name)).toContain('benchmark_results');
      expect(store.prepare('SELECT COUNT(*) AS n FROM benchmark_results').get()).toEqual({ n: 4 });
    } finally {
      store.close();
    }

    // The comment, through `gh pr comment`.
    const comment = step(job(r, 'results'), 'Comment on the pull request');
    expect(comment.conclusion).toBe('success');
    expect(r.comments).toHaveLength(1);
    const { pr, body } = r.comments[0]!;
    expect(pr).toBe(2);
    expect(body.startsWith('<!-- frontier-sweep-summary -->')).toBe(true);
    expect(body).toContain(String(RUN_ID));
    expect(body).toContain('**4 of 4 jobs succeeded (100.0%)**');
    expect(body).toContain('| h100-lab | 4 | 4 | 100.0% |');
    expect(body).toContain('**Canary:** ✅ passed');
    for (const row of [
      '| llama3.1-8b h100 sim fp8 TP1 | 1024/64 | 1 |',
      '| llama3.1-8b h100 sim fp8 TP1 | 1024/64 | 2 |',
      '| llama3.1-8b h100 sim fp8 TP1 | 8192/64 | 1 |',
      '| llama3.1-8b h100 sim fp8 TP2 | 8192/64 | 4 |',
    ])
      expect(body).toContain(row);
    expect(r.summary).toContain('<!-- frontier-sweep-summary -->');
    expect(
      r.gh.some((a) => a[0] === 'api' && a.includes(`repos/acme/catalog/actions/runs/${RUN_ID}/jobs?filter=all&per_page=100`)),
    ).toBe(true);
  }, 120_000);

  it('a failing canary: the sweep is skipped, the results job still runs and the comment reports the failure', () => {
    const repo = sweepRepository({ faulty: true });
    const db = join(tempFiles({}), 'frontier.db');
    // An earlier run's summary is on the pull request: this run edits it in place.
    const earlier = { id: 55, body: '<!-- frontier-sweep-summary -->\nan earlier run', user: { login: 'github-actions[bot]' } };
    const r = sweep(repo, labeled(repo, 'full-sweep-enabled'), db, { 'issues/2/comments': [earlier] });

    expect(job(r, 'plan').outputs).toMatchObject({ run: 'true', canary: 'true' });
    const canary = job(r, 'canary/benchmark');
    expect(canary.conclusion).toBe('failure');
    expect(step(canary, 'Benchmark').conclusion).toBe('failure');
    // The artifacts are kept even so (`if: always()`).
    expect(step(canary, 'Keep server logs').conclusion).toBe('success');
    expect(r.artifacts).toContain('server_logs_canary');
    expect(r.results).toEqual({ plan: 'success', canary: 'failure', sweep: 'skipped', results: 'success' });
    expect(r.jobs.map((j) => [j.path, j.conclusion])).toEqual([
      ['plan', 'success'],
      ['canary/benchmark', 'failure'],
      ['sweep', 'skipped'],
      ['results', 'success'],
    ]);

    const stats = JSON.parse(readFileSync(r.artifact('run-stats')['run_stats.json']!, 'utf8')) as Record<string, unknown>;
    expect(stats['h100-lab']).toEqual({ n_success: 0, total: 1 });
    expect(r.comments.map((c) => c.edit)).toEqual([55]);
    expect(r.gh.some((a) => a[0] === 'pr')).toBe(false);
    const { body } = r.comments[0]!;
    expect(body.startsWith('<!-- frontier-sweep-summary -->')).toBe(true);
    expect(body).toContain(String(RUN_ID));
    expect(body).toContain('**Canary:** ❌');
    expect(body).toContain('`canary / llama3.1-8b_1024_64 h100 conc 1`: failure');
    expect(body).toContain('**0 of 1 jobs succeeded (0.0%)**');
  }, 120_000);

  it('a label that changes nothing: the plan says no run and no other job runs', () => {
    const repo = sweepRepository();
    const r = sweep(repo, labeled(repo, 'documentation'), join(tempFiles({}), 'frontier.db'));
    expect(failures(r)).toBe('');
    expect(job(r, 'plan').outputs).toMatchObject({ run: 'false', canary: 'false' });
    expect(r.jobs.map((j) => [j.path, j.conclusion])).toEqual([
      ['plan', 'success'],
      ['canary', 'skipped'],
      ['sweep', 'skipped'],
      ['results', 'skipped'],
    ]);
    expect(r.comments).toEqual([]);
    // The plan writes no sweep files when nothing runs; the upload finds none and is told to ignore that.
    expect(step(job(r, 'plan'), 'Keep the sweep').log).toContain('No artifacts will be uploaded');
    expect(r.artifacts).toEqual([]);
  }, 60_000);
});

describe('the local Actions runner itself', () => {
  it('evaluates the expression subset as GitHub does', () => {
    const scope: Scope = {
      contexts: {
        needs: { plan: { result: 'success', outputs: { run: 'true', jobs: '[{"conc":1,"exp-name":"x"}]', none: '' } } },
        github: { event: { label: { name: 'Full-Sweep-Enabled' } } },
      },
      status: { success: true, failure: false, cancelled: false },
    };
    const e = (x: string) => evaluate(x, scope);
    expect(e("needs.plan.outputs.run == 'true' && needs.plan.outputs.jobs != '[]'")).toBe(true);
    expect(e("fromJSON(needs.plan.outputs.jobs)[0]['exp-name']")).toBe('x');
    expect(e('toJSON(fromJSON(needs.plan.outputs.jobs)[0].conc)')).toBe('1');
    expect(e("needs.plan.outputs.none || 'fallback'")).toBe('fallback');
    expect(e('contains(fromJSON(\'["full-sweep-enabled"]\'), github.event.label.name)')).toBe(true);
    expect(e("!(needs.plan.result == 'failure') && needs.missing.result")).toBe(null);
    expect(e("1 == '1' && null == ''")).toBe(true);
  });

  it('uploads artifacts relative to the least common ancestor of the search paths, as upload-artifact v4', () => {
    const dir = tempFiles({
      'run/bmk_a/agg_1.json': '{}',
      'run/bmk_a/raw.json': '{}',
      'run/eval_b/x/y.json': '{}',
      'results/r/agg.json': '[]',
    });
    expect(artifactFiles(dir, 'run/bmk_*/agg_*.json')).toEqual({ root: 'run', files: ['run/bmk_a/agg_1.json'] });
    expect(artifactFiles(dir, 'run/eval_*/')).toEqual({ root: 'run', files: ['run/eval_b/x/y.json'] });
    expect(artifactFiles(dir, 'results/r/')).toEqual({ root: 'results/r', files: ['results/r/agg.json'] });
    expect(artifactFiles(dir, 'results/r/agg.json\nrun/bmk_a/raw.json').root).toBe('');
  });

  it('a failing step fails its job and skips later steps unless always(); outputs in both forms; needs.*.result', () => {
    const dir = tempFiles({
      '.github/workflows/w.yml': stringify({
        on: 'push',
        jobs: {
          a: {
            'runs-on': 'x',
            outputs: { one: '${{ steps.s.outputs.one }}', many: '${{ steps.s.outputs.many }}' },
            steps: [{ id: 's', run: 'echo one=1 >> "$GITHUB_OUTPUT"\nprintf "many<<EOF\\nx\\ny\\nEOF\\n" >> "$GITHUB_OUTPUT"' }],
          },
          b: {
            needs: 'a',
            'runs-on': 'x',
            steps: [
              { name: 'fails', run: 'test "${{ needs.a.outputs.many }}" = x' },
              { name: 'skipped', run: 'true' },
              { name: 'always', if: 'always()', run: 'true' },
            ],
          },
          c: { needs: 'b', 'runs-on': 'x', steps: [{ run: 'true' }] },
          d: { needs: ['a', 'b'], if: "always() && needs.b.result == 'failure'", 'runs-on': 'x', steps: [{ run: 'true' }] },
        },
      }),
    });
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'w');
    const r = runWorkflowLocally({
      repo: dir,
      sha: git(dir, 'rev-parse', 'HEAD'),
      workflow: '.github/workflows/w.yml',
      eventName: 'push',
      event: '{}',
      frontier: CLI,
    });
    expect(job(r, 'a').outputs).toEqual({ one: '1', many: 'x\ny' });
    expect(job(r, 'b').steps.map((s) => s.conclusion)).toEqual(['failure', 'skipped', 'success']);
    expect(r.results).toEqual({ a: 'success', b: 'failure', c: 'skipped', d: 'success' });
  });
});
