import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProblemsError } from '../../src/catalog/index.js';
import { ChangelogError, changelogMatrix, changelogMatrixJson, checkChangelog, dirSnapshot } from '../../src/changelog/index.js';
import { changelogGoldenCases, changelogGoldenRoot } from '../helpers.js';

interface Args {
  description: string;
  base_ref: string;
  head_ref: string;
  flags: string[];
  expect?: string;
  expect_error_first_line?: string;
  gate: Record<string, unknown>;
}

/**
 * Where Frontier's gate is deliberately stricter than the reference on a change the reference
 * accepted, and why. Anything else the reference accepted must pass.
 */
const STRICTER: Record<string, string[]> = {};

/**
 * Where the reference rejects a change that runs exactly the right sweep, and Frontier warns
 * instead (layout that `--fix` repairs): the warnings it gives.
 */
const LAYOUT_ONLY: Record<string, string[]> = {
  // The appended lines start with a line holding two spaces where the blank separator goes.
  'pr2184-minimax-b300-8k1k': ['a blank line holds spaces'],
  // A new entry inserted before the last historical one: the added lines are the same entry.
  'mn-disagg-fixed-seq-len-pr2507': [
    'new entry 727 (lines 5929–5939) is inserted before older entries; new entries go at the end of the file',
  ],
  'mn-disagg-fixed-seq-len-pr2507-trim-conc': [
    'new entry 727 (lines 5929–5939) is inserted before older entries; new entries go at the end of the file',
  ],
};

const root = changelogGoldenRoot();
const cases = changelogGoldenCases();

function load(name: string): { args: Args; base: string; head: string } {
  const dir = join(root, name);
  return {
    args: JSON.parse(readFileSync(join(dir, 'args.json'), 'utf8')) as Args,
    base: join(dir, 'base'),
    head: join(dir, 'head'),
  };
}

/** Did any part of the reference gate (the library functions or the CLI) reject the change? */
function referenceRejects(gate: Record<string, unknown>): boolean {
  return Object.values(gate).some((v) => {
    if (typeof v !== 'object' || v === null) return v !== 'ok';
    const verdict = v as { exception?: string; exit_code?: number };
    return verdict.exception !== undefined || (verdict.exit_code !== undefined && verdict.exit_code !== 0);
  });
}

describe('changelog golden cases (reference process_changelog.py and the gate)', () => {
  it('has the cases', () => expect(cases.length).toBeGreaterThanOrEqual(12));

  for (const name of cases) {
    const { args, base, head } = load(name);

    it(`matrix: ${name}`, async () => {
      const run = (): Promise<string> =>
        changelogMatrix(dirSnapshot(base), dirSnapshot(head), {
          baseLabel: args.base_ref,
          headLabel: args.head_ref,
          trimConc: args.flags.includes('--trim-conc'),
          allEvals: args.flags.includes('--all-evals'),
          evalsOnly: args.flags.includes('--evals-only'),
        }).then((m) => `${changelogMatrixJson(m)}\n`);
      if (args.expect) {
        const expected = readFileSync(join(root, name, args.expect), 'utf8');
        const out = await run();
        expect(JSON.parse(out)).toEqual(JSON.parse(expected));
        expect(out === expected).toBe(true);
        return;
      }
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, 'the reference rejects this change').toBeDefined();
      if (error instanceof ProblemsError) {
        // The reference stops at the first invalid master-config entry; we list them all.
        expect(error.problems.length).toBeGreaterThan(0);
      } else {
        expect(error).toBeInstanceOf(ChangelogError);
        expect((error as Error).message).toContain(args.expect_error_first_line);
      }
    });

    it(`check: ${name}`, async () => {
      const report = await checkChangelog(dirSnapshot(base, 'base'), dirSnapshot(head, 'head'));
      const warnings = report.problems.filter((p) => p.severity === 'warning').map((p) => p.message);
      if (LAYOUT_ONLY[name]) {
        expect(referenceRejects(args.gate)).toBe(true);
        expect(report.ok).toBe(true);
        expect(warnings).toEqual(LAYOUT_ONLY[name]);
        return;
      }
      if (referenceRejects(args.gate)) {
        expect(report.ok).toBe(false);
        expect(report.problems.every((p) => p.line >= 0 && p.message && p.hint)).toBe(true);
        return;
      }
      const extra = report.problems.filter((p) => p.severity === 'error').map((p) => p.message);
      expect(extra).toEqual(STRICTER[name] ?? []);
    });
  }

  it('the missing blank line: the reference CLI lets it through, the gate names the line and fixes it', async () => {
    const { base, head } = load('neg-no-blank-line');
    const report = await checkChangelog(dirSnapshot(base, 'base'), dirSnapshot(head, 'head'));
    expect(report.problems).toMatchObject([
      {
        rule: 'changelog-separator',
        file: join(head, 'perf-changelog.yaml'),
        line: 6381,
        message: "a new entry starts right after the previous entry's last line, with no blank line between them",
        hint: '`frontier changelog check --fix` inserts one blank line before line 6381',
      },
    ]);
    const fixed = report.fixed!.toString('utf8');
    const original = readFileSync(join(head, 'perf-changelog.yaml'), 'utf8').split('\n');
    expect(fixed.split('\n')).toEqual([...original.slice(0, 6380), '', ...original.slice(6380)]);
  });

  it('an entry inserted mid-file (PR #2507) is found and moved to the end by the fix', async () => {
    const { base, head } = load('mn-disagg-fixed-seq-len-pr2507');
    const report = await checkChangelog(dirSnapshot(base, 'base'), dirSnapshot(head, 'head'));
    expect(report.problems.map((p) => [p.line, p.severity, p.message])).toEqual([
      [5929, 'warning', LAYOUT_ONLY['mn-disagg-fixed-seq-len-pr2507']![0]],
    ]);
    const baseRaw = readFileSync(join(base, 'perf-changelog.yaml'));
    expect(report.fixed!.subarray(0, baseRaw.length).equals(baseRaw)).toBe(true);
    expect(report.fixed!.subarray(baseRaw.length).toString()).toMatch(/^\n- config-keys:\n {4}- dsv4-fp4-gb200-dynamo-sglang\n/);
  });

  it('uses the shared or the bundled cases', () => {
    expect(existsSync(join(root, 'neg-no-blank-line', 'head', 'perf-changelog.yaml'))).toBe(true);
  });
});
