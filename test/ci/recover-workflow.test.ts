/**
 * The generated recovery workflow, run locally (test/support/actions-runner.ts): dispatched for a
 * run whose ingest failed, and for a reused run, it records the runs with `gh api`, downloads their
 * artifacts with `gh run download` (the stand-in serves the InferenceX artifact set fixture) and
 * recovers them into the store; dispatched again, it changes nothing.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CLI, git, runCli, tempFiles } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';
import type { RunResult } from '../support/actions-runner.js';
import { ARTIFACTS } from '../store/helpers.js';
import { FAILED_INGEST, MERGE_SHA, REPO_NAME, REUSED, mergeChangelog } from './recover-fixtures.js';

const WORKFLOW = '.github/workflows/frontier-recover-ingest.yml';

/** A repository holding what `frontier ci init` writes. */
function repository(): { dir: string; sha: string } {
  const dir = tempFiles({});
  git(dir, 'init', '-q', '-b', 'main');
  const init = runCli(['ci', 'init', '--dir', dir]);
  expect(init.status, init.stderr).toBe(0);
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'the workflows');
  return { dir, sha: git(dir, 'rev-parse', 'HEAD') };
}

/** Recorded answers as routes of the gh stand-in: runs-ID.json → actions/runs/ID, and so on (pages unwrapped). */
function routes(files: Record<string, unknown>): Record<string, unknown> {
  const page = (v: unknown) => (Array.isArray(v) && v.length === 1 && Array.isArray(v[0]) ? v[0] : Array.isArray(v) ? v[0] : v);
  const out: Record<string, unknown> = {};
  for (const [file, value] of Object.entries(files)) {
    const m = /^(runs|jobs|artifacts|pr|commits)-(\d+)\.json$/.exec(file);
    if (m?.[1] === 'runs') out[`actions/runs/${m[2]}`] = value;
    else if (m?.[1] === 'jobs' || m?.[1] === 'artifacts') out[`actions/runs/${m[2]}/${m[1]}`] = page(value);
    else if (m?.[1] === 'pr') out[`pulls/${m[2]}`] = value;
    else if (m?.[1] === 'commits') out[`pulls/${m[2]}/commits`] = page(value);
    else if (file === 'pulls.json') out[`commits/${MERGE_SHA}/pulls`] = page(value);
  }
  return out;
}

function dispatch(
  repo: { dir: string; sha: string },
  db: string,
  inputs: Record<string, string>,
  files: Record<string, unknown>,
  runArtifacts: Record<string, string>,
): RunResult {
  return runWorkflowLocally({
    repo: repo.dir,
    sha: repo.sha,
    workflow: WORKFLOW,
    eventName: 'workflow_dispatch',
    event: JSON.stringify({ inputs, repository: { full_name: REPO_NAME } }),
    frontier: CLI,
    runId: 9001,
    secrets: { FRONTIER_DB: db },
    api: routes(files),
    runArtifacts,
  });
}

const stepLog = (r: RunResult, name: string): string => r.jobs[0]!.steps.find((s) => s.name === name)?.log ?? '';
const runsIn = (db: string) =>
  new Database(db, { readonly: true })
    .prepare('select run_id, official, source_run_id, merge_run_id from runs order by run_id')
    .all();

describe('the generated recovery workflow, run locally', () => {
  const repo = repository();

  it('recovers a failed ingest once; dispatched again it changes nothing', () => {
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-recover-wf-')), 'frontier.db');
    const go = () => dispatch(repo, db, { 'run-id': '7001' }, FAILED_INGEST, { '7001': ARTIFACTS });
    const first = go();
    expect(first.results, stepLog(first, 'Recover')).toEqual({ recover: 'success' });
    expect(stepLog(first, 'Recover')).toContain('ingested run 7001 (attempt 1, official');
    expect(runsIn(db)).toEqual([{ run_id: '7001', official: 1, source_run_id: '', merge_run_id: '' }]);
    const downloads = first.gh.filter((c) => c[0] === 'run');
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.slice(0, 3)).toEqual(['run', 'download', '7001']);
    const again = go();
    expect(stepLog(again, 'Recover')).toContain('already ingested, nothing changed: run 7001');
    expect(again.summary).toContain('already ingested');
  });

  it('recovers a reused run from the source run’s artifacts and the merge run’s changelog; bad inputs stop it', () => {
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-recover-wf-')), 'frontier.db');
    const r = dispatch(repo, db, { 'source-run-id': '6001', 'merge-run-id': '8001' }, REUSED, {
      '6001': ARTIFACTS,
      '8001': mergeArtifacts(),
    });
    expect(r.results, `${stepLog(r, 'Record the runs, their jobs and artifacts')}${stepLog(r, 'Recover')}`).toEqual({
      recover: 'success',
    });
    expect(stepLog(r, 'Recover')).toContain('recover merge run 8001 (reused run 6001, PR #42)');
    expect(runsIn(db)).toEqual([
      { run_id: '6001', official: 1, source_run_id: '', merge_run_id: '8001' },
      { run_id: '8001', official: 1, source_run_id: '6001', merge_run_id: '' },
    ]);

    const both = dispatch(repo, db, { 'run-id': '7001', 'source-run-id': '6001', 'merge-run-id': '8001' }, REUSED, {});
    expect(both.results).toEqual({ recover: 'failure' });
    expect(stepLog(both, 'Record the runs, their jobs and artifacts')).toContain('give run-id (a failed ingest), or');
  });
});

/** The merge run's artifacts: its frontier-sweep artifact with its changelog metadata (for the merge commit). */
function mergeArtifacts(): string {
  return tempFiles({ 'frontier-sweep/changelog_metadata.json': readFileSync(mergeChangelog(), 'utf8') });
}
