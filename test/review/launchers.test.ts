import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import {
  excludedNodesFor,
  importClusters,
  nodeExcludesFor,
  parseClusterProfile,
  parseNodeExcludes,
  readCloneRoutes,
} from '../../src/clusters/index.js';
import { lint, loadTree, review } from '../../src/review/index.js';
import type { RuleFinding } from '../../src/review/index.js';
import { edit } from './edit-tree.js';
import { REPO, git, inferencexTree, runCli, tempFiles } from '../helpers.js';

/**
 * The launcher rules and `frontier clusters import` on InferenceX's real launchers (the fixture
 * tree's runners/, copied from the reference), and on small launchers written for the tests.
 */

const RUNNERS = join(REPO, 'test/fixtures/inferencex/tree/runners');
const B200 = 'runners/launch_b200-dgxc.sh';

/** The fixture tree with InferenceX's launchers, writable. */
function withLaunchers(): string {
  const dir = inferencexTree();
  cpSync(RUNNERS, join(dir, 'runners'), { recursive: true });
  for (const f of readdirSync(join(dir, 'runners'))) chmodSync(join(dir, 'runners', f), 0o644);
  return dir;
}

const of = (findings: RuleFinding[], rule: string): RuleFinding[] => findings.filter((f) => f.rule === rule);
const where = (f: RuleFinding, dir: string): string => `${f.file.slice(dir.length + 1)}:${f.line}`;

let tree: string;
let findings: RuleFinding[];
beforeAll(async () => {
  tree = withLaunchers();
  findings = (await lint(dirSnapshot(tree))).findings;
}, 60_000);

describe('frontier lint on an InferenceX tree with runners/', () => {
  it('reports every clone that ends on a branch or the default branch, with its line and the recipes it serves', () => {
    const moving = readdirSync(RUNNERS)
      .filter((f) => /^launch_.*\.sh$/.test(f))
      .flatMap((f) =>
        readCloneRoutes(readFileSync(join(RUNNERS, f), 'utf8'))
          .routes.filter((r) => ['branch', 'default', 'unknown'].includes(r.ref.kind))
          .map((r) => `runners/${f}:${r.ref.line}`),
      );
    const unpinned = of(findings, 'launcher/unpinned-toolchain');
    expect(unpinned.map((f) => where(f, tree)).sort()).toEqual([...new Set(moving)].sort());
    expect(unpinned.length).toBeGreaterThanOrEqual(30);
    const seed = unpinned.find((f) => where(f, tree) === `${B200}:191`)!;
    expect(seed.message).toBe(
      'the clone of https://github.com/NVIDIA/srt-slurm.git at line 191 ([[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "minimaxm3" && $PRECISION == "fp4" ]]) ends on the default branch (no --branch and no checkout); no current row reaches it',
    );
    const fallback = unpinned.find((f) => where(f, tree) === `${B200}:221`)!;
    expect(fallback.message).toMatch(
      /^the clone of \S+ at line 219 \(the else branch\) ends on branch sa-submission-q2-2026, which moves; it serves 42 rows: /,
    );
    expect(fallback.message).toContain(
      'dsr1-fp8-b200-dynamo-trt (recipes/trtllm/b200-fp8/8k1k/mtp/…, recipes/trtllm/b200-fp8/8k1k/stp/…)',
    );
  });

  it('does not report commits, verified tags, release tags or short shas', () => {
    const lines = of(findings, 'launcher/unpinned-toolchain').map((f) => where(f, tree));
    // A full commit (b200-dgxc 209), tags checked against a commit (gb200-nv 406), a release tag (b200-dgxc 215).
    for (const pinned of [`${B200}:209`, 'runners/launch_gb200-nv.sh:406', `${B200}:215`]) expect(lines).not.toContain(pinned);
  });

  it('reports a branch no row reaches, and one an earlier arm shadows', () => {
    const dead = of(findings, 'launcher/dead-branch');
    const shadowed = dead.find((f) => where(f, tree) === 'runners/launch_gb200-nv.sh:517')!;
    expect(shadowed.severity).toBe('warning');
    expect(shadowed.message).toContain('the branch at line 496 tests the same and comes first');
  });

  it('every srt-slurm row of the real tree reaches a clone', () => {
    expect(of(findings, 'launcher/unrouted-row')).toEqual([]);
  });
});

describe('frontier review of launcher changes', () => {
  it('the seed: a new branch that clones with no checkout is the change’s error, at its line, with the rows it takes', async () => {
    const head = withLaunchers();
    edit(
      head,
      B200,
      '    else\n        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n        cd "$SRT_REPO_DIR" || exit 1\n        git checkout sa-submission-q2-2026',
      '    elif [[ $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "dsr1" && $PRECISION == "fp8" ]]; then\n        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n        cd "$SRT_REPO_DIR" || exit 1\n    else\n        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n        cd "$SRT_REPO_DIR" || exit 1\n        git checkout sa-submission-q2-2026',
    );
    const report = await review(dirSnapshot(tree), dirSnapshot(head), { pr: 1 });
    const own = report.findings.filter((f) => f.status === 'new');
    expect(own.map((f) => [f.rule, where(f, head)])).toEqual([['launcher/unpinned-toolchain', `${B200}:219`]]);
    expect(own[0]!.message).toMatch(
      /ends on the default branch \(no --branch and no checkout\); it serves 15 rows: dsr1-fp8-b200-dynamo-trt \(/,
    );
    expect(report.ok).toBe(false);
    expect(report.change.launchers.changed).toEqual([B200]);
  });

  it('an unrelated edit of a launcher leaves its old unpinned clones to the tree', async () => {
    const head = withLaunchers();
    edit(head, B200, 'echo "Cloning srt-slurm repository..."', 'echo "Cloning the srt-slurm repository..."');
    const report = await review(dirSnapshot(tree), dirSnapshot(head), { pr: 1 });
    expect(report.findings.filter((f) => f.status === 'new')).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('a chain that drops its else leaves rows with no clone', async () => {
    const head = withLaunchers();
    edit(
      head,
      'runners/launch_b300-nv.sh',
      'else\n    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n',
      'elif [[ $FRAMEWORK == "none" ]]; then\n    git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n',
    );
    const report = await review(dirSnapshot(tree), dirSnapshot(head), { pr: 1 });
    const unrouted = report.findings.filter((f) => f.rule === 'launcher/unrouted-row' && f.status === 'new');
    expect(unrouted.map((f) => f.key)).toEqual(['dsr1-fp4-b300-dynamo-trt', 'dsr1-fp8-b300-dynamo-trt']);
    expect(unrouted[0]!.message).toMatch(
      /^\d+ rows of this config \(dynamo-trt dsr1 fp4\) reach no srt-slurm clone of runners\/launch_b300-nv.sh/,
    );
  });
});

describe('frontier clusters import', () => {
  it('writes one profile per launcher that clones srt-slurm, routing every row as the launcher does', async () => {
    const profiles = await importClusters(await loadTree(dirSnapshot(tree)));
    expect(profiles.map((p) => p.file)).toEqual([
      'b200-dgxc.yaml',
      'b200-nscale-slurm.yaml',
      'b300-nv.yaml',
      'gb200-nv.yaml',
      'gb300-nv.yaml',
      'h100-dgxc-slurm.yaml',
      'h200-dgxc-slurm.yaml',
    ]);
    for (const p of profiles) expect(p.disagreements, p.file).toEqual([]);
    const gb200 = profiles.find((p) => p.file === 'gb200-nv.yaml')!;
    expect(gb200.text).toContain(
      '  # runners/launch_gb200-nv.sh:403-412, clone at line 404; v1.0.50 verified against this commit at line 406\n  - match: { framework: dynamo-sglang, model-prefix: glm5.2, precision: fp4, scenario: agentic-coding }\n    toolchain:\n      repo: "https://github.com/NVIDIA/srt-slurm.git"\n      commit: "e4019633c9e2bc25f38c44b81edf52bb0504d937"\n',
    );
    // The power lane, which the launcher picks from the recipe's telemetry, is the recipes that enable it.
    expect(gb200.text).toMatch(
      /match: \{ framework: dynamo-sglang, model-prefix: dsv4, recipe: sglang\/deepseek-v4\/8k1k\/disagg-gb200-1p1d-tp8-tp8-4-c1.yaml \}\n {4}toolchain:\n {6}repo: "https:\/\/github.com\/edwingao28\/srt-slurm.git"/,
    );
  });

  it('carries InferenceX’s list of bad nodes (amd_utils/node_excludes.yaml) into the exclude-nodes of the launcher whose scripts read it', async () => {
    const dir = withLaunchers();
    const excludes = 'benchmarks/multi_node/amd_utils/node_excludes.yaml';
    mkdirSync(join(dir, 'benchmarks/multi_node/amd_utils'), { recursive: true });
    cpSync(join(REPO, 'test/fixtures/inferencex/tree', excludes), join(dir, excludes));
    const profiles = await importClusters(await loadTree(dirSnapshot(dir)));
    // The srt-slurm launchers' profiles as before, and one for the AMD launcher, which clones no srt-slurm.
    expect(profiles.map((p) => p.file)).toEqual([
      'b200-dgxc.yaml',
      'b200-nscale-slurm.yaml',
      'b300-nv.yaml',
      'gb200-nv.yaml',
      'gb300-nv.yaml',
      'h100-dgxc-slurm.yaml',
      'h200-dgxc-slurm.yaml',
      'mi355x-amds.yaml',
    ]);
    for (const p of profiles.slice(0, -1)) expect(p.text, p.file).not.toContain('exclude-nodes');
    const amd = profiles.at(-1)!;
    expect(amd.rules).toEqual([]);
    expect(amd.text).toContain(
      `exclude-nodes:\n  # ${excludes}:11\n  - { framework: vllm-disagg, models: [Kimi-K2.5-MXFP4], nodes: [mia1-p01-g09, mia1-p01-g10, mia1-p01-g11, mia1-p01-g12] }\n`,
    );
    // The profile reads back with the rule, which covers that framework's rows of that model only.
    const read = await parseClusterProfile('clusters/mi355x-amds.yaml', amd.text);
    expect(read.problems).toEqual([]);
    const profile = read.profile!;
    expect(profile.runners).toEqual(['cluster:mi355x-amds', 'mi355x', 'mi355x-disagg']);
    expect(profile.excludeNodeRules).toEqual([
      {
        nodes: ['mia1-p01-g09', 'mia1-p01-g10', 'mia1-p01-g11', 'mia1-p01-g12'],
        framework: 'vllm-disagg',
        models: ['Kimi-K2.5-MXFP4'],
      },
    ]);
    expect(excludedNodesFor(profile, { framework: 'vllm-disagg', model: 'amd/Kimi-K2.5-MXFP4' })).toEqual([
      'mia1-p01-g09',
      'mia1-p01-g10',
      'mia1-p01-g11',
      'mia1-p01-g12',
    ]);
    expect(excludedNodesFor(profile, { framework: 'sglang-disagg', model: 'amd/Kimi-K2.5-MXFP4' })).toEqual([]);
    // As submit.sh resolves it for a row.
    const parsed = await parseNodeExcludes(readFileSync(join(dir, excludes), 'utf8'), excludes);
    expect(nodeExcludesFor(parsed, { framework: 'vllm-disagg', model: 'amd/Kimi-K2.5-MXFP4' })).toHaveLength(4);
    expect(nodeExcludesFor(parsed, { framework: 'vllm-disagg', model: 'amd/DeepSeek-R1' })).toEqual([]);
    const cli = runCli(['clusters', 'import', dir, '--out', '-']);
    expect(cli.stderr).toContain(
      `mi355x-amds.yaml: 0 routing rules from runners/launch_mi355x-amds.sh, 1 node exclusion rule from ${excludes}\n`,
    );
  });

  it('with --resolve (git ls-remote) the profiles pin every ref and pass lint; without, lint names what to pin', () => {
    const remote = tempFiles({ 'README.md': 'srt-slurm\n' });
    git(remote, 'init', '-q', '-b', 'main');
    git(remote, 'add', '-A');
    git(remote, 'commit', '-q', '-m', 'one');
    git(remote, 'branch', 'release');
    git(remote, 'tag', '-a', 'v9.9.9', '-m', 'release');
    const head = git(remote, 'rev-parse', 'HEAD').trim();
    const dir = inferencexTree();
    mkdirSync(join(dir, 'runners'));
    writeFileSync(
      join(dir, 'runners/launch_b300-nv.sh'),
      [
        '#!/bin/bash',
        'if [[ "$IS_MULTINODE" == "true" ]]; then',
        '    if [[ $FRAMEWORK == "dynamo-trt" && $PRECISION == "fp4" ]]; then',
        '        git clone --branch release --single-branch https://github.com/NVIDIA/srt-slurm.git srt-slurm',
        '    elif [[ $FRAMEWORK == "dynamo-trt" ]]; then',
        '        git clone https://github.com/NVIDIA/srt-slurm.git srt-slurm',
        '        cd srt-slurm && git checkout v9.9.9',
        '    else',
        '        git clone https://github.com/NVIDIA/srt-slurm.git srt-slurm',
        '    fi',
        'fi',
        '',
      ].join('\n'),
    );
    // The repository the launcher names, served from a local copy.
    const env = {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `url.${remote}.insteadOf`,
      GIT_CONFIG_VALUE_0: 'https://github.com/NVIDIA/srt-slurm.git',
    };
    const clusterErrors = (): string[] =>
      (JSON.parse(runCli(['lint', dir, '--format', 'json']).stdout) as { findings: RuleFinding[] }).findings
        .filter((f) => f.rule.startsWith('clusters/') && f.severity === 'error')
        .map((f) => `${f.rule} ${f.file.slice(dir.length + 1)}:${f.line}`);

    const plain = runCli(['clusters', 'import', dir], { env });
    expect(plain.status).toBe(0);
    expect(plain.stderr).toBe(
      `${join(dir, 'clusters/b300-nv.yaml')}: 3 routing rules from runners/launch_b300-nv.sh, 3 not pinned to a commit (--resolve pins them)\n`,
    );
    expect(clusterErrors()).toEqual([
      'clusters/unpinned-toolchain clusters/b300-nv.yaml:20',
      'clusters/unpinned-toolchain clusters/b300-nv.yaml:25',
      'clusters/unpinned-toolchain clusters/b300-nv.yaml:30',
    ]);
    expect(runCli(['clusters', 'import', dir], { env })).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('exist: pass --force to overwrite'),
    });

    const resolved = runCli(['clusters', 'import', dir, '--resolve', '--force'], { env });
    expect(resolved.stderr).toBe(`${join(dir, 'clusters/b300-nv.yaml')}: 3 routing rules from runners/launch_b300-nv.sh\n`);
    const text = readFileSync(join(dir, 'clusters/b300-nv.yaml'), 'utf8');
    expect(text.match(new RegExp(`commit: "${head}"`, 'g'))).toHaveLength(3);
    expect(text).toContain(
      '# runners/launch_b300-nv.sh:3-4, clone at line 4; branch release at line 4, resolved to this commit on',
    );
    expect(text).toContain('  - match: { framework: dynamo-trt, precision: fp4 }');
    expect(clusterErrors()).toEqual([]);
  });
});
