import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectEvalResults, formatAggJson, formatEvalTables } from '../../src/evals/index.js';
import type { EvalRow } from '../../src/evals/index.js';
import { toPlain } from '../../src/pycompat/index.js';
import { readFixture, tempFiles } from '../helpers.js';
import { EVALS, materialize } from './golden.js';

// golden/evals/collect_eval_results: the reference collect_eval_results.py on two artifacts (README (c)).
const GOLDEN = `${EVALS}/collect_eval_results`;
const expectedText = readFixture(`${GOLDEN}/expected/agg_eval_all.json`);
const expected = JSON.parse(expectedText) as Record<string, unknown>[];
const run = JSON.parse(readFixture(`${GOLDEN}/expected/run.json`)) as { stdout_NOT_GOLDEN_tabulate_stub: string };

/** The reference's command, `collect_eval_results.py eval_results/ all`, run from input/. */
const collectGolden = (): EvalRow[] => collectEvalResults('eval_results/', { cwd: materialize(`${GOLDEN}/input`) });

const bySource = <T extends { source?: unknown }>(rows: readonly T[]): Map<unknown, T> => new Map(rows.map((r) => [r.source, r]));

describe('collect_eval_results.py golden', () => {
  const rows = collectGolden();

  it('finds the same rows (compared as a set keyed by source)', () => {
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(expected.map((r) => r.source)));
  });

  for (const want of expected) {
    it(`row ${String(want.source).split('/').slice(1).join('/').slice(-60)}`, () => {
      const got = toPlain(bySource(rows).get(want.source)) as Record<string, unknown>;
      expect(Object.keys(got)).toEqual(Object.keys(want)); // field order as the reference writes it
      for (const key of Object.keys(want)) expect(got[key], key).toEqual(want[key]);
    });
  }

  it('writes the rows byte for byte as json.dump(rows, indent=2) (in the golden row order)', () => {
    const ordered = expected.map((r) => bySource(rows).get(r.source)!);
    expect(formatAggJson(ordered)).toBe(expectedText);
  });

  it('the surprises the README lists: single-node EP/DP-attention as meta_env.json recorded them, conc from the _concN suffix', () => {
    const single = rows.find((r) => !r.is_multinode)!;
    expect([single.ep, single.dp_attention, single.hw, single.isl]).toEqual([1, 'false', 'B300', 8192]);
    expect(rows.filter((r) => r.is_multinode).map((r) => [r.conc, r.dp_attention])).toEqual([
      [24, 'prefill=true,decode=false'],
      [48, 'prefill=true,decode=false'],
    ]);
  });

  it('prints the tables with the cells the reference printed (its tabulate layout is not a golden)', () => {
    const cells = (text: string): string[][] =>
      text
        .split('\n')
        .filter((line) => line.startsWith('| '))
        .map((line) =>
          line
            .slice(1, -1)
            .split('|')
            .map((c) => c.trim()),
        );
    const ours = formatEvalTables(rows);
    expect(cells(ours)).toEqual(cells(run.stdout_NOT_GOLDEN_tabulate_stub));
    expect(ours.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      '### Single-Node Eval Results',
      '### Multi-Node Eval Results',
    ]);
    expect(ours).toContain('95.15% ±0.59%');
  });

  it('source follows the root as spelled: "./eval_results//" and "eval_results" give "eval_results/…"', () => {
    const cwd = materialize(`${GOLDEN}/input`);
    for (const root of ['./eval_results//', 'eval_results']) {
      expect(new Set(collectEvalResults(root, { cwd }).map((r) => r.source))).toEqual(new Set(expected.map((r) => r.source)));
    }
    const absolute = join(cwd, 'eval_results');
    expect(collectEvalResults(absolute).every((r) => r.source.startsWith(`${absolute}/eval_`))).toBe(true);
  });
});

const lmEval = (strict: number, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    results: { gsm8k: { 'exact_match,strict-match': strict, 'exact_match,flexible-extract': strict } },
    configs: {
      gsm8k: { metric_list: [{ metric: 'exact_match' }], filter_list: [{ name: 'strict-match' }, { name: 'flexible-extract' }] },
    },
    'n-samples': { gsm8k: { effective: 10 } },
    lm_eval_version: '0.4.9.2',
    model_name: 'm/model',
    ...extra,
  });

/** Rows with floats as plain numbers, for comparing values. */
const plainRows = (root: string): EvalRow[] => collectEvalResults(root).map((r) => toPlain(r) as EvalRow);

describe('collect_eval_results.py behaviours beyond the golden', () => {
  it('a legacy artifact uses its newest lm-eval JSON by mtime; other JSON files are ignored', () => {
    const root = tempFiles({
      'a/meta_env.json': JSON.stringify({ hw: 'h100', infmax_model_prefix: 'p', isl: '1024', osl: 'x' }),
      'a/results_old.json': lmEval(0.5),
      'a/zz_new.json': lmEval(0.75),
      'a/other.json': JSON.stringify({ results: { gsm8k: {} } }),
      'a/broken.json': '{',
    });
    utimesSync(join(root, 'a/results_old.json'), 1000, 2_000_000_000);
    utimesSync(join(root, 'a/zz_new.json'), 1000, 1_000_000_000);
    const rows = plainRows(root);
    expect(rows.map((r) => [r.source, r.em_strict, r.isl, r.osl, r.conc, r.tp, r.dp_attention])).toEqual([
      [`${root}/a/results_old.json`, 0.5, 1024, 0, 0, 1, 'none'],
    ]);
  });

  it('a batched artifact: the newest file per _concN, ascending, only completed concs', () => {
    const root = tempFiles({
      'b/meta_env.json': JSON.stringify({ is_multinode: 'true', conc: 4, eval_concs: [4, 8, 16], completed_eval_concs: [16, 4] }),
      'b/results_1_conc16.json': lmEval(0.3),
      'b/results_2_conc4.json': lmEval(0.1),
      'b/results_3_conc8.json': lmEval(0.2),
      'b/results_4_conc4_1.json': lmEval(0.15),
      'b/results_plain.json': lmEval(0.9),
    });
    utimesSync(join(root, 'b/results_2_conc4.json'), 1000, 1_000_000_000);
    utimesSync(join(root, 'b/results_4_conc4_1.json'), 1000, 2_000_000_000);
    expect(plainRows(root).map((r) => [r.conc, r.em_strict])).toEqual([
      [4, 0.15],
      [16, 0.3],
    ]);
  });

  it('a flat artifact (meta_env.json in the root) and accuracy-only tasks', () => {
    const root = tempFiles({
      'meta_env.json': JSON.stringify({ is_multinode: false, dp_attention: true }),
      'results.json': JSON.stringify({ results: { arc: { acc: 0.5, acc_stderr: 0.01 } }, lm_eval_version: '0.4', configs: {} }),
    });
    const [row] = plainRows(root);
    expect(row).toMatchObject({
      task: 'arc',
      score: 0.5,
      score_name: 'accuracy',
      score_se: 0.01,
      em_strict: null,
      dp_attention: 'true',
    });
    expect(row!.source).toBe(`${root}/results.json`);
  });

  it('SWE-bench style: a "resolved" filter is the strict score', () => {
    const root = tempFiles({
      's/meta_env.json': '{}',
      's/results.json': JSON.stringify({
        results: { swebench_lite: { 'exact_match,resolved': 0.4, 'exact_match_stderr,resolved': 0.02 } },
        configs: { swebench_lite: { metric_list: [{ metric: 'exact_match' }], filter_list: [{ name: 'resolved' }] } },
        lm_eval_version: 'x',
      }),
    });
    expect(plainRows(root)[0]).toMatchObject({ score: 0.4, score_name: 'em_strict', score_se: 0.02, model: 'unknown' });
  });

  it('a missing root gives no rows; the tables say so', () => {
    expect(collectEvalResults('/nonexistent/eval_results')).toEqual([]);
    expect(formatEvalTables([])).toBe('> No eval results found to summarize.\n');
    expect(formatAggJson([])).toBe('[]');
  });

  it('floats keep their Python form in the written JSON', () => {
    const root = tempFiles({ 'a/meta_env.json': '{}' });
    mkdirSync(join(root, 'a'), { recursive: true });
    writeFileSync(join(root, 'a/r.json'), lmEval(1).replace('"exact_match,strict-match":1', '"exact_match,strict-match":1.0'));
    expect(formatAggJson(collectEvalResults(root))).toContain('"em_strict": 1.0,');
  });
});
