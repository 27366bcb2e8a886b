// `frontier ci comment` and `frontier ci success-rate` as processes (dist/), on a store made by
// `frontier ingest`: an official run, and a PR run of the same configs with lower throughput and
// one eval under its threshold.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_MARKER } from '../../src/ci/comment.js';
import { REPO, runCli, tempFiles } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson, historyRuns } from '../store/helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/comment');
const RUNNERS = join(REPO, 'test/fixtures/inferencex/configs/runners.yaml');
let db: string;

beforeAll(() => {
  db = join(tempFiles({}), 'frontier.db');
  // Earlier official runs ±1% apart: the run-to-run spread the comparison judges the PR's change by.
  for (const [i, earlier] of historyRuns(ARTIFACTS).entries())
    expect(runCli(['ingest', earlier, '--run-id', `9${i}`, '--official', '--date', `2025-12-0${i + 1}`, '--db', db]).status).toBe(
      0,
    );
  expect(runCli(['ingest', ARTIFACTS, '--run-id', '100', '--official', '--date', '2026-01-01', '--db', db]).status).toBe(0);
  const pr = copyDir(ARTIFACTS);
  editJson(join(pr, 'results_bmk/agg_bmk.json'), (rows) =>
    (rows as Record<string, number>[]).map((r) => ({ ...r, tput_per_gpu: r.tput_per_gpu! * 0.8 })),
  );
  editJson(join(pr, 'eval_results_all/agg_eval_all.json'), (rows) =>
    (rows as Record<string, unknown>[]).map((r, i) => (i === 0 ? { ...r, em_strict: 0.5, score: 0.5 } : r)),
  );
  expect(runCli(['ingest', pr, '--run-id', '200', '--date', '2026-02-01', '--db', db]).status).toBe(0);
}, 60_000);

const comment = (args: string[], env: Record<string, string> = {}) => {
  const dir = tempFiles({});
  const file = join(dir, 'summary.md');
  const out = join(dir, 'github-output');
  writeFileSync(out, '');
  const r = runCli(
    ['ci', 'comment', '--run-id', '200', '--db', db, '--comment-file', file, '--runner-config', RUNNERS, ...args],
    {
      env: { GITHUB_OUTPUT: out, GITHUB_EVENT_PATH: '', FRONTIER_DASHBOARD_URL: '', ...env },
    },
  );
  return { ...r, file, output: readFileSync(out, 'utf8') };
};

describe('frontier ci comment', () => {
  it('writes the summary: what ran, canary, success rate, comparison, eval verdicts and dashboard links', () => {
    const r = comment(
      [
        '--event',
        join(FIXTURES, 'event.json'),
        '--event-name',
        'pull_request',
        '--run-dir',
        join(FIXTURES, 'run-dir'),
        '--jobs',
        join(FIXTURES, 'jobs.json'),
      ],
      { FRONTIER_DASHBOARD_URL: 'https://dash.example/' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const md = readFileSync(r.file, 'utf8');
    expect(r.stdout).toBe(md);
    expect(md.startsWith(`${COMMENT_MARKER}\n## Frontier sweep: run 200\n`)).toBe(true);
    expect(md).toContain('Pull request #2184 at `0123456789ab`.');
    // What ran, from the run directory.
    expect(md).toContain('| h200 | dsr1 fp8 sglang TP8 8192/1024 | 4, 64 |  | 2/2 | done |');
    expect(md).toContain('| h200 | dsr1 fp4 vllm TP4/EP4 8192/1024 | 16, 128, 256 | yes | 1/3 | failed |');
    expect(md).toContain('**Canary:** ✅ passed (`canary / p0 | dsr1 fp8 cluster:h200-cw sgl TP8 c4`: success)');
    // The success rate, from the jobs (as the reference counts them).
    expect(md).toContain('**8 of 14 jobs succeeded (57.1%)**');
    expect(md).toContain('| h200-cw | 3 | 4 | 75.0% |');
    expect(md).not.toContain('| b300-cw |');
    // The comparison: every point 20% under the official run's throughput.
    expect(md).toContain('### Run 200 against the official results');
    expect(md).toContain(
      '6 points; 6 with an official point to compare with: **6 regressions**, 0 improvements, 0 with no significant change, 0 inconclusive.',
    );
    expect(md).toContain('a false discovery rate of 5% (Benjamini–Hochberg over every metric) and at least 2%');
    expect(md).toMatch(
      /\| ▼ regression \| dsr1 h200 sglang fp8 TP8 \| 8192\/1024 \| 64 \| 1\/1 \| 1,638\.7 −20\.0% \[−2\d\.\d, −1\d\.\d\] ▼ \|/,
    );
    // Eval verdicts.
    expect(md).toContain('2 of 3 passed; **1 failed**.');
    expect(md).toMatch(/\| ❌ fail \| [^|]+ \| gsm8k \| \d+ \| 0\.5000 \(em_strict\) \| 0\.91 \|/);
    expect(md).toContain('| ✅ pass | dsr1 b300 sglang fp4 mtp TP4 | gsm8k | 64 | 0.9515 (em_strict) | 0.91 |');
    // Links: the run page, and the inference chart with this run drawn over the official results.
    expect(md).toContain('- [run 200](https://dash.example/runs/200)');
    expect(md).toContain('(https://dash.example/inference?model=dsr1&seq=8192x1024&run=200)');
    expect(r.output).toBe(`comment-file=${r.file}\nsuccess-rate=57.14\n`);
  });

  it('answers the structured summary as JSON; without jobs the run directory gives the success rate', () => {
    const r = comment(['--run-dir', join(FIXTURES, 'run-dir'), '--format', 'json', '--dashboard-url', 'https://d.example']);
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout) as Record<string, unknown> & {
      success_rate: { n_success: number; total: number; by_hardware: unknown };
      comparison: { regressions: number; verdicts: Record<string, number>; method: { alpha: number } };
      evals: { verdict: string }[];
      links: { url: string }[];
    };
    expect(s.pull_request).toBeNull();
    expect(s.canary).toBeNull();
    expect(s.success_rate).toMatchObject({ n_success: 3, total: 4, by_hardware: { 'h200-cw': { n_success: 3, total: 4 } } });
    expect(s.comparison.regressions).toBe(6);
    expect(s.comparison.verdicts).toEqual({ regression: 6, improvement: 0, 'no significant change': 0, inconclusive: 0 });
    expect(s.comparison.method.alpha).toBe(0.05);
    expect(s.evals.map((e) => e.verdict).sort()).toEqual(['fail', 'pass', 'pass']);
    expect(s.links[0]!.url).toBe('https://d.example/runs/200');
    expect(r.output).toContain('success-rate=75.00\n');
  });

  it('from the sweep matrix, with the stored run_stats', () => {
    const matrix = [
      {
        'model-prefix': 'dsr1',
        precision: 'fp8',
        framework: 'sglang',
        runner: 'h200',
        isl: 1024,
        osl: 1024,
        tp: 8,
        ep: 1,
        pp: 1,
        'dp-attn': false,
        conc: 4,
      },
      {
        'model-prefix': 'dsr1',
        precision: 'fp8',
        framework: 'sglang',
        runner: 'h200',
        isl: 1024,
        osl: 1024,
        tp: 8,
        ep: 1,
        pp: 1,
        'dp-attn': false,
        conc: 64,
        'run-eval': true,
      },
    ];
    const file = join(tempFiles({ 'm.json': JSON.stringify({ single_node: { '1k1k': matrix }, multi_node: {} }) }), 'm.json');
    const r = comment(['--matrix', file]);
    expect(r.status).toBe(0);
    const md = readFileSync(r.file, 'utf8');
    expect(md).toContain('From the matrix: 1 config.');
    expect(md).toContain('| h200 | dsr1 fp8 sglang TP8 1024/1024 | 4, 64 | yes |');
    // The artifact set's run_stats.json, as ingested.
    expect(md).toContain('**6 of 7 jobs succeeded (85.7%)**, from the stored run_stats.');
    expect(md).not.toContain('### Dashboard');
  });

  it('refuses a run the store does not have, saying how to ingest it', () => {
    const r = runCli(['ci', 'comment', '--run-id', '999', '--db', db, '--comment-file', join(tempFiles({}), 'x.md')], {
      env: { GITHUB_EVENT_PATH: '' },
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('no run 999 in');
    expect(r.stderr).toContain('frontier ingest DIR --run-id 999');
  });
});

describe('frontier ci success-rate', () => {
  it('writes run_stats.json as the reference does and prints its table', () => {
    const out = join(tempFiles({}), 'stats', 'run_stats.json');
    const r = runCli(['ci', 'success-rate', '--jobs', join(FIXTURES, 'jobs.json'), '--runner-config', RUNNERS, '--out', out], {
      env: { GITHUB_OUTPUT: '' },
    });
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(FIXTURES, 'expected-run_stats.json'), 'utf8'));
    expect(r.stdout).toBe(readFileSync(join(FIXTURES, 'expected-table.txt'), 'utf8'));
  });

  it('asks for jobs or a run directory', () => {
    const r = runCli(['ci', 'success-rate'], { env: { GITHUB_OUTPUT: '' } });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('--jobs FILE');
  });
});
