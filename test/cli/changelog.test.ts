import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/changelog/index.js';
import { REPO, changelogGoldenRoot, inferencexTree, runCli, tempFiles } from '../helpers.js';
import { copyTree, edit } from '../review/edit-tree.js';

const golden = (name: string): string => join(changelogGoldenRoot(), name);

describe('frontier changelog check', () => {
  it('prints each finding with file:line and the fix, exits 1', () => {
    const dir = golden('neg-no-blank-line');
    const result = runCli(['changelog', 'check', '--base-dir', join(dir, 'base'), '--head-dir', join(dir, 'head')]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(
      `${join(dir, 'head', 'perf-changelog.yaml')}:6381:1  a new entry starts right after the previous entry's last line, with no blank line between them\n` +
        '    hint: `frontier changelog check --fix` inserts one blank line before line 6381\n' +
        '\n' +
        '✗ 1 problem (1 appended entry, 0 pr-link corrections, 0 changed configs)\n',
    );
  });

  it('--fix inserts the blank line in the head directory, then the change is clean', () => {
    const work = tempFiles({});
    cpSync(golden('neg-no-blank-line'), work, { recursive: true });
    const file = join(work, 'head', 'perf-changelog.yaml');
    const before = readFileSync(file, 'utf8').split('\n');
    const result = runCli(['changelog', 'check', '--base-dir', 'base', '--head-dir', 'head', '--fix'], { cwd: work });
    expect(result.stderr).toBe(`fixed ${join('head', 'perf-changelog.yaml')}\n`);
    expect(result.stdout).toBe('✓ perf-changelog.yaml: 1 appended entry, 0 pr-link corrections, 0 changed configs\n');
    expect(result.status).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')).toEqual([...before.slice(0, 6380), '', ...before.slice(6380)]);
  });

  it('--format json and markdown', () => {
    const dir = golden('neg-unknown-config-key');
    const args = ['changelog', 'check', '--base-dir', join(dir, 'base'), '--head-dir', join(dir, 'head')];
    const json = JSON.parse(runCli([...args, '--format', 'json']).stdout) as CheckReport;
    expect(json).toMatchObject({ ok: false, additions: 1, corrections: 0 });
    expect(json.problems.map((p) => [p.rule, p.line, p.message])).toEqual([
      ['changelog-sweep', 6383, "Config key 'dsr1-fp8-mi300x-sglang-does-not-exist' not found in master configs."],
    ]);
    const markdown = runCli([...args, '--format', 'markdown']).stdout;
    expect(markdown).toContain('### perf-changelog.yaml check: ✗ 1 problem');
    expect(markdown).toContain('| where | problem | fix |');
    expect(markdown).toContain(
      ":6383` | entry 773: Config key 'dsr1-fp8-mi300x-sglang-does-not-exist' not found in master configs. |",
    );
  });

  it("a field that the row's route never reads is metadata: no entry needed, and it says so", () => {
    const base = inferencexTree();
    for (const f of ['runners/launch_gb300-nv.sh', 'runners/slurm_utils.sh', 'benchmarks/benchmark_lib.sh']) {
      mkdirSync(dirname(join(base, f)), { recursive: true });
      writeFileSync(join(base, f), readFileSync(join(REPO, 'test/fixtures/inferencex/tree', f)));
    }
    const head = copyTree(base);
    const key = 'glm5.2-fp4-gb300-dynamo-trt-agentic-agg-mtp';
    edit(
      head,
      'configs/nvidia-master.yaml',
      'kv-offloading: none\n',
      'kv-offloading: dram\n        kv-offload-backend: { name: native }\n',
      `${key}:`,
    );
    edit(
      head,
      'configs/nvidia-master.yaml',
      '    - search-space:',
      '    - dram-utilization: 0.15\n      search-space:',
      `${key}:`,
    );
    const result = runCli(['changelog', 'check', '--base-dir', base, '--head-dir', head]);
    expect(result.stdout).toBe(
      `${key}: metadata only (kv-offload-backend, kv-offloading, total-cpu-dram-gb): its rows measure what they did, no sweep needed\n\n` +
        '✓ perf-changelog.yaml: 0 appended entries, 0 pr-link corrections, 0 changed configs\n',
    );
    expect(result.status).toBe(0);
    const json = JSON.parse(
      runCli(['changelog', 'check', '--base-dir', base, '--head-dir', head, '--format', 'json']).stdout,
    ) as CheckReport;
    expect(json.metadataOnly).toEqual([{ key, fields: ['kv-offload-backend', 'kv-offloading', 'total-cpu-dram-gb'] }]);
  });

  it('needs a base', () => {
    const result = runCli(['changelog', 'check']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the base revision is missing: give --base <ref> (e.g. origin/main) or --base-dir <dir>');
  });
});

describe('frontier changelog matrix', () => {
  it('prints the reference JSON byte for byte', () => {
    const dir = golden('synthetic-entry-eval-flags-glob');
    const result = runCli([
      'changelog',
      'matrix',
      '--base-dir',
      join(dir, 'base'),
      '--head-dir',
      join(dir, 'head'),
      '--base-label',
      'base',
      '--head-label',
      'head',
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout === readFileSync(join(dir, 'expected.json'), 'utf8')).toBe(true);
  });

  it('fails with the reference message when the history lost a line', () => {
    const dir = golden('neg-deleted-historical-line');
    const result = runCli(['changelog', 'matrix', '--base-dir', join(dir, 'base'), '--head-dir', join(dir, 'head')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('frontier: error: Deletions are not allowed in perf-changelog.yaml.');
  });
});
