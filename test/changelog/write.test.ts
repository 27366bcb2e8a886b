import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangelogError, appendEntry, formatEntry, mergeChangelog, parseChangelog } from '../../src/changelog/index.js';
import type { ChangelogEntry } from '../../src/changelog/index.js';
import { REPO, runCli, tempFiles } from '../helpers.js';

const LINK = (n: number | string): string => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;
const block = (key: string, link: string): Buffer =>
  Buffer.from(`- config-keys:\n    - ${key}\n  description:\n    - "Update ${key}"\n  pr-link: ${link}\n`);

describe('formatting an entry', () => {
  it('writes what the parser reads back, quoting what YAML 1.1 would otherwise change', async () => {
    const entry: ChangelogEntry = {
      'config-keys': ['dsr1-fp8-*', 'on', '1024', 'key: odd'],
      'scenario-type': ['agentic-coding'],
      description: ['Plain text', 'He said "hi" \\ then: left # not a comment', 'é ✓'],
      'pr-link': 'XXX',
      'append-only': true,
    };
    const text = formatEntry(entry);
    expect(text).toBe(
      [
        '- config-keys:',
        '    - dsr1-fp8-*',
        '    - "on"',
        '    - "1024"',
        '    - "key: odd"',
        '  scenario-type:',
        '    - agentic-coding',
        '  description:',
        '    - "Plain text"',
        '    - "He said \\"hi\\" \\\\ then: left # not a comment"',
        '    - "é ✓"',
        '  pr-link: XXX',
        '  append-only: true',
        '',
      ].join('\n'),
    );
    const parsed = await parseChangelog(Buffer.from(text), 'x.yaml');
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([entry]);
  });

  it('appends after exactly one blank line and ends with one newline', () => {
    const one = block('a', LINK(1));
    expect(appendEntry(Buffer.alloc(0), one.toString()).toString()).toBe(one.toString());
    expect(appendEntry(one, 'NEXT\n').toString()).toBe(`${one}\nNEXT\n`);
    expect(appendEntry(Buffer.from(`${one}\n`), 'NEXT\n').toString()).toBe(`${one}\nNEXT\n`);
    expect(appendEntry(Buffer.from(one.toString().trimEnd()), 'NEXT\n').toString()).toBe(`${one}\nNEXT\n`);
  });
});

describe('resolving a merge conflict (main byte-for-byte, then the PR entries)', () => {
  const base = block('base-config', LINK(1));

  it("keeps main's bytes, then re-appends the PR's entry linked to the PR", async () => {
    const pr = Buffer.concat([base, Buffer.from('\n'), block('pr-config', 'XXX')]);
    // main's history holds a line with trailing spaces: it must survive unchanged.
    const main = Buffer.concat([base, Buffer.from('  \n'), block('main-config', LINK(41))]);
    const merged = await mergeChangelog(base, pr, main, 42);
    expect(merged.subarray(0, main.length).equals(main)).toBe(true);
    expect(merged.subarray(main.length).toString()).toBe(`\n${block('pr-config', LINK(42))}`);
    const entries = (await parseChangelog(merged, 'merged')).entries;
    expect(entries.map((e) => (e['config-keys'] as string[])[0])).toEqual(['base-config', 'main-config', 'pr-config']);
  });

  it('applies a pr-link correction to main without touching anything else', async () => {
    const old = 'https://github.com/NVIDIA/InferenceMAX/pull/1722';
    const before = block('base-config', old);
    const pr = block('base-config', LINK(1722));
    const main = Buffer.concat([before, Buffer.from('\n'), block('main-config', LINK(41))]);
    const merged = await mergeChangelog(before, pr, main, 42);
    expect(merged.toString()).toBe(main.toString().replace(old, LINK(1722)));
  });

  it('refuses when main already has the contribution, or the PR breaks its history', async () => {
    const contribution = block('same-config', 'XXX');
    const pr = Buffer.concat([base, Buffer.from('\n'), contribution]);
    const main = Buffer.concat([base, Buffer.from('\n'), block('same-config', LINK(41))]);
    await expect(mergeChangelog(base, pr, main, 42)).rejects.toThrow(
      'the PR has no changelog contribution remaining after merging main',
    );
    const broken = Buffer.concat([base, contribution]);
    await expect(mergeChangelog(base, broken, main, 42)).rejects.toBeInstanceOf(ChangelogError);
  });
});

describe('frontier changelog add / merge', () => {
  const catalog = {
    'configs/example-master.yaml': readFileSync(join(REPO, 'examples/configs/example-master.yaml'), 'utf8'),
    'configs/runners.yaml': readFileSync(join(REPO, 'examples/configs/runners.yaml'), 'utf8'),
    'perf-changelog.yaml': block('dsr1-fp8-h200-vllm', LINK(1)).toString(),
  };

  it('appends a formatted entry that passes the gate', () => {
    const dir = tempFiles(catalog);
    const result = runCli(
      ['changelog', 'add', '--key', 'dsr1-fp8-h200-vllm', 'llama3.1-8b-*', '--description', 'Bump vLLM', '--pr', '42'],
      { cwd: dir },
    );
    expect(result.status).toBe(0);
    const expected = `- config-keys:\n    - dsr1-fp8-h200-vllm\n    - llama3.1-8b-*\n  description:\n    - "Bump vLLM"\n  pr-link: ${LINK(42)}\n`;
    expect(readFileSync(join(dir, 'perf-changelog.yaml'), 'utf8')).toBe(`${catalog['perf-changelog.yaml']}\n${expected}`);
    const base = tempFiles(catalog);
    const check = runCli(['changelog', 'check', '--base-dir', base, '--head-dir', dir, '--pr', '42']);
    expect(check.stdout).toBe('✓ perf-changelog.yaml: 1 appended entry, 0 pr-link corrections, 0 changed configs\n');
  });

  it('--repository: an entry linking a catalog repository of its own, which its check accepts', () => {
    const own = {
      ...catalog,
      'perf-changelog.yaml': block('dsr1-fp8-h200-vllm', 'https://github.com/acme/catalog/pull/1').toString(),
    };
    const dir = tempFiles(own);
    const add = [
      'changelog',
      'add',
      '--key',
      'dsr1-fp8-h200-vllm',
      '--description',
      'x',
      '--pr',
      '42',
      '--repository',
      'acme/catalog',
    ];
    expect(runCli(add, { cwd: dir }).status).toBe(0);
    expect(readFileSync(join(dir, 'perf-changelog.yaml'), 'utf8')).toContain(
      'pr-link: https://github.com/acme/catalog/pull/42\n',
    );
    const base = tempFiles(own);
    const check = ['changelog', 'check', '--base-dir', base, '--head-dir', dir, '--pr', '42'];
    expect(runCli([...check, '--repository', 'acme/catalog']).status).toBe(0);
    expect(runCli(check).stdout).toContain('new entry 2 has pr-link "https://github.com/acme/catalog/pull/42"');
  });

  it('refuses a key that does not exist, suggesting the near one, and leaves the file alone', () => {
    const dir = tempFiles(catalog);
    const result = runCli(['changelog', 'add', '--key', 'dsr1-fp8-h200-vlm', '--description', 'x'], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      "frontier: error: Config key 'dsr1-fp8-h200-vlm' not found in master configs. Did you mean 'dsr1-fp8-h200-vllm'?\n",
    );
    expect(readFileSync(join(dir, 'perf-changelog.yaml'), 'utf8')).toBe(catalog['perf-changelog.yaml']);
  });

  it('merges the three conflict stages into a file', () => {
    const base = block('base-config', LINK(1));
    const dir = tempFiles({});
    writeFileSync(join(dir, 'base.yaml'), base);
    writeFileSync(join(dir, 'ours.yaml'), Buffer.concat([base, Buffer.from('\n'), block('pr-config', 'XXX')]));
    writeFileSync(join(dir, 'theirs.yaml'), Buffer.concat([base, Buffer.from('\n'), block('main-config', LINK(41))]));
    const result = runCli(
      [
        'changelog',
        'merge',
        '--base-file',
        'base.yaml',
        '--ours',
        'ours.yaml',
        '--theirs',
        'theirs.yaml',
        '--pr',
        '42',
        '-o',
        'merged.yaml',
      ],
      { cwd: dir },
    );
    expect(result.status).toBe(0);
    expect(readFileSync(join(dir, 'merged.yaml'), 'utf8')).toBe(
      `${base}\n${block('main-config', LINK(41))}\n${block('pr-config', LINK(42))}`,
    );
  });
});
