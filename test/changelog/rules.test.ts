import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkChangelog, dirSnapshot } from '../../src/changelog/index.js';
import type { CheckReport } from '../../src/changelog/index.js';
import { REPO, tempFiles } from '../helpers.js';

const MASTER = readFileSync(join(REPO, 'examples/configs/example-master.yaml'), 'utf8');
const RUNNERS = readFileSync(join(REPO, 'examples/configs/runners.yaml'), 'utf8');
const LINK = (n: number): string => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;

const entry = (key: string, link = LINK(1), extra = ''): string =>
  `- config-keys:\n    - ${key}\n  description:\n    - "Change ${key}"\n  pr-link: ${link}\n${extra}`;

/** Two historical entries, lines 1–11 (a blank line 6 between them); a new entry then starts on line 13. */
const HISTORY = `${entry('dsr1-fp8-h200-vllm')}\n${entry('llama3.1-8b-fp8-h100-sim', LINK(2))}`;
const NEW = entry('qwen3-0.6b-q8-cpu-llamacpp', LINK(3));

interface Change {
  base?: string | Buffer;
  head: string | Buffer;
  headMaster?: string;
  baseMaster?: string;
  pr?: number;
  repository?: string;
}

async function check(change: Change): Promise<CheckReport> {
  const dir = tempFiles({
    'base/perf-changelog.yaml': '',
    'head/perf-changelog.yaml': '',
    'base/configs/example-master.yaml': change.baseMaster ?? MASTER,
    'head/configs/example-master.yaml': change.headMaster ?? MASTER,
    'base/configs/runners.yaml': RUNNERS,
    'head/configs/runners.yaml': RUNNERS,
  });
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'base/perf-changelog.yaml'), change.base ?? HISTORY);
  writeFileSync(join(dir, 'head/perf-changelog.yaml'), change.head);
  return checkChangelog(dirSnapshot(join(dir, 'base'), 'base'), dirSnapshot(join(dir, 'head'), 'head'), {
    pr: change.pr,
    repository: change.repository,
  });
}

/** The findings as [rule, line, message], for compact assertions. */
const findings = (r: CheckReport): [string, number, string][] => r.problems.map((p) => [p.rule, p.line, p.message]);

describe('a clean change', () => {
  it('one entry appended after one blank line passes', async () => {
    const report = await check({ head: `${HISTORY}\n${NEW}` });
    expect(findings(report)).toEqual([]);
    expect(report).toMatchObject({ ok: true, additions: 1, corrections: 0 });
  });

  it('no change at all is clean', async () => {
    const report = await check({ head: HISTORY });
    expect(report).toMatchObject({ ok: true, additions: 0, problems: [] });
  });
});

describe("the file's own rules", () => {
  it('final newline', async () => {
    const report = await check({ head: `${HISTORY}\n${NEW}`.slice(0, -1) });
    expect(findings(report)).toContainEqual(['changelog-file', 17, 'the file does not end with a newline']);
  });

  it('UTF-8, tabs, CR, NUL', async () => {
    const bad = Buffer.concat([
      Buffer.from(`${HISTORY}\n${NEW}`.replace('"Change qwen', '"Ch\tange qwen')),
      Buffer.from([0xff, 10]),
    ]);
    expect(findings(await check({ head: bad })).map(([, line, message]) => [line, message])).toEqual([
      [16, 'the file contains a tab'],
      [18, 'the file is not valid UTF-8'],
    ]);
    expect(findings(await check({ head: `${HISTORY}\n${NEW}`.replace(/\n/g, '\r\n') }))[0]).toEqual([
      'changelog-file',
      1,
      'the file contains a CR (\\r) character',
    ]);
    expect(findings(await check({ head: `${HISTORY}\0\n` }))[0]![2]).toBe('the file contains a NUL byte');
  });

  it('root is a list; duplicate keys', async () => {
    expect(findings(await check({ head: 'config-keys: [x]\n' }))).toContainEqual([
      'changelog-file',
      1,
      'the root must be a YAML list of entries',
    ]);
    const dup = await check({ head: `${HISTORY}\n${NEW}  pr-link: ${LINK(4)}\n` });
    expect(dup.problems[0]).toMatchObject({
      rule: 'yaml',
      line: 18,
      message: 'duplicate key "pr-link" (first defined at line 17)',
    });
  });

  it('one `- config-keys:` line per entry', async () => {
    const report = await check({
      head: `${HISTORY}\n- { config-keys: [dsr1-fp8-h200-vllm], description: [x], pr-link: '${LINK(3)}' }\n`,
    });
    expect(findings(report)).toContainEqual([
      'changelog-file',
      13,
      '2 lines start with "- config-keys:" but the YAML has 3 entries',
    ]);
  });

  it('each entry is a valid ChangelogEntry', async () => {
    const report = await check({
      head: `${HISTORY}\n- config-keys: []\n  description: "one line"\n  pr-link: 3\n  evals-only: "yes"\n  scenario-type: [chat]\n  eval-min-prefill-ep: 0\n  owner: me\n`,
    });
    expect(report.problems.map((p) => [p.line, p.path, p.message])).toEqual([
      [13, 'config-keys', 'expected a non-empty list of config keys, got a list'],
      [14, 'description', 'expected a list of strings, got "one line"'],
      [15, 'pr-link', 'expected a pull request URL, got 3'],
      [16, 'evals-only', 'expected true or false, got "yes"'],
      [17, 'scenario-type[0]', 'expected "fixed-seq-len" or "agentic-coding", got "chat"'],
      [18, 'eval-min-prefill-ep', 'expected an integer >= 1, got 0'],
      [19, 'owner', 'unknown field "owner"'],
    ]);
    expect(report.problems.every((p) => p.key === 'entry 3' && p.rule === 'changelog-entry')).toBe(true);
  });

  it('append-only cannot select evals', async () => {
    const report = await check({
      head: `${HISTORY}\n${entry('dsr1-fp8-h200-vllm', LINK(3), '  append-only: true\n  all-evals: true\n')}`,
    });
    expect(findings(report)).toContainEqual(['changelog-entry', 19, 'append-only cannot be combined with all-evals']);
  });
});

describe('the history rules', () => {
  it('a historical line edited', async () => {
    const report = await check({ head: `${HISTORY.replace('"Change dsr1', '"Changed dsr1')}\n${NEW}` });
    expect(report.problems).toMatchObject([
      {
        rule: 'changelog-history',
        line: 4,
        message: 'line 4 differs from the base revision: appended entries must leave history byte-for-byte unchanged',
      },
    ]);
    expect(report.problems[0]!.hint).toBe('restore line 4 as it was: "    - \\"Change dsr1-fp8-h200-vllm\\""');
  });

  it('the missing blank line names the line, and --fix inserts it', async () => {
    const report = await check({ head: `${HISTORY}${NEW}` });
    expect(report.problems).toMatchObject([
      {
        rule: 'changelog-separator',
        line: 12,
        message: "a new entry starts right after the previous entry's last line, with no blank line between them",
        hint: '`frontier changelog check --fix` inserts one blank line before line 12',
      },
    ]);
    expect(report.fixed!.toString()).toBe(`${HISTORY}\n${NEW}`);
  });

  it('two blank lines, blank lines at the end, trailing spaces, a blank line holding spaces', async () => {
    const second = entry('dsr1-fp8-h200-dynamo-sglang', LINK(3));
    const head = `${HISTORY}\n${NEW.replace('"Change qwen3-0.6b-q8-cpu-llamacpp"', '"Change qwen3-0.6b-q8-cpu-llamacpp"  ')}  \n\n${second}\n\n`;
    const report = await check({ head });
    expect(findings(report)).toEqual([
      ['changelog-layout', 16, 'line 16 ends with spaces'],
      ['changelog-layout', 18, 'a blank line holds spaces'],
      ['changelog-layout', 20, '2 blank lines before this entry; entries are separated by one'],
      ['changelog-layout', 25, '2 blank lines at the end of the file'],
    ]);
    // Layout changes no sweep: warnings, each saying what the fix does.
    expect(report.ok).toBe(true);
    expect(report.problems.map((p) => [p.severity, p.hint])).toEqual([
      ['warning', '`frontier changelog check --fix` removes them'],
      ['warning', '`frontier changelog check --fix` empties line 18'],
      ['warning', '`frontier changelog check --fix` removes 1 of them'],
      ['warning', "`frontier changelog check --fix` removes them: the file ends with the last entry's newline"],
    ]);
    expect(report.fixed!.toString()).toBe(`${HISTORY}\n${NEW}\n${second}`);
  });

  it('a new entry inserted among historical ones, moved to the end by the fix', async () => {
    const [first, second] = HISTORY.split('\n- config-keys:');
    const head = `${first}\n${NEW}\n- config-keys:${second}`;
    const report = await check({ head });
    expect(findings(report)).toEqual([
      ['changelog-layout', 7, 'new entry 2 (lines 7–11) is inserted before older entries; new entries go at the end of the file'],
    ]);
    expect(report.ok).toBe(true);
    expect(report.fixed!.toString()).toBe(`${HISTORY}\n${NEW}`);
  });

  it('a deleted entry', async () => {
    const report = await check({ head: `${entry('dsr1-fp8-h200-vllm')}` });
    expect(findings(report)).toEqual([['changelog-history', 6, '1 historical entry was deleted']]);
    const reformatted = await check({ head: HISTORY.replace('  pr-link', '  pr-link ') });
    expect(findings(reformatted)).toEqual([
      [
        'changelog-history',
        5,
        'the changelog changed without appending an entry or correcting a pr-link: historical whitespace and formatting are immutable',
      ],
    ]);
  });

  it('a pr-link correction is allowed when canonical, and alone', async () => {
    const base = HISTORY.replace(LINK(2), 'XXX');
    const ok = await check({ base, head: HISTORY });
    expect(ok).toMatchObject({ ok: true, corrections: 1, additions: 0 });
    const notCanonical = await check({ base, head: HISTORY.replace(LINK(2), `${LINK(2)}/files`) });
    expect(findings(notCanonical)).toEqual([
      ['changelog-history', 11, `entry 2 pr-link correction is not canonical: "${LINK(2)}/files"`],
    ]);
    const mixed = await check({ base, head: `${HISTORY}\n${NEW}` });
    expect(findings(mixed)).toEqual([
      [
        'changelog-history',
        11,
        'line 11 differs from the base revision: appended entries must leave history byte-for-byte unchanged',
      ],
    ]);
  });

  it('pr-link of a new entry: canonical on main; this PR or XXX on a PR', async () => {
    const placeholder = `${HISTORY}\n${entry('qwen3-0.6b-q8-cpu-llamacpp', 'XXX')}`;
    expect(findings(await check({ head: placeholder }))).toEqual([
      ['changelog-pr-link', 17, 'new entry 3 has pr-link "XXX", not a canonical pull request URL'],
    ]);
    expect((await check({ head: placeholder, pr: 77 })).ok).toBe(true);
    expect((await check({ head: `${HISTORY}\n${entry('qwen3-0.6b-q8-cpu-llamacpp', LINK(77))}`, pr: 77 })).ok).toBe(true);
    expect(findings(await check({ head: `${HISTORY}\n${NEW}`, pr: 77 }))).toEqual([
      ['changelog-pr-link', 17, `new entry 3 has pr-link "${LINK(3)}"`],
    ]);
  });
});

describe('a catalog repository of its own', () => {
  const OWN = (n: number | string): string => `https://github.com/acme/catalog/pull/${n}`;
  const history = HISTORY.replace(LINK(1), OWN(1)).replace(LINK(2), OWN(2));

  it("links its own pull requests: canonical, placeholder and this PR's link", async () => {
    const own = { base: history, repository: 'acme/catalog' };
    expect((await check({ ...own, head: `${history}\n${entry('qwen3-0.6b-q8-cpu-llamacpp', OWN(3))}` })).ok).toBe(true);
    expect((await check({ ...own, head: `${history}\n${entry('qwen3-0.6b-q8-cpu-llamacpp', OWN('XXX'))}`, pr: 9 })).ok).toBe(
      true,
    );
    const inferencex = await check({ ...own, head: `${history}\n${NEW}` });
    expect(inferencex.problems).toMatchObject([
      {
        rule: 'changelog-pr-link',
        message: `new entry 3 has pr-link "${LINK(3)}", not a canonical pull request URL`,
        hint: 'on main, link the merged pull request: https://github.com/acme/catalog/pull/<number>',
      },
    ]);
    const wrongPr = await check({ ...own, head: `${history}\n${entry('qwen3-0.6b-q8-cpu-llamacpp', OWN(3))}`, pr: 9 });
    expect(wrongPr.problems[0]!.hint).toBe(`use ${OWN(9)} (or XXX until the pull request exists)`);
  });

  it("without --repository, another repository's links are not canonical", async () => {
    const report = await check({ base: history, head: `${history}\n${entry('qwen3-0.6b-q8-cpu-llamacpp', OWN(3))}` });
    expect(findings(report)).toEqual([
      ['changelog-pr-link', 17, `new entry 3 has pr-link "${OWN(3)}", not a canonical pull request URL`],
    ]);
  });
});

describe('the sweep rules', () => {
  it('every key and glob resolves in head', async () => {
    const report = await check({
      head: `${HISTORY}\n- config-keys:\n    - dsr1-fp8-h200-vllm\n    - no-such-key\n    - zzz-*\n  description:\n    - "x"\n  pr-link: ${LINK(3)}\n`,
    });
    expect(report.problems.map((p) => [p.rule, p.line, p.key, p.message])).toEqual([
      ['changelog-sweep', 15, 'entry 3', "Config key 'no-such-key' not found in master configs."],
      ['changelog-sweep', 16, 'entry 3', "No config keys matched the wildcard pattern 'zzz-*' in master configs."],
    ]);
  });

  it('the master configs of head must be valid for the sweep to generate', async () => {
    const report = await check({
      head: `${HISTORY}\n${NEW}`,
      headMaster: MASTER.replace('{ tp: 1, conc-start: 1, conc-end: 4 }', '{ tp: 1, conc-start: 4, conc-end: 1 }'),
    });
    expect(report.problems.map((p) => [p.rule, p.key, p.message])).toContainEqual([
      'conc-fields',
      'qwen3-0.6b-q8-cpu-llamacpp',
      'conc-start (4) must be <= conc-end (1)',
    ]);
  });

  it('append-only: only points added to existing curves, nothing else changed', async () => {
    const appendOnly = (key: string): string => `${HISTORY}\n${entry(key, LINK(3), '  append-only: true\n')}`;
    const morePoints = MASTER.replace('conc-list: [64, 128]', 'conc-list: [64, 128, 256]');
    expect(findings(await check({ head: appendOnly('dsr1-fp8-h200-vllm'), headMaster: morePoints }))).toEqual([]);

    const fewerPoints = MASTER.replace('conc-list: [64, 128]', 'conc-list: [64, 256]');
    expect(findings(await check({ head: appendOnly('dsr1-fp8-h200-vllm'), headMaster: fewerPoints }))).toContainEqual([
      'changelog-sweep',
      13,
      'append-only may not remove existing concurrency points: [128]',
    ]);

    const otherConfig = morePoints.replace('conc-start: 1, conc-end: 4', 'conc-start: 1, conc-end: 8');
    expect(findings(await check({ head: appendOnly('dsr1-fp8-h200-vllm'), headMaster: otherConfig }))).toContainEqual([
      'changelog-sweep',
      13,
      "append-only PR changed configs not selected by its changelog entry: ['qwen3-0.6b-q8-cpu-llamacpp']",
    ]);

    const mixed = `${appendOnly('dsr1-fp8-h200-vllm')}\n${entry('llama3.1-8b-fp8-h100-sim', LINK(3))}`;
    expect(findings(await check({ head: mixed, headMaster: morePoints })).map(([, , m]) => m)).toContain(
      'append-only entries cannot share a sweep with regular changelog entries',
    );
  });
});

describe('pairing: a changed master config needs an entry', () => {
  const changed = MASTER.replace('vllm/vllm-openai:v0.25.0', 'vllm/vllm-openai:v0.26.0');

  it('is an error naming the key, where it is defined, and the entry to add', async () => {
    const report = await check({ head: HISTORY, headMaster: changed });
    expect(report.problems).toMatchObject([
      {
        rule: 'changelog-pairing',
        key: 'dsr1-fp8-h200-vllm',
        line: 47,
        message:
          'config changed: all 6 matrix rows measure something new, and no appended perf-changelog.yaml entry covers it, so no sweep will run them',
      },
    ]);
    expect(report.problems[0]!.file).toMatch(/head\/configs\/example-master\.yaml$/);
    expect(report.problems[0]!.hint).toContain('- config-keys:\n          - dsr1-fp8-h200-vllm');
    expect(report.changedConfigs).toEqual(['dsr1-fp8-h200-vllm']);
  });

  it('is satisfied by an exact key or a glob', async () => {
    expect((await check({ head: `${HISTORY}\n${entry('dsr1-fp8-h200-vllm', LINK(3))}`, headMaster: changed })).ok).toBe(true);
    expect((await check({ head: `${HISTORY}\n${entry('dsr1-*', LINK(3))}`, headMaster: changed })).ok).toBe(true);
  });

  it('covers new keys too', async () => {
    const added = `${MASTER}\nnew-key:\n${MASTER.split('\ndsr1-fp8-h200-vllm:\n')[1]!.split('\n\n')[0]}\n`;
    const report = await check({ head: HISTORY, headMaster: added });
    expect(report.problems.map((p) => [p.key, p.message])).toEqual([
      [
        'new-key',
        'config was added (6 matrix rows) but no appended perf-changelog.yaml entry covers it, so no sweep will run them',
      ],
    ]);
  });
});
