import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/review/index.js';
import type { LintReport, ReviewReport } from '../../src/review/index.js';
import { git, inferencexTree, runCli, tempFiles } from '../helpers.js';

const RECIPES = 'benchmarks/multi_node/srt-slurm-recipes';
const B200 = `${RECIPES}/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml`;

/** The fixture tree as a git repository: main, and a branch `b200` with the B200 recipe mistakes. */
let repo: string;
beforeAll(() => {
  repo = join(tempFiles({}), 'repo');
  cpSync(inferencexTree(), repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  git(repo, 'checkout', '-q', '-b', 'b200');
  const path = join(repo, B200);
  writeFileSync(
    path,
    readFileSync(path, 'utf8')
      .replace('  install: true\n', '  install: false\n')
      .replace('health_check:\n  max_attempts: 240\n', 'slurm:\n  time_limit: "1:00:00"\n'),
  );
  // The pull request's changelog entry, so that the recipe change is swept.
  appendFileSync(
    join(repo, 'perf-changelog.yaml'),
    '\n- config-keys:\n    - dsv4-fp4-b200-dynamo-sglang-mtp\n  description:\n    - "B200 recipe"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/7\n',
  );
  git(repo, 'commit', '-q', '-am', 'B200 recipe: no Dynamo install, 1 h limit');
  git(repo, 'checkout', '-q', 'main');
});

describe('frontier review', () => {
  it('reviews git refs without a checkout: both B200 errors, exit 1', () => {
    const result = runCli(['-C', repo, 'review', '--base', 'main', '--head', 'b200', '--pr', '7']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(1);
    const out = result.stdout;
    expect(out).toContain('Review of b200 against main');
    expect(out).toContain(`recipes: 0 added, 1 changed, 0 removed\n      ~ ${B200}`);
    expect(out).toContain('Findings on this change: 2 errors, 0 warnings');
    expect(out).toContain(`b200:${B200}:10:12  dynamo.install  frontend.type is dynamo but dynamo.install is false`);
    expect(out).toContain(
      `b200:${B200}:32:15  slurm.time_limit  slurm.time_limit is 1:00:00 (cluster default 4 h) and there is no health_check block`,
    );
    expect(out).toMatch(/Pre-existing findings \(on what this change does not touch\): 15 errors, 277 warnings/);
    expect(out.trimEnd().split('\n').pop()).toBe('✗ 2 errors on this change (292 other findings not on this change)');
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  });

  it('--format markdown: a table of the change’s findings, pre-existing ones folded', () => {
    const result = runCli(['-C', repo, 'review', '--base', 'main', '--head', 'b200', '--format', 'markdown']);
    expect(result.status).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(
      '## Frontier review: ✗ 2 errors on this change (292 other findings not on this change)',
    );
    expect(result.stdout).toContain('| ✗ | `b200:' + B200 + ':10` | `recipe/dynamo-install-disabled` |');
    expect(result.stdout).toContain(
      '<details><summary>Pre-existing findings (on what this change does not touch): 15 errors, 277 warnings</summary>',
    );
  });

  it('--format json carries every finding with its status', () => {
    const result = runCli(['-C', repo, 'review', '--base', 'main', '--head', 'b200', '--format', 'json']);
    const report = JSON.parse(result.stdout) as ReviewReport;
    expect(report.ok).toBe(false);
    expect(report.findings.filter((f) => f.status === 'new').map((f) => f.rule)).toEqual([
      'recipe/dynamo-install-disabled',
      'recipe/short-time-limit-without-health-check',
    ]);
  });

  it('an unchanged tree reviews clean, exit 0', () => {
    const result = runCli(['-C', repo, 'review', '--base', 'main', '--head', 'main']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Findings on this change: none');
    expect(result.stdout.trimEnd().split('\n').pop()).toBe(
      '✓ no findings on this change (292 other findings not on this change)',
    );
  });

  it('--since with the head itself leaves nothing new to decide on', () => {
    const result = runCli(['-C', repo, 'review', '--base', 'main', '--head', 'b200', '--since', 'b200']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Findings on earlier commits of this change (reviewed at b200): 2 errors, 0 warnings');
  });

  it('says what is missing when the base is not given, or is not a revision', () => {
    expect(runCli(['-C', repo, 'review'])).toMatchObject({
      status: 1,
      stderr: 'frontier: error: the base revision is missing: give --base <ref> (e.g. origin/main) or --base-dir <dir>\n',
    });
    const bad = runCli(['-C', repo, 'review', '--base', 'no-such-ref']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^frontier: error: .*no-such-ref/);
  });
});

describe('frontier lint', () => {
  it('runs every tree rule over the fixture tree and exits 1 on its real errors', () => {
    const result = runCli(['lint', repo]);
    expect(result.status).toBe(1);
    const last = result.stdout.trimEnd().split('\n').pop();
    expect(last).toBe(
      `✗ ${repo}: 208 config keys, 469 recipes: 15 errors, 277 warnings (recipe/config-file-unverifiable ×211, specdec/eval-injection-on-request ×58, config/runner-label ×8, recipe/schema ×8, specdec/golden-al ×4, recipe/image-mismatch ×2, recipe/dynamo-version-mismatch ×1)`,
    );
  });

  it('--ref lints a git revision; --format json', () => {
    const report = JSON.parse(runCli(['lint', repo, '--ref', 'b200', '--format', 'json']).stdout) as LintReport;
    expect(report.findings.filter((f) => f.severity === 'error')).toHaveLength(17);
  });

  it('a clean tree exits 0', () => {
    const dir = tempFiles({
      'configs/example-master.yaml': readFileSync(join(__dirname, '../../examples/configs/example-master.yaml'), 'utf8'),
      'configs/runners.yaml': readFileSync(join(__dirname, '../../examples/configs/runners.yaml'), 'utf8'),
    });
    const result = runCli(['lint', dir]);
    expect(result.stdout).toBe(`✓ ${dir}: 5 config keys, 0 recipes: 0 errors, 0 warnings\n`);
    expect(result.status).toBe(0);
  });
});

describe('frontier rules', () => {
  it('lists every rule with severity and scope', () => {
    const out = runCli(['rules']).stdout;
    for (const id of [
      'recipe/dynamo-install-disabled',
      'recipe/colocation-does-not-fit',
      'recipe/dangling-reference',
      'changelog/separator',
      'changelog/reruns-untouched-scenario',
    ]) {
      expect(out).toMatch(new RegExp(`^${id}\\s+(error|warning)\\s+(lint|review)`, 'm'));
    }
    expect(out).toMatch(new RegExp(`^${RULES.length} rules;`, 'm'));
  });

  it('explains one rule, and refuses an unknown id', () => {
    const out = runCli(['rules', 'recipe/short-time-limit-without-health-check']).stdout;
    expect(out.split('\n')[0]).toBe('recipe/short-time-limit-without-health-check  (error, lint and review)');
    expect(out).toContain('health_check');
    expect(runCli(['rules', 'recipe/nope'])).toMatchObject({
      status: 1,
      stderr: 'frontier: error: no rule recipe/nope; `frontier rules` lists them\n',
    });
  });
});

describe('frontier recipe plan', () => {
  it('prints nodes, the per-node GPU map and totals', () => {
    const result = runCli(['recipe', 'plan', join(repo, B200)]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      [
        `${join(repo, B200)}: disagg-b200-8k1k-low-latency-1p1d-tp8-tp8-mtp`,
        '  backend sglang, disaggregated, 8 GPUs per node',
        '  prefill 1 × 8 GPUs  engine: tp 8, dp 1, ep 1, pp 1 → 8 GPUs',
        '  decode  1 × 8 GPUs  engine: tp 8, dp 1, ep 1, pp 1 → 8 GPUs',
        '  nodes: 2 (2 worker), GPUs used 16 of 16',
        '  node0: prefill_0 GPUs 0-7',
        '  node1: decode_0 GPUs 0-7',
        '',
      ].join('\n'),
    );
  });

  it('reports a colocation that does not fit with file:line, exit 1; --format json', () => {
    const dir = tempFiles({
      'colocated.yaml': [
        'name: colocated',
        'model: { path: m, container: "vllm/vllm-openai:v0.21.0", precision: fp8 }',
        'resources: { gpu_type: h200, gpus_per_node: 8, prefill_nodes: 1, prefill_workers: 8, gpus_per_prefill: 1,',
        '  decode_nodes: 0, decode_workers: 2, gpus_per_decode: 8 }',
        'backend: { type: vllm, allow_prefill_decode_colocation: true }',
        '',
      ].join('\n'),
    });
    const file = join(dir, 'colocated.yaml');
    const result = runCli(['recipe', 'plan', file]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      `  ${file}:4:17  resources.decode_nodes  decode_nodes: 0 puts decode on the prefill nodes, but 8×1-GPU prefill + 2×8-GPU decode = 24 GPUs do not fit`,
    );
    const json = JSON.parse(runCli(['recipe', 'plan', file, '--format', 'json']).stdout) as {
      plan: { workerNodes: number };
      problems: { rule: string }[];
    }[];
    expect(json[0]!.plan.workerNodes).toBe(1);
    expect(json[0]!.problems.map((p) => p.rule)).toEqual(['recipe/colocation-does-not-fit']);
  });

  it('plans every variant of an override file, or the one a selector names', () => {
    const dir = tempFiles({
      'sweep.yaml': [
        'base:',
        '  name: s',
        '  model: { path: m, container: c, precision: fp8 }',
        '  resources: { gpu_type: h200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1 }',
        'zip_override_tp:',
        '  resources:',
        '    agg_workers: [1, 2]',
        '',
      ].join('\n'),
    });
    const all = runCli(['recipe', 'plan', join(dir, 'sweep.yaml')]).stdout;
    expect(all).toContain(':zip_override_tp[0]: s_tp_0');
    expect(all).toContain('agg     2 × 4 GPUs');
    const one = runCli(['recipe', 'plan', `${join(dir, 'sweep.yaml')}:zip_override_tp[1]`]).stdout;
    expect(one.split('\n')[0]).toBe(`${join(dir, 'sweep.yaml')}:zip_override_tp[1]: s_tp_1`);
    const bad = runCli(['recipe', 'plan', `${join(dir, 'sweep.yaml')}:zip_override_tp[5]`]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/Index \[5\] out of range/);
  });

  it('a missing file is one clear line', () => {
    expect(runCli(['recipe', 'plan', 'nope.yaml'])).toMatchObject({
      status: 1,
      stderr: 'frontier: error: nope.yaml: no such recipe file\n',
    });
  });
});
