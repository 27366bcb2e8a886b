import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changelogMatrix, changelogMatrixJson, checkChangelog, dirSnapshot, sweepOptOut } from '../../src/changelog/index.js';
import { REPO, tempFiles } from '../helpers.js';

/**
 * Layout findings change no sweep: each says what `frontier changelog check --fix` does, and
 * after the fix the check passes and `changelog matrix` gives the same sweep.
 */

const MASTER = readFileSync(join(REPO, 'examples/configs/example-master.yaml'), 'utf8');
const RUNNERS = readFileSync(join(REPO, 'examples/configs/runners.yaml'), 'utf8');
const LINK = (n: number): string => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;
const entry = (key: string, n: number): string =>
  `- config-keys:\n    - ${key}\n  description:\n    - "Change ${n}"\n  pr-link: ${LINK(n)}\n`;

const A = entry('dsr1-fp8-h200-vllm', 1);
const B = entry('llama3.1-8b-fp8-h100-sim', 2);
const C = entry('qwen3-0.6b-q8-cpu-llamacpp', 3);
const D = entry('dsr1-fp8-h200-vllm', 4);

/** base → head changelogs, and the rule and message of each finding. */
const LAYOUTS: { name: string; base: string; head: string; findings: [string, string][] }[] = [
  {
    name: 'a blank line holding spaces before the new entry',
    base: `${A}\n${B}`,
    head: `${A}\n${B}  \n${C}`,
    findings: [['changelog-layout', 'a blank line holds spaces']],
  },
  {
    name: 'spaces at the end of an appended line',
    base: `${A}\n${B}`,
    head: `${A}\n${B}\n${C.replace('"Change 3"', '"Change 3"   ')}`,
    findings: [['changelog-layout', 'line 16 ends with spaces']],
  },
  {
    name: 'two blank lines before the new entry (the base already ends with one)',
    base: `${A}\n${B}\n`,
    head: `${A}\n${B}\n\n${C}`,
    findings: [['changelog-layout', '2 blank lines before this entry; entries are separated by one']],
  },
  {
    name: 'blank lines after the last entry',
    base: `${A}\n${B}`,
    head: `${A}\n${B}\n${C}\n\n`,
    findings: [['changelog-layout', '2 blank lines at the end of the file']],
  },
  {
    name: 'a new entry inserted before an older one',
    base: `${A}\n${B}`,
    head: `${A}\n${C}\n${B}`,
    findings: [
      ['changelog-layout', 'new entry 2 (lines 7–11) is inserted before older entries; new entries go at the end of the file'],
    ],
  },
  {
    name: 'a new entry glued to the previous one (an error, as in InferenceX)',
    base: `${A}\n${B}`,
    head: `${A}\n${B}${C}`,
    findings: [
      ['changelog-separator', "a new entry starts right after the previous entry's last line, with no blank line between them"],
    ],
  },
  {
    name: 'two new entries, the second glued and followed by spaces',
    base: `${A}\n${B}`,
    head: `${A}\n${B}\n${C}${D}  \n`,
    findings: [
      ['changelog-separator', "a new entry starts right after the entry above's last line, with no blank line between them"],
      ['changelog-layout', 'a blank line holds spaces'],
      ['changelog-layout', 'a blank line at the end of the file'],
    ],
  },
];

function sides(base: string, head: string): { dir: string; base: string; head: string } {
  const dir = tempFiles({
    'base/configs/example-master.yaml': MASTER,
    'head/configs/example-master.yaml': MASTER,
    'base/configs/runners.yaml': RUNNERS,
    'head/configs/runners.yaml': RUNNERS,
    'base/perf-changelog.yaml': base,
    'head/perf-changelog.yaml': head,
  });
  return { dir, base: join(dir, 'base'), head: join(dir, 'head') };
}

describe('layout findings are fixable: --fix repairs them, the check passes, the sweep is the same', () => {
  for (const { name, base, head, findings } of LAYOUTS) {
    it(name, async () => {
      const paths = sides(base, head);
      const [b, h] = [dirSnapshot(paths.base, 'base'), dirSnapshot(paths.head, 'head')];
      const report = await checkChangelog(b, h);
      expect(report.problems.map((p) => [p.rule, p.message])).toEqual(findings);
      for (const p of report.problems) {
        expect(p.severity).toBe(p.rule === 'changelog-layout' ? 'warning' : 'error');
        expect(p.hint).toMatch(/^`frontier changelog check --fix` (adds|empties|removes|inserts|moves)/);
      }
      const sweep = changelogMatrixJson(await changelogMatrix(b, h));
      writeFileSync(join(paths.head, 'perf-changelog.yaml'), report.fixed!);
      const after = await checkChangelog(b, h);
      expect(after.problems).toEqual([]);
      expect(after.ok).toBe(true);
      expect(changelogMatrixJson(await changelogMatrix(b, h))).toBe(sweep);
    });
  }
});

describe('cleaning up the blank lines of history is allowed; anything else in history is not', () => {
  const check = async (base: string, head: string): Promise<[string, number, string][]> => {
    const paths = sides(base, head);
    const report = await checkChangelog(dirSnapshot(paths.base), dirSnapshot(paths.head));
    return report.problems.map((p) => [p.rule, p.line, p.message]);
  };

  it('a blank line of history holding spaces, emptied (with or without a new entry)', async () => {
    expect(await check(`${A}  \n${B}`, `${A}\n${B}`)).toEqual([]);
    expect(await check(`${A}  \n${B}`, `${A}\n${B}\n${C}`)).toEqual([]);
  });

  it('an extra blank line between historical entries, dropped; trailing ones at the end, dropped', async () => {
    expect(await check(`${A}  \n\n${B}`, `${A}\n${B}\n${C}`)).toEqual([]);
    expect(await check(`${A}\n${B}  \n`, `${A}\n${B}`)).toEqual([]);
  });

  it('the last blank line between two entries removed: history changed', async () => {
    expect(await check(`${A}\n${B}`, `${A}${B}\n${C}`)).toEqual([
      [
        'changelog-history',
        6,
        'line 6 differs from the base revision: appended entries must leave history byte-for-byte unchanged',
      ],
    ]);
  });

  it('a blank line added inside history, or spaces added to one: history changed', async () => {
    expect((await check(`${A}\n${B}`, `${A}\n\n${B}`))[0]![0]).toBe('changelog-history');
    expect((await check(`${A}\n${B}`, `${A}  \n${B}\n${C}`))[0]![0]).toBe('changelog-history');
  });
});

describe('the opt-out of a sweep', () => {
  it('reads [skip-sweep] anywhere in a commit message, with the line carrying it as the reason', () => {
    expect(sweepOptOut('fix(agentx): drop hung points [skip-sweep] (#2661)', 'commit 16f273c8e')).toEqual({
      source: 'commit 16f273c8e',
      reason: '[skip-sweep] fix(agentx): drop hung points (#2661)',
    });
    expect(sweepOptOut('squash (#1)\n\n* chore: refresh for sweep reuse [skip-sweep]\n', 'c')?.reason).toBe(
      '[skip-sweep] chore: refresh for sweep reuse',
    );
  });

  it('prefers an explicit "no-sweep: <reason>" line', () => {
    expect(
      sweepOptOut(
        'Label fix.\n\nno-sweep: the recipe already offloaded to DRAM; only the label was wrong\n',
        'pull request description',
      ),
    ).toEqual({
      source: 'pull request description',
      reason: 'the recipe already offloaded to DRAM; only the label was wrong',
    });
  });

  it('nothing else opts out', () => {
    expect(sweepOptOut('skip sweep please\nno-sweep:\n', 'c')).toBeUndefined();
  });
});
