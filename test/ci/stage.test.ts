// `frontier ci stage` (src/ci/stage.ts): who may stage which sweep run with `/stage-results
// [RUN_ID]`, decided from a comment event and the GitHub API's recorded answers, a reason for each
// refusal; and the answer for the pull request.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvent } from '../../src/ci/event.js';
import { recordedGithub } from '../../src/ci/reuse/index.js';
import { decideStage, parseStageCommand, stageComment, stageOutputs } from '../../src/ci/stage.js';
import type { StagePlan } from '../../src/ci/stage.js';
import type { IngestSummary } from '../../src/store/index.js';
import { runCli, tempFiles } from '../helpers.js';

const HEAD = 'c'.repeat(40);
const OLDER = 'b'.repeat(40);
const ELSEWHERE = 'e'.repeat(40);
const WF = 'frontier-sweep.yml';

const run = (id: number, o: Record<string, unknown> = {}) => ({
  id,
  event: 'pull_request',
  status: 'completed',
  conclusion: 'success',
  path: `.github/workflows/${WF}`,
  head_sha: HEAD,
  head_branch: 'feature',
  run_attempt: 1,
  html_url: `https://github.com/acme/catalog/actions/runs/${id}`,
  ...o,
});
const artifacts = (...names: string[]) => ({
  total_count: names.length,
  artifacts: names.map((name) => ({ name, expired: false })),
});
const RESULTS = artifacts('results_bmk', 'eval_results_all', 'run-stats', 'changelog-metadata');

/** Recorded answers as the workflow's record step writes them; `files` replaces or adds some. */
function recorded(files: Record<string, unknown> = {}): string {
  const all: Record<string, unknown> = {
    'permission.json': { permission: 'write', role_name: 'write', user: { login: 'alice' } },
    'pr.json': { number: 2, labels: [], head: { ref: 'feature', sha: HEAD }, merged_at: null },
    'commits.json': [[{ sha: OLDER }, { sha: HEAD }]],
    'runs.json': { total_count: 2, workflow_runs: [run(902), run(901, { head_sha: OLDER })] },
    'artifacts-902.json': [RESULTS],
    'artifacts-901.json': [RESULTS],
    ...files,
  };
  return tempFiles(Object.fromEntries(Object.entries(all).map(([k, v]) => [k, JSON.stringify(v)])));
}

function comment(body: string, o: { pr?: boolean; user?: string } = {}): string {
  return JSON.stringify({
    action: 'created',
    repository: { full_name: 'acme/catalog' },
    issue: { number: 2, body: '', ...(o.pr === false ? {} : { pull_request: { url: 'https://api.github.com/…/pulls/2' } }) },
    comment: { body, user: { login: o.user ?? 'alice' }, author_association: 'MEMBER', created_at: '2026-09-01T00:00:00Z' },
  });
}

function decide(body: string, files: Record<string, unknown> = {}, o: { pr?: boolean; user?: string; eventName?: string } = {}) {
  const dir = recorded(files);
  const event = join(dir, 'event.json');
  writeFileSync(event, comment(body, o));
  const github = recordedGithub({ dir }, 'the staging decision');
  const permission = () => {
    const p = JSON.parse(JSON.stringify(files['permission.json'] ?? { role_name: 'write' })) as Record<string, string>;
    return p.role_name ?? p.permission ?? '';
  };
  return decideStage(readEvent(event, o.eventName ?? 'issue_comment'), { ...github, permission }, { sweepWorkflow: WF });
}

const refusal = (p: StagePlan) => [p.stage, p.refusal?.code, p.refusal?.reason];

describe('who may stage what', () => {
  it('the command: alone, optionally with a run id', () => {
    expect(parseStageCommand('/stage-results')).toBeNull();
    expect(parseStageCommand('  /stage-results 123 \n')).toBe('123');
    expect(parseStageCommand('/stage-results abc')).toBeUndefined();
    expect(parseStageCommand('/stage-results 1 2')).toBeUndefined();
    expect(parseStageCommand('/stage-results\nplease')).toBeUndefined();
  });

  it('a writer’s /stage-results stages the latest successful sweep of the head commit', () => {
    const p = decide('/stage-results');
    expect(p).toMatchObject({ stage: true, answer: true, pr: 2, by: 'alice', run: { id: '902', pinned: false } });
    expect(stageOutputs(p)).toEqual({
      stage: 'true',
      pr: '2',
      'staged-by': 'alice',
      'run-id': '902',
      'run-attempt': '1',
      'run-url': 'https://github.com/acme/catalog/actions/runs/902',
      'head-sha': HEAD,
      branch: 'feature',
      code: '',
      reason: '',
    });
    // maintain and admin may too (GitHub's permission says write for maintain; role_name says maintain).
    for (const role_name of ['maintain', 'admin'])
      expect(decide('/stage-results', { 'permission.json': { role_name } }).stage).toBe(true);
  });

  it('a named run of an earlier commit of the PR is staged', () => {
    expect(decide('/stage-results 901')).toMatchObject({ stage: true, run: { id: '901', headSha: OLDER, pinned: true } });
  });

  it('a named dispatched sweep of an external PR (a maintainer approved its commit) is staged under that commit', () => {
    const MAIN = 'a'.repeat(40);
    const external = (id: number, title: string) =>
      run(id, { event: 'workflow_dispatch', head_sha: MAIN, head_branch: 'main', display_title: `Frontier sweep - ${title}` });
    const files = (r: ReturnType<typeof run>) => ({ [`runs-${r.id}.json`]: r, [`artifacts-${r.id}.json`]: [RESULTS] });
    const p = decide('/stage-results 950', files(external(950, `External PR #2 @ ${OLDER.slice(0, 12)}`)));
    expect(p).toMatchObject({ stage: true, run: { id: '950', headSha: OLDER, headBranch: 'feature', pinned: true } });
    expect(stageOutputs(p)['head-sha']).toBe(OLDER);
    // Another PR's external sweep, a commit that is not the PR's, a plain dispatch: refused.
    expect(refusal(decide('/stage-results 951', files(external(951, `External PR #3 @ ${OLDER.slice(0, 12)}`))))).toEqual([
      false,
      'run-not-in-pr',
      'run 951 swept external PR #3, not PR #2',
    ]);
    expect(refusal(decide('/stage-results 952', files(external(952, `External PR #2 @ ${ELSEWHERE.slice(0, 12)}`))))).toEqual([
      false,
      'run-not-in-pr',
      `run 952 swept ${ELSEWHERE.slice(0, 12)}, which is not a commit of PR #2`,
    ]);
    expect(refusal(decide('/stage-results 953', files(external(953, 'by hand'))))[1]).toBe('run-not-pull-request');
  });

  it('passes over a head sweep the reuse gate made a no-op (no results) for an earlier one of the same commit', () => {
    const p = decide('/stage-results', {
      'runs.json': { workflow_runs: [run(903), run(902)] },
      'artifacts-903.json': [artifacts('frontier-sweep')],
    });
    expect(p.run?.id).toBe('902');
  });

  it('refuses, with a reason each: where the comment is and what it says', () => {
    expect(refusal(decide('/stage-results', {}, { eventName: 'workflow_dispatch' }))).toEqual([
      false,
      'not-a-comment',
      'the event is workflow_dispatch, not a comment on a pull request',
    ]);
    const other = decide('looks good to me');
    expect([...refusal(other), other.answer]).toEqual([
      false,
      'not-the-command',
      'the comment does not start with /stage-results',
      false,
    ]);
    expect(refusal(decide('/stage-results', {}, { pr: false }))).toEqual([
      false,
      'not-a-pull-request',
      '#2 is an issue, not a pull request',
    ]);
    const usage = decide('/stage-results latest');
    expect([...refusal(usage), usage.answer]).toEqual([
      false,
      'usage',
      '`/stage-results latest` is not a /stage-results command',
      true,
    ]);
  });

  it('refuses a commenter without write access, saying what they have', () => {
    for (const [answer, role] of [
      [{ permission: 'read', role_name: 'read' }, 'read'],
      [{ permission: 'read', role_name: 'triage' }, 'triage'],
      [{ permission: 'none' }, 'none'],
    ] as const) {
      const p = decide('/stage-results', { 'permission.json': answer }, { user: 'mallory' });
      expect(refusal(p)).toEqual([
        false,
        'not-authorized',
        `@mallory has ${role} access to this repository; staging needs write, maintain or admin`,
      ]);
      expect(p.answer).toBe(true);
    }
  });

  it('refuses a named run that is not this PR’s completed, successful sweep with results', () => {
    const one = (id: number, o: Record<string, unknown>, files: Record<string, unknown> = {}) =>
      refusal(decide(`/stage-results ${id}`, { [`runs-${id}.json`]: run(id, o), [`artifacts-${id}.json`]: [RESULTS], ...files }));
    expect(refusal(decide('/stage-results 555'))).toEqual([
      false,
      'run-not-found',
      'run 555 is not a recorded run of this repository',
    ]);
    expect(one(10, { path: '.github/workflows/frontier-reuse.yml' })).toEqual([
      false,
      'run-wrong-workflow',
      'run 10 is from .github/workflows/frontier-reuse.yml, not .github/workflows/frontier-sweep.yml',
    ]);
    expect(one(11, { event: 'push' })).toEqual([false, 'run-not-pull-request', 'run 11 is a push run, not a pull_request run']);
    expect(one(12, { head_sha: ELSEWHERE })).toEqual([
      false,
      'run-not-in-pr',
      `run 12 swept ${ELSEWHERE.slice(0, 12)}, which is not a commit of PR #2`,
    ]);
    expect(one(13, { status: 'in_progress', conclusion: null })).toEqual([false, 'run-not-completed', 'run 13 is in_progress']);
    expect(one(14, { conclusion: 'failure' })).toEqual([false, 'run-not-successful', 'run 14 concluded failure, not success']);
    expect(one(15, {}, { 'artifacts-15.json': [artifacts('changelog-metadata', 'results_bmk-expired')] })).toEqual([
      false,
      'run-no-results',
      'run 15 has no unexpired result artifact (results_bmk, eval_results_all, bmk_agentic_*)',
    ]);
  });

  it('refuses when the head commit has no sweep, or its latest sweep failed', () => {
    expect(refusal(decide('/stage-results', { 'runs.json': { workflow_runs: [run(901, { head_sha: OLDER })] } }))).toEqual([
      false,
      'no-run-for-head',
      `no completed ${WF} run of PR #2’s head commit ${HEAD.slice(0, 12)}`,
    ]);
    expect(
      refusal(decide('/stage-results', { 'runs.json': { workflow_runs: [run(904, { conclusion: 'cancelled' })] } })),
    ).toEqual([
      false,
      'run-not-successful',
      `the latest sweep of PR #2’s head commit ${HEAD.slice(0, 12)}: run 904 concluded cancelled, not success`,
    ]);
  });

  it('answers: the refusal with its reason and fix; the staged run with its counts and link; a failure with its log', () => {
    const refused = decide('/stage-results', { 'permission.json': { role_name: 'read' } }, { user: 'mallory' });
    expect(stageComment(refused, undefined, { dashboardUrl: '' })).toBe(
      '<!-- frontier-stage-results -->\n@mallory `/stage-results` was refused [not-authorized]: @mallory has read access to this repository; staging needs write, maintain or admin.\n\nask a maintainer with write access to the repository to comment /stage-results.\n',
    );
    expect(stageComment(decide('nice'), undefined, { dashboardUrl: '' })).toBe('');
    const p = decide('/stage-results');
    expect(stageComment(p, undefined, { dashboardUrl: '' })).toBe('');
    const ingested = {
      run_id: '902',
      attempt: 1,
      benchmarks: { total: 6 },
      agentic: { total: 0 },
      evals: { total: 1 },
    } as unknown as IngestSummary;
    const staged = stageComment(p, { ingested }, { dashboardUrl: 'https://frontier.example/' });
    expect(staged).toContain(
      `@alice staged [run 902](https://github.com/acme/catalog/actions/runs/902) (commit ${HEAD.slice(0, 12)}, attempt 1) for PR #2: 6 points, 0 agentic points, 1 eval.`,
    );
    expect(staged).toContain('[See the staged run](https://frontier.example/inference?staged=902)');
    expect(staged).toContain('Staged results are not official');
    expect(stageComment(p, { ingested }, { dashboardUrl: '' })).toContain('(/api/v1/benchmarks?run=902)');
    expect(
      stageComment(p, { failed: { logUrl: 'https://github.com/acme/catalog/actions/runs/77' } }, { dashboardUrl: '' }),
    ).toContain('staging [run 902](https://github.com/acme/catalog/actions/runs/902) failed; nothing was staged');
  });
});

describe('frontier ci stage (the CLI)', () => {
  it('writes the outputs and the answer; a missing recorded answer is an error naming how to record it', () => {
    const dir = recorded({ 'permission.json': { permission: 'read' } });
    writeFileSync(join(dir, 'event.json'), comment('/stage-results', { user: 'mallory' }));
    const out = join(dir, 'out');
    writeFileSync(out, '');
    const args = ['ci', 'stage', '--event', join(dir, 'event.json'), '--event-name', 'issue_comment', '--github', dir];
    const r = runCli([...args, '--comment-file', join(dir, 'answer.md')], { env: { GITHUB_OUTPUT: out } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('stage: refused [not-authorized]');
    expect(r.stdout).toContain('@mallory has read access');
    const outputs = readFileSync(out, 'utf8');
    expect(outputs).toContain('stage=false');
    expect(outputs).toContain('code=not-authorized');
    expect(readFileSync(join(dir, 'answer.md'), 'utf8')).toMatch(
      /^<!-- frontier-stage-results -->\n@mallory `\/stage-results` was refused/,
    );

    const missing = runCli([...args, '--permission', join(dir, 'nowhere.json')], { env: { GITHUB_OUTPUT: '' } });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("staging needs @mallory's permission on the repository, and it is not recorded");
    expect(missing.stderr).toContain('gh api repos/OWNER/REPO/collaborators/mallory/permission > permission.json');
  });
});
