import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { RULES, lint, review } from '../../src/review/index.js';
import type { RuleFinding } from '../../src/review/index.js';
import { REPO, tempFiles } from '../helpers.js';

/** A small catalog with three multinode keys and three cluster profiles (see its files). */
const FIXTURE = join(REPO, 'test/fixtures/clusters/tree');
const B300 = 'clusters/b300.yaml';
const GB200 = 'clusters/gb200.yaml';

/** A copy of the fixture tree, with files replaced (path → text, or null to delete). */
function tree(files: Record<string, string | null> = {}): string {
  const dir = join(tempFiles({}), 'tree');
  cpSync(FIXTURE, dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    if (text === null) rmSync(join(dir, path), { recursive: true });
    else writeFileSync(join(dir, path), text);
  }
  return dir;
}

const fixture = (path: string): string => readFileSync(join(FIXTURE, path), 'utf8');

/** Replace `old` (which must be there) in a fixture file. */
function edited(path: string, old: string, replacement: string): Record<string, string> {
  const text = fixture(path);
  if (!text.includes(old)) throw new Error(`test setup: ${JSON.stringify(old)} not in ${path}`);
  return { [path]: text.replace(old, replacement) };
}

const clusterFindings = async (dir: string): Promise<RuleFinding[]> =>
  (await lint(dirSnapshot(dir))).findings.filter((f) => f.rule.startsWith('clusters/'));

const lineOf = (dir: string, path: string, needle: string): number =>
  readFileSync(join(dir, path), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle)) + 1;

describe('cluster profiles in the reviewed tree', () => {
  it('the fixture tree has no cluster findings (routed, pinned, nothing shadowed)', async () => {
    expect(await clusterFindings(tree())).toEqual([]);
  });

  it('a tree without clusters/ has no cluster findings at all', async () => {
    expect(await clusterFindings(tree({ clusters: null }))).toEqual([]);
  });

  it('the rules are listed with their severities', () => {
    const rules = Object.fromEntries(RULES.filter((r) => r.id.startsWith('clusters/')).map((r) => [r.id, r.severity]));
    expect(rules).toEqual({
      'clusters/valid': 'error',
      'clusters/unpinned-toolchain': 'error',
      'clusters/recipe-unrouted': 'error',
      'clusters/rule-shadowed': 'warning',
    });
  });
});

describe('clusters/recipe-unrouted', () => {
  it('a recipe of a runner the cluster lists, with no rule that matches it', async () => {
    const strict = tree({
      [B300]: fixture(B300)
        .replace("recipe: 'sglang/dsr1/**'", "recipe: 'sglang/dsv4/**'")
        .replace('  - match: { framework: dynamo-sglang }\n', '  - match: { framework: dynamo-sglang, precision: fp4 }\n'),
    });
    const [finding, ...rest] = await clusterFindings(strict);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      rule: 'clusters/recipe-unrouted',
      severity: 'error',
      key: 'dsr1-fp8-b300-dynamo-sglang',
      file: join(strict, 'configs/test-master.yaml'),
      line: lineOf(strict, 'configs/test-master.yaml', 'CONFIG_FILE=recipes/sglang/dsr1'),
      path: 'scenarios.fixed-seq-len[0].search-space[0].prefill.additional-settings[0]',
    });
    expect(finding!.message).toBe(
      `CONFIG_FILE=recipes/sglang/dsr1/8k1k/disagg-1p1d.yaml: no routing rule of cluster b300 (${join(strict, B300)}) matches dynamo-sglang dsr1 fp8 recipe sglang/dsr1/8k1k/disagg-1p1d.yaml`,
    );
    expect(finding!.hint).toContain('recipe: "sglang/dsr1/**"');
    expect(finding!.subjects).toContain(`file:${join(strict, B300)}`);
  });

  it('a runner no cluster lists must be routed by every Slurm cluster (not the simulated one)', async () => {
    const dir = tree(edited(GB200, 'precision: fp4 }', 'precision: fp8 }'));
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => [f.rule, f.key, f.message.match(/cluster (\S+)/)![1]])).toEqual([
      ['clusters/recipe-unrouted', 'dsr1-fp4-h200-dynamo-trt', 'gb200'],
    ]);
    // The selector is not part of the routed path.
    expect(findings[0]!.message).toContain('recipe trtllm/dsr1/1k1k/ctx1_gen1.yaml');
  });

  it('a simulated cluster routes nothing; a real local one serving the runner must', async () => {
    const dir = tree({ 'clusters/sim.yaml': fixture('clusters/sim.yaml').replace('simulate: true', 'simulate: false') });
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => [f.rule, f.key])).toEqual([['clusters/recipe-unrouted', 'dsr1-fp8-h100-dynamo-vllm']]);
  });

  it('a profile that cannot be read and lists the runner makes its rows uncheckable, not unrouted', async () => {
    const dir = tree({
      [B300]: fixture(B300)
        .replace('nodes: 18', 'nodes: many')
        .replace(/routing:[\s\S]*$/, ''),
    });
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => f.rule)).toEqual(['clusters/valid']);
  });

  it('in a review, removing the rule a key needs is the change’s own error', async () => {
    const base = tree();
    const head = tree(edited(GB200, 'precision: fp4 }', 'precision: fp8 }'));
    const report = await review(dirSnapshot(base), dirSnapshot(head));
    expect(report.change.files).toEqual([join(head, GB200)]);
    const own = report.findings.filter((f) => f.status === 'new');
    expect(own.map((f) => f.rule)).toEqual(['clusters/recipe-unrouted']);
    expect(report.ok).toBe(false);
  });
});

describe('clusters/rule-shadowed', () => {
  it('a specific rule after a general one it falls under', async () => {
    const text = fixture(B300);
    const specific = "  - match: { framework: dynamo-sglang, recipe: 'sglang/dsr1/**' }\n";
    const general = '  - match: { framework: dynamo-sglang }\n';
    const block = (start: string): string => text.slice(text.indexOf(start), text.indexOf('  - match', text.indexOf(start) + 1));
    const swapped = text.replace(block(specific) + block(general), block(general) + block(specific));
    const dir = tree({ [B300]: swapped });
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => [f.rule, f.severity, f.path, f.line])).toEqual([
      ['clusters/rule-shadowed', 'warning', 'routing[1].match', lineOf(dir, B300, "recipe: 'sglang/dsr1/**'")],
    ]);
    expect(findings[0]!.message).toBe(
      `routing[1] can never match: routing[0] (line ${lineOf(dir, B300, '- match: { framework: dynamo-sglang }')}) comes first and matches everything it matches`,
    );
  });

  it('a recipe glob that covers a later one shadows it; a narrower or different one does not', async () => {
    const rule = (recipe: string): string =>
      `  - match: { recipe: '${recipe}' }\n    toolchain: { repo: https://github.com/NVIDIA/srt-slurm.git, commit: c1b6b5c97f323baefad577d70c4e8392b6f537d9 }\n`;
    const shadowed = tree({ [B300]: `${fixture(B300)}${rule('trtllm/dsr1/*.yaml')}` });
    expect((await clusterFindings(shadowed)).map((f) => [f.rule, f.path])).toEqual([
      ['clusters/rule-shadowed', 'routing[3].match'],
    ]);
    const fine = tree({ [B300]: `${fixture(B300)}${rule('vllm/**')}` });
    expect(await clusterFindings(fine)).toEqual([]);
  });
});

describe('clusters/unpinned-toolchain and clusters/valid', () => {
  it('a branch as the commit is an unpinned-toolchain error (not a valid one), at the commit', async () => {
    const dir = tree(edited(GB200, 'commit: c1b6b5c97f323baefad577d70c4e8392b6f537d9', 'commit: sa-submission-q2-2026'));
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => [f.rule, f.severity, f.file, f.line, f.path])).toEqual([
      [
        'clusters/unpinned-toolchain',
        'error',
        join(dir, GB200),
        lineOf(dir, GB200, 'sa-submission'),
        'routing[0].toolchain.commit',
      ],
    ]);
    expect(findings[0]!.hint).toBe(
      'pin the full 40-hex commit, e.g. `git ls-remote https://github.com/NVIDIA/srt-slurm.git sa-submission-q2-2026`',
    );
  });

  it('a short sha is unpinned too', async () => {
    const dir = tree(edited(B300, 'c180328b98c3793ca84a1e24a030f90545eb7d5d', 'c180328b'));
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => f.rule)).toEqual(['clusters/unpinned-toolchain']);
    expect(findings[0]!.message).toContain('a short sha');
  });

  it('schema problems of a profile are clusters/valid errors, with the fix', async () => {
    const dir = tree(edited(B300, 'partition: batch_1', 'partiton: batch_1'));
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => [f.rule, f.line, f.path])).toEqual([
      ['clusters/valid', lineOf(dir, B300, 'partiton'), 'partiton'],
    ]);
    expect(findings[0]!.hint).toBe('did you mean "partition"?');
  });

  it('a .yml file in clusters/ is reported rather than ignored', async () => {
    const dir = tree({ 'clusters/extra.yml': fixture('clusters/sim.yaml') });
    const findings = await clusterFindings(dir);
    expect(findings.map((f) => [f.rule, f.file])).toEqual([['clusters/valid', join(dir, 'clusters/extra.yml')]]);
  });
});
