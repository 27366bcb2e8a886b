import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGithubOutput } from '../../src/ci/output.js';
import { git, runCli, tempFiles } from '../helpers.js';
import { catalogRepository, pullRequestEvent } from './repository.js';
import type { CatalogRepository } from './repository.js';

function plan(repo: CatalogRepository, eventName: string, payload: string, ...args: string[]) {
  const work = tempFiles({ 'event.json': payload, 'out.txt': '' });
  const result = runCli(['ci', 'plan', '--event', join(work, 'event.json'), '--event-name', eventName, ...args], {
    cwd: repo.dir,
    env: { GITHUB_OUTPUT: join(work, 'out.txt') },
  });
  return { ...result, outputs: parseGithubOutput(readFileSync(join(work, 'out.txt'), 'utf8')), work };
}

describe('frontier ci plan', () => {
  const repo = catalogRepository();

  it('a full sweep on a labelled pull request: the canary split off, the rest as jobs, the files run takes', () => {
    const event = pullRequestEvent(repo, { action: 'labeled', label: 'full-sweep-enabled', labels: ['full-sweep-enabled'] });
    const r = plan(repo, 'pull_request', event, '--base', 'main', '--out', 'sweep');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('sweep: runs (unofficial)');
    expect(r.stdout).toContain('why: `full-sweep-enabled`: the full sweep, after a canary');
    expect(r.stdout).toContain('canary: llama3.1-8b_1024_64 h100 conc 1; if it fails, nothing else runs');
    expect(r.outputs).toMatchObject({
      run: 'true',
      official: 'false',
      canary: 'true',
      'fail-fast': 'false',
      'trim-conc': 'false',
      check: 'success',
      'ingest-args': '--unofficial',
    });
    const canary = JSON.parse(r.outputs['canary-config']!) as { conc: number; image: string }[];
    expect(canary.map((c) => [c.image, c.conc])).toEqual([['frontier/sim:v2', 1]]);
    const jobs = JSON.parse(r.outputs.jobs!) as { conc: number; isl: number }[];
    const all = JSON.parse(readFileSync(join(repo.dir, 'sweep/sweep.json'), 'utf8')) as {
      single_node: Record<string, unknown[]>;
    };
    expect(jobs).toHaveLength(Object.values(all.single_node).flat().length - 1);
    expect(jobs.some((j) => j.conc === 1 && j.isl === 1024)).toBe(false);
    expect(JSON.parse(readFileSync(join(repo.dir, 'sweep/canary.json'), 'utf8'))).toEqual(canary);
    // The canary is the sweep's own row as its JSON has it (defaults such as eval-only: false filled in).
    expect(Object.values(all.single_node).flat()).toContainEqual(canary[0]);
    expect(canary[0]).toHaveProperty('eval-only', false);
    expect(JSON.parse(readFileSync(join(repo.dir, 'sweep/changelog_metadata.json'), 'utf8'))).toMatchObject({ base_ref: 'main' });

    // The files are what `frontier run --matrix` takes.
    const dry = runCli(
      [
        'run',
        '--matrix',
        'sweep/rest.json',
        '--dry-run',
        '--clusters',
        join(process.cwd(), 'examples/clusters'),
        '--cluster',
        'local-sim',
        '--format',
        'json',
      ],
      { cwd: repo.dir },
    );
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
  });

  it('fail-fast without a canary, a trimmed sweep, and the eval labels', () => {
    const noCanary = plan(
      repo,
      'pull_request',
      pullRequestEvent(repo, { labels: ['full-sweep-fail-fast-no-canary', 'evals-only'] }),
      '--base',
      'main',
    );
    expect(noCanary.outputs).toMatchObject({
      run: 'true',
      canary: 'false',
      'fail-fast': 'true',
      evals: 'only',
      'canary-config': '[]',
    });
    expect(noCanary.stdout).toContain('fail-fast: a failed job cancels the rest of its job list');

    const trimmed = plan(
      repo,
      'pull_request',
      pullRequestEvent(repo, { labels: ['sweep-enabled', 'agentx-fast'] }),
      '--base',
      'main',
    );
    expect(trimmed.outputs).toMatchObject({ run: 'true', 'trim-conc': 'true', canary: 'false', 'agentx-fast': 'true' });
    expect((JSON.parse(trimmed.outputs.jobs!) as unknown[]).length).toBe(3); // one concurrency per recipe
    expect(trimmed.stdout).toContain('note: `agentx-fast` changes nothing: the sweep has no agentic rows');
  });

  it('conflicting sweep labels fail the step with the labels named', () => {
    const r = plan(
      repo,
      'pull_request',
      pullRequestEvent(repo, { labels: ['sweep-enabled', 'full-sweep-enabled'] }),
      '--base',
      'main',
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('why: conflicting sweep labels `sweep-enabled`, `full-sweep-enabled`: pick exactly one');
    expect(r.outputs).toMatchObject({ run: 'false', check: 'failure' });
  });

  it('skips, saying why: a label that changes nothing, a draft, [skip-sweep], a fork, no sweep label', () => {
    const unrelated = plan(
      repo,
      'pull_request',
      pullRequestEvent(repo, { action: 'labeled', label: 'documentation', labels: ['full-sweep-enabled', 'documentation'] }),
      '--base',
      'main',
    );
    expect(unrelated.status).toBe(0);
    expect(unrelated.stdout).toContain('labeled `documentation`: not a sweep, modifier or policy label, so it changes nothing');
    expect(unrelated.outputs).toMatchObject({ run: 'false', check: 'skipped' });

    expect(
      plan(repo, 'pull_request', pullRequestEvent(repo, { labels: ['full-sweep-enabled'], draft: true }), '--base', 'main')
        .outputs.reason,
    ).toBe('the pull request is a draft');
    expect(
      plan(
        repo,
        'pull_request',
        pullRequestEvent(repo, { labels: ['full-sweep-enabled'], headRepo: 'someone/catalog' }),
        '--base',
        'main',
      ).outputs.reason,
    ).toMatch(/fork/);
    const lone = plan(repo, 'pull_request', pullRequestEvent(repo, { labels: ['all-evals'] }), '--base', 'main');
    expect(lone.stdout).toContain('note: `all-evals` changes nothing without a sweep label');

    const tagged = catalogRepository('docs only [skip-sweep]');
    const skipped = plan(tagged, 'pull_request', pullRequestEvent(tagged, { labels: ['full-sweep-enabled'] }), '--base', 'main');
    expect(skipped.outputs).toMatchObject({ run: 'false', reason: 'the head commit says [skip-sweep]' });
  });

  it('a changelog that does not cover the change fails the check', () => {
    const broken = catalogRepository();
    git(broken.dir, 'checkout', '-q', 'pr');
    writeFileSync(join(broken.dir, 'perf-changelog.yaml'), git(broken.dir, 'show', 'main:perf-changelog.yaml') + '\n');
    git(broken.dir, 'commit', '-q', '-am', 'no entry');
    const head = git(broken.dir, 'rev-parse', 'HEAD');
    const r = plan(
      { ...broken, head },
      'pull_request',
      pullRequestEvent({ ...broken, head }, { labels: ['full-sweep-enabled'] }),
      '--base',
      'main',
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('why: the perf-changelog check failed');
    expect(r.stdout).toMatch(/changelog: .*configs\/example-master.yaml:\d+: config changed/);
  });

  it('a push to main is the official sweep; with a reused run, that run is ingested instead', () => {
    const push = JSON.stringify({
      ref: 'refs/heads/main',
      before: repo.base,
      after: repo.head,
      repository: { full_name: 'acme/catalog' },
      head_commit: { message: 'Merge #2 [skip-sweep]' },
    });
    const r = plan(repo, 'push', push);
    expect(r.status).toBe(0);
    expect(r.outputs).toMatchObject({ run: 'true', official: 'true', canary: 'false', 'ingest-args': '--official' });
    expect(r.stdout).toContain('note: [skip-sweep] is ignored on a push to main');
    const reused = plan(repo, 'push', push, '--reuse-source-run', '4242');
    expect(reused.outputs).toMatchObject({
      run: 'false',
      'reuse-source-run': '4242',
      'ingest-args': '--official --source-run 4242',
    });
    expect(reused.outputs.reason).toMatch(/run 4242's results are ingested as this merge's official results/);
    // The sweep is still written (the reused artifacts are checked against it); nothing is queued to run.
    expect(reused.outputs.jobs).toBe('[]');
    expect(JSON.parse(reused.outputs['search-space-config']!)).toMatchObject({ changelog_metadata: { head_ref: repo.head } });
  });

  it('a dispatch runs the matrix its input names', () => {
    const dispatch = JSON.stringify({
      ref: 'refs/heads/main',
      repository: { full_name: 'acme/catalog' },
      inputs: {
        'generate-cli-command': 'test-config --config-files configs/example-master.yaml --config-keys llama3.1-8b-fp8-h100-sim',
      },
    });
    const r = plan(repo, 'workflow_dispatch', dispatch);
    expect(r.status).toBe(0);
    expect(r.outputs).toMatchObject({ run: 'true', official: 'false', canary: 'false' });
    expect((JSON.parse(r.outputs.jobs!) as { framework: string }[]).every((row) => row.framework === 'sim')).toBe(true);
    const bad = plan(repo, 'workflow_dispatch', JSON.stringify({ inputs: { 'generate-cli-command': 'rm -rf /' } }));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('starts with full-sweep or test-config');
  });

  it('bad input: no payload, a payload that is not JSON, an event it does not know', () => {
    const work = tempFiles({ 'bad.json': '{"action":' });
    const none = runCli(['ci', 'plan', '--event-name', 'push'], { cwd: repo.dir, env: { GITHUB_EVENT_PATH: '' } });
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('no event payload');
    const notJson = runCli(['ci', 'plan', '--event', join(work, 'bad.json'), '--event-name', 'push'], { cwd: repo.dir });
    expect(notJson.stderr).toMatch(/bad\.json: not JSON/);
    const unknown = runCli(['ci', 'plan', '--event', join(work, 'bad.json'), '--event-name', 'release'], { cwd: repo.dir });
    expect(unknown.stderr).toContain('event "release" is not one Frontier decides on');
  });
});
