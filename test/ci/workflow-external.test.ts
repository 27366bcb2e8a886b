/**
 * Sweeps for external contributors (issue 45): the generated frontier-external-sweep.yml is a
 * control plane (checked statically, and the checker catches unsafe variants), and, run locally
 * (test/support/actions-runner.ts), a maintainer's sweep label on a fork's pull request dispatches
 * the sweep of its exact head, which the dispatched sweep then plans; a non-maintainer's does not,
 * a push after approval needs a new label, and a pull request from this repository is not its business.
 * The recipe reminder, the other pull_request_target workflow, is held to the same check and run too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { workflowFiles } from '../../src/ci/workflows/index.js';
import { CLI, git, runCli } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';
import type { RunResult } from '../support/actions-runner.js';
import { controlPlaneProblems } from '../support/control-plane.js';
import { catalogRepository, WORKFLOW_OPTIONS } from './repository.js';

const EXTERNAL = '.github/workflows/frontier-external-sweep.yml';
const REMINDER = '.github/workflows/frontier-recipe-reminder.yml';

type Wf = {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Record<string, unknown>[]; env?: Record<string, string> }>;
};
const generated = (): Record<string, Wf> =>
  Object.fromEntries(workflowFiles(WORKFLOW_OPTIONS, 'test').map(([path, text]) => [path, parseYaml(text) as Wf]));

describe('the external sweep workflow is a control plane', () => {
  it('no step of a pull_request_target workflow checks out, fetches or runs the pull request’s code, or holds a secret', () => {
    const all = generated();
    const targets = Object.keys(all).filter((p) => 'pull_request_target' in all[p]!.on);
    expect(targets).toEqual([EXTERNAL, REMINDER]);
    for (const p of targets) expect([p, controlPlaneProblems(all[p])]).toEqual([p, []]);
    // It checks nothing out at all, and dispatches from the default branch.
    const steps = all[EXTERNAL]!.jobs.dispatch!.steps;
    expect(steps.some((s) => String(s.uses ?? '').startsWith('actions/checkout'))).toBe(false);
    expect(steps.map((s) => s.name)).toEqual([
      'Set up Node.js',
      'Install Frontier',
      'Record the labeller’s permission and the pull request',
      'Authorize',
      'Dispatch the sweep',
      'Comment on the pull request',
    ]);
  });

  it('no workflow a comment starts (with the store’s secret) checks out or runs the pull request’s code', () => {
    const all = generated();
    const commented = Object.keys(all).filter((p) => 'issue_comment' in all[p]!.on);
    expect(commented.map((p) => p.split('/').at(-1))).toEqual([
      'frontier-reuse.yml',
      'frontier-signoff.yml',
      'frontier-stage-results.yml',
    ]);
    for (const p of commented) expect([p, controlPlaneProblems(all[p])]).toEqual([p, []]);
    // The same check catches a staging that checks the pull request out and runs it.
    const stage = all['.github/workflows/frontier-stage-results.yml']!;
    stage.jobs.stage!.steps.splice(2, 0, { name: 'Check out the PR', run: 'gh pr checkout "$PR" && npm ci' });
    expect(controlPlaneProblems(stage)).toEqual([
      'stage › Check out the PR: its script fetches commits (gh pr checkout)',
      'stage › Check out the PR: its script runs code of the workspace (npm ci)',
    ]);
  });

  const unsafe = (mutate: (wf: Wf) => void): string[] => {
    const wf = generated()[EXTERNAL]!;
    mutate(wf);
    return controlPlaneProblems(wf);
  };
  const steps = (wf: Wf) => wf.jobs.dispatch!.steps;

  it.each<[string, (wf: Wf) => void, RegExp]>([
    [
      'a checkout of the PR head',
      (wf) => steps(wf).unshift({ uses: 'actions/checkout@v4', with: { ref: '${{ github.event.pull_request.head.sha }}' } }),
      /checks out \$\{\{ github\.event\.pull_request\.head\.sha \}\}/,
    ],
    [
      'a checkout of the fork',
      (wf) =>
        steps(wf).unshift({
          uses: 'actions/checkout@v4',
          with: { repository: '${{ github.event.pull_request.head.repo.full_name }}' },
        }),
      /checks out the repository/,
    ],
    [
      'the PR’s commits fetched by hand and built',
      (wf) => steps(wf).push({ name: 'Build', run: 'git fetch origin "pull/$PR/head"\ngit checkout FETCH_HEAD\n./build.sh' }),
      /Build: its script fetches commits.*|Build: its script runs code of the workspace/,
    ],
    [
      'a local action',
      (wf) => steps(wf).push({ uses: './.github/actions/setup' }),
      /uses \.\/\.github\/actions\/setup, a local action/,
    ],
    [
      'the head SHA handed to a script',
      (wf) => steps(wf).push({ name: 'Use', env: { SHA: '${{ github.event.pull_request.head.sha }}' }, run: 'echo "$SHA"' }),
      /Use: names the pull request's code/,
    ],
    [
      'npm ci on a checkout',
      (wf) => steps(wf).push({ name: 'Deps', run: 'npm ci' }),
      /Deps: its script runs code of the workspace \(npm ci\)/,
    ],
    ['a third-party action', (wf) => steps(wf).push({ uses: 'actions/github-script@v7' }), /only frontier and gh/],
    [
      'a secret',
      (wf) => (wf.jobs.dispatch!.env = { ...wf.jobs.dispatch!.env, FRONTIER_DB: '${{ secrets.FRONTIER_DB }}' }),
      /reads secrets\.FRONTIER_DB/,
    ],
    [
      'a reusable workflow of the checkout',
      (wf) => ((wf.jobs as Record<string, unknown>).sweep = { uses: './.github/workflows/frontier-sweep.yml' }),
      /sweep: calls \.\/\.github\/workflows\/frontier-sweep\.yml/,
    ],
  ])('the checker catches %s', (_, mutate, problem) => {
    const problems = unsafe(mutate);
    expect(
      problems.some((p) => problem.test(p)),
      problems.join('\n'),
    ).toBe(true);
  });
});

/**
 * The catalog repository with the workflows on main, and a fork's pull request #2: its head (the
 * `pr` branch: the simulated config moved to a new image, with its changelog entry) and the merge
 * commit GitHub would make, under refs/pull/2/.
 */
function forkRepository() {
  const repo = catalogRepository();
  git(repo.dir, 'checkout', '-q', 'main');
  const init = runCli(['ci', 'init', '--dir', repo.dir]);
  expect(init.status, init.stderr).toBe(0);
  git(repo.dir, 'add', '-A');
  git(repo.dir, 'commit', '-q', '-m', 'ci: the Frontier workflows');
  const main = git(repo.dir, 'rev-parse', 'HEAD');
  const merge = (head: string, n: number): string => {
    git(repo.dir, 'checkout', '-q', '--detach', main);
    git(repo.dir, 'merge', '-q', '--no-ff', '-m', `Merge ${head} into ${main}`, head);
    const sha = git(repo.dir, 'rev-parse', 'HEAD');
    git(repo.dir, 'update-ref', `refs/pull/${n}/merge`, sha);
    git(repo.dir, 'checkout', '-q', 'main');
    return sha;
  };
  return { dir: repo.dir, main, head: repo.head, merge };
}

const payload = (o: { head: string; base: string; label?: string; sender?: string; headRepo?: string }) =>
  JSON.stringify({
    action: 'labeled',
    number: 2,
    label: { name: o.label ?? 'full-sweep-fail-fast' },
    sender: { login: o.sender ?? 'maintainer' },
    repository: { full_name: 'acme/catalog', default_branch: 'main' },
    pull_request: {
      number: 2,
      draft: false,
      labels: [{ name: o.label ?? 'full-sweep-fail-fast' }],
      head: { sha: o.head, ref: 'feature', repo: { full_name: o.headRepo ?? 'vendor/catalog' } },
      base: { sha: o.base, ref: 'main', repo: { full_name: 'acme/catalog' } },
    },
  });

const pullAnswer = (o: { head: string; base: string; merge: string; labels?: string[] }) => ({
  number: 2,
  state: 'open',
  draft: false,
  labels: (o.labels ?? ['full-sweep-fail-fast']).map((name) => ({ name })),
  head: { sha: o.head, ref: 'feature', repo: { full_name: 'vendor/catalog' } },
  base: { sha: o.base, ref: 'main', repo: { full_name: 'acme/catalog' } },
  merge_commit_sha: o.merge,
});

const permissionAnswer = (login: string, permission: string, role = permission) => ({
  permission,
  role_name: role,
  user: { login },
});

function external(repo: { dir: string; main: string }, event: string, api: Record<string, unknown>): RunResult {
  return runWorkflowLocally({
    repo: repo.dir,
    sha: repo.main,
    workflow: EXTERNAL,
    eventName: 'pull_request_target',
    event,
    frontier: CLI,
    api,
  });
}

const stepOf = (r: RunResult, name: string) => r.jobs[0]!.steps.find((s) => s.name === name)!;
const log = (r: RunResult): string =>
  r.jobs.flatMap((j) => j.steps.map((s) => `${j.path} › ${s.name}: ${s.conclusion}\n${s.log}`)).join('\n');

describe('the external sweep workflow, run locally', () => {
  const repo = forkRepository();
  const merge = repo.merge(repo.head, 2);

  it('a maintainer’s sweep label dispatches the sweep of the exact head, which plans that commit', () => {
    const r = external(repo, payload({ head: repo.head, base: repo.main }), {
      'collaborators/maintainer/permission': permissionAnswer('maintainer', 'write', 'maintain'),
      'pulls/2': pullAnswer({ head: repo.head, base: repo.main, merge }),
    });
    expect(r.results, log(r)).toEqual({ dispatch: 'success' });
    expect(r.gh.slice(0, 2)).toEqual([
      ['api', 'repos/acme/catalog/collaborators/maintainer/permission'],
      ['api', 'repos/acme/catalog/pulls/2'],
    ]);
    expect(r.requests).toEqual([
      {
        method: 'POST',
        path: 'actions/workflows/frontier-sweep.yml/dispatches',
        body: {
          ref: 'main',
          inputs: {
            'test-name': `External PR #2 @ ${repo.head.slice(0, 12)}`,
            ref: merge,
            'changelog-base-ref': repo.main,
            'changelog-head-ref': repo.head,
            'trim-conc': 'false',
            'all-evals': 'false',
            'evals-only': 'false',
            'fail-fast': 'true',
            'agentx-fast': 'false',
            'pr-labels-json': '["full-sweep-fail-fast"]',
          },
        },
      },
    ]);
    expect(r.comments).toHaveLength(1);
    expect(r.comments[0]!.pr).toBe(2);
    expect(r.comments[0]!.body).toContain(`for the approved external revision \`${repo.head}\``);
    expect(r.comments[0]!.body).toContain('(https://github.com/acme/catalog/actions/workflows/frontier-sweep.yml)');

    // The dispatched sweep (its plan job; the benchmark jobs are workflow-run.test.ts's business), run as GitHub would: on main, with those inputs.
    const sweep = parseYaml(git(repo.dir, 'show', `${repo.main}:.github/workflows/frontier-sweep.yml`)) as Wf & {
      jobs: Record<string, unknown>;
    };
    const planOnly = '.github/workflows/plan-only.yml';
    writeFileSync(join(repo.dir, planOnly), stringify({ ...sweep, jobs: { plan: sweep.jobs.plan } }));
    const { inputs } = r.requests[0]!.body as { inputs: Record<string, string> };
    const dispatched = runWorkflowLocally({
      repo: repo.dir,
      sha: repo.main,
      workflow: planOnly,
      eventName: 'workflow_dispatch',
      event: JSON.stringify({
        ref: 'refs/heads/main',
        inputs,
        repository: { full_name: 'acme/catalog', default_branch: 'main' },
      }),
      frontier: CLI,
    });
    expect(dispatched.results, log(dispatched)).toEqual({ plan: 'success' });
    const plan = dispatched.jobs[0]!;
    expect(plan.steps.find((s) => s.name === 'Check out')!.log).toBe(`checked out ${merge} (${merge})`);
    expect(plan.outputs).toMatchObject({
      run: 'true',
      official: 'false',
      canary: 'false',
      'fail-fast': 'true',
      'ingest-args': '--unofficial',
    });
    const planLog = plan.steps.find((s) => s.name === 'Plan the sweep')!.log;
    expect(planLog).toContain(
      `why: dispatched (External PR #2 @ ${repo.head.slice(0, 12)}): the changelog entries from ${repo.main} to ${repo.head}`,
    );
    // The rows are the pull request's entry, at its revision: the new image.
    const rows = JSON.parse(plan.outputs.jobs!) as { image: string; model: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.image))).toEqual(new Set(['frontier/sim:v2']));
  }, 60_000);

  it('a label by someone with triage (read) permission dispatches nothing, and says why', () => {
    const r = external(repo, payload({ head: repo.head, base: repo.main, sender: 'helper' }), {
      'collaborators/helper/permission': permissionAnswer('helper', 'read', 'triage'),
      'pulls/2': pullAnswer({ head: repo.head, base: repo.main, merge }),
    });
    expect(r.results).toEqual({ dispatch: 'failure' });
    expect(stepOf(r, 'Authorize').conclusion).toBe('failure');
    expect(stepOf(r, 'Authorize').log).toContain('external sweep: refused (pull request #2)');
    expect(stepOf(r, 'Dispatch the sweep').conclusion).toBe('skipped');
    expect(r.requests).toEqual([]);
    expect(r.comments.map((c) => c.body)).toEqual([
      `<!-- frontier-external-sweep -->\nNo sweep was dispatched for \`${repo.head}\`: @helper has read permission (role triage); write, maintain, or admin permission is required to authorize external code.\n`,
    ]);
  });

  it('a push after approval needs a new label: the old label event is refused, a new one approves the new head', () => {
    git(repo.dir, 'checkout', '-q', 'pr');
    git(repo.dir, 'commit', '-q', '--allow-empty', '-m', 'one more change');
    const newer = git(repo.dir, 'rev-parse', 'HEAD');
    git(repo.dir, 'checkout', '-q', 'main');
    const newerMerge = repo.merge(newer, 2);
    const api = {
      'collaborators/maintainer/permission': permissionAnswer('maintainer', 'admin'),
      'pulls/2': pullAnswer({ head: newer, base: repo.main, merge: newerMerge }),
    };
    // The label was applied to the old head; by the time the workflow reads the pull request, it moved.
    const stale = external(repo, payload({ head: repo.head, base: repo.main }), api);
    expect(stale.results).toEqual({ dispatch: 'failure' });
    expect(stale.requests).toEqual([]);
    expect(stale.comments[0]!.body).toContain(
      `the PR advanced from ${repo.head} to ${newer}; remove and re-add the sweep label to approve the new revision`,
    );
    const relabelled = external(repo, payload({ head: newer, base: repo.main }), api);
    expect(relabelled.results, log(relabelled)).toEqual({ dispatch: 'success' });
    expect(relabelled.requests.map((q) => (q.body as { inputs: Record<string, string> }).inputs)).toEqual([
      expect.objectContaining({
        ref: newerMerge,
        'changelog-head-ref': newer,
        'test-name': `External PR #2 @ ${newer.slice(0, 12)}`,
      }),
    ]);
  });

  it('a pull request from this repository is not this workflow’s business: nothing runs', () => {
    const r = external(repo, payload({ head: repo.head, base: repo.main, headRepo: 'acme/catalog' }), {});
    expect(r.results).toEqual({ dispatch: 'skipped' });
    expect(r.gh).toEqual([]);
    expect(r.comments).toEqual([]);
  });
});

describe('the recipe reminder workflow, run locally', () => {
  const repo = forkRepository();
  const opened = (headRepo: string) => {
    const event = JSON.parse(payload({ head: repo.head, base: repo.main, headRepo })) as Record<string, unknown>;
    return JSON.stringify({ ...event, action: 'opened', label: undefined });
  };
  const remind = (event: string, api: Record<string, unknown>) =>
    runWorkflowLocally({
      repo: repo.dir,
      sha: repo.main,
      workflow: REMINDER,
      eventName: 'pull_request_target',
      event,
      frontier: CLI,
      api,
    });

  it('a fork’s new pull request is reminded once, with the maintainer’s label in the text', () => {
    const r = remind(opened('vendor/catalog'), { 'issues/2/comments': [] });
    expect(r.results, log(r)).toEqual({ remind: 'success' });
    expect(r.comments).toHaveLength(1);
    expect(r.comments[0]!.pr).toBe(2);
    expect(r.comments[0]!.body).toContain('<!-- frontier-recipe-reminder -->');
    expect(r.comments[0]!.body).toContain('a maintainer approves its current head by adding the `full-sweep-fail-fast` label');
    const again = remind(opened('vendor/catalog'), {
      'issues/2/comments': [{ body: r.comments[0]!.body, user: { login: 'bot' } }],
    });
    expect(again.results).toEqual({ remind: 'success' });
    expect(again.jobs[0]!.steps.find((s) => s.name === 'Remind')!.conclusion).toBe('skipped');
    expect(again.comments).toEqual([]);
  });
});
