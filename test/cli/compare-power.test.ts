// `frontier ingest` and `frontier compare` as processes (dist/) on points with measured power (issue 21):
// ingest reports the power verdicts; compare flags an energy regression like a throughput one.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/contract/index.js';
import { REPO, runCli } from '../helpers.js';
import { copyDir, editJson, historyRuns } from '../store/helpers.js';

type Row = Record<string, unknown>;
const POWER_ARTIFACTS = join(REPO, 'test/fixtures/power/store/artifacts');
const H200 = 'dsr1_h200_sglang_tp8_conc64';

describe('frontier compare with measured energy', () => {
  it('flags 12% more energy per output token as a regression (exit 1), in markdown and JSON', () => {
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-cli-power-')), 'frontier.db');
    // Earlier official runs ±1% apart: the spread a change is judged against.
    for (const [i, earlier] of historyRuns(POWER_ARTIFACTS).entries())
      expect(
        runCli(['ingest', earlier, '--run-id', `h${i}`, '--official', '--date', `2026-01-0${i + 1}`, '--db', db]).status,
      ).toBe(0);
    const base = runCli(['ingest', POWER_ARTIFACTS, '--run-id', 'base', '--official', '--date', '2026-02-01', '--db', db]);
    expect(base.stderr).toBe('');
    expect(base.stdout).toContain('  power: 1 valid, 1 not valid\n');

    const pr = copyDir(POWER_ARTIFACTS);
    const worse = (r: Row) => ({ ...r, joules_per_output_token: (r.joules_per_output_token as number) * 1.12 });
    editJson(join(pr, `bmk_${H200}/agg_${H200}.json`), (r) => worse(r as Row));
    editJson(join(pr, 'results_bmk/agg_bmk.json'), (rows) => (rows as Row[]).map((r) => (r.hw === 'h200' ? worse(r) : r)));
    expect(runCli(['ingest', pr, '--run-id', 'pr', '--date', '2026-02-02', '--db', db]).status).toBe(0);

    const md = runCli(['compare', 'pr', '--db', db]);
    expect(md.status).toBe(1);
    expect(md.stdout).toContain('2 points; 2 with an official point to compare with: **1 regression**');
    // J/token (all tokens) did not change; J per output token did.
    expect(md.stdout).toMatch(
      /\| ▼ regression \| dsr1 h200 sglang fp8 TP8 \| 8192\/1024 \| 64 \|.*\| 0\.1654 \+0\.0% \[−\d\.\d, \+\d\.\d\] \| base/,
    );
    expect(md.stdout).toMatch(
      /- ▼ dsr1 h200 sglang fp8 TP8 8192\/1024 conc 64: J\/output token 1\.4883 → 1\.6669 \+12\.0% \[\+\d+\.\d, \+\d+\.\d\] ▼/,
    );

    // A minimum effect above the change (the older --threshold spelling): no regression, exit 0.
    const json = runCli(['compare', 'pr', '--db', db, '--json', '--threshold', '15']);
    expect(json.status).toBe(0);
    const c = JSON.parse(json.stdout) as Comparison;
    expect(c.method.min_effect_pct).toBe(15);
    const h200 = c.points.find((p) => p.config.hardware === 'h200')!;
    expect(h200.metrics.joules_per_output_token).toMatchObject({ baseline: 1.488281 });
    expect(h200.metrics.joules_per_output_token!.verdict).not.toBe('regression');
    expect(h200.power).toEqual({ run: { valid: true, source: 'measured' }, baseline: { valid: true, source: 'measured' } });
  });
});
