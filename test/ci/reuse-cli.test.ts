// `frontier ci reuse decide|validate` end to end on recorded inputs (test/fixtures/ci/reuse/).
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/reuse');
const MERGE = join(FIXTURES, 'merge-pinned');

const tmp = (): string => mkdtempSync(join(tmpdir(), 'frontier-reuse-cli-'));
const outputLines = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

const decide = (args: string[], env: Record<string, string> = {}) =>
  runCli(['ci', 'reuse', 'decide', '--event', join(MERGE, 'push.json'), '--event-name', 'push', '--github', MERGE, ...args], {
    env: { GITHUB_OUTPUT: '', GITHUB_RUN_ID: '', ...env },
  });

describe('frontier ci reuse decide', () => {
  it('enables the pinned (failed, second-attempt) run and prints the follow-up commands', () => {
    const r = decide(['--run-id', '99887766', '--artifacts-dir', 'reused']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('reuse: reuse the source run');
    expect(r.stdout).toContain('PR #1321 approved reusable full sweep from pinned run 25763404168');
    expect(r.stdout).toContain('frontier ingest reused --source-run 25763404168 --run-id 99887766 --official --attempt 2');
    expect(r.stdout).toContain('frontier ci reuse validate --artifacts-dir reused');
  });

  it('writes the reference outputs to GITHUB_OUTPUT, and JSON with the ingest command', () => {
    const out = join(tmp(), 'out');
    writeFileSync(out, '');
    const r = decide(['--format', 'json'], { GITHUB_OUTPUT: out, GITHUB_RUN_ID: '4242' });
    expect(r.status, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json.decision).toBe('reuse');
    expect(json.ingest_command).toBe(
      'frontier ingest reuse-artifacts --source-run 25763404168 --run-id 4242 --official --attempt 2',
    );
    expect(outputLines(out)).toEqual({
      'reuse-enabled': 'true',
      'skip-pr-sweep': 'false',
      'reuse-source-run-id': '25763404168',
      'reuse-source-run-attempt': '2',
      'reuse-source-run-url': 'https://github.com/SemiAnalysisAI/InferenceX/actions/runs/25763404168',
      'reuse-source-pr-number': '1321',
      'reuse-source-head-sha': 'abc123',
      'reuse-reason': 'PR #1321 approved reusable full sweep from pinned run 25763404168',
    });
  });

  it('fails closed (exit 1) with the code and the fix when the label makes reuse impossible', () => {
    const dir = tmp();
    cpSync(MERGE, dir, { recursive: true });
    const pr = JSON.parse(readFileSync(join(dir, 'pr.json'), 'utf8')) as { labels: { name: string }[] };
    pr.labels.push({ name: 'evals-only' });
    writeFileSync(join(dir, 'pr.json'), JSON.stringify(pr));
    const r = runCli([
      'ci',
      'reuse',
      'decide',
      '--event',
      join(MERGE, 'push.json'),
      '--event-name',
      'push',
      '--github',
      dir,
      '--format',
      'json',
    ]);
    expect(r.status).toBe(1);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect([json.decision, json.code, json.fail_closed]).toEqual(['refused', 'incompatible-label', true]);
    expect(json.hint).toContain('remove the evals-only');
  });

  it('--pr overrides the file in --github; a missing answer is an error naming the gh api call', () => {
    const r = runCli(['ci', 'reuse', 'decide', '--event', join(MERGE, 'push.json'), '--event-name', 'push', '--github', tmp()]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('pull requests of the merge commit');
    expect(r.stderr).toContain('gh api repos/OWNER/REPO/commits/SHA/pulls');
    const prFile = join(tmp(), 'pr.json');
    writeFileSync(
      prFile,
      JSON.stringify({ number: 1321, merged_at: null, labels: [{ name: 'full-sweep-enabled' }], head: { sha: 'abc123' } }),
    );
    const overridden = decide(['--pr', prFile, '--format', 'json']);
    expect(overridden.status).toBe(1);
    expect((JSON.parse(overridden.stdout) as { code: string }).code).toBe('not-merged');
  });
});

describe('frontier ci reuse validate', () => {
  it('validates a consistent set and reports matrix coverage as partial, not a failure', () => {
    const dir = tmp();
    cpSync(join(FIXTURES, 'artifacts'), dir, { recursive: true });
    const r = runCli(['ci', 'reuse', 'validate', '--artifacts-dir', dir, '--matrix', join(FIXTURES, 'matrix.json')]);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Reusable sweep artifacts validated: 2 fixed-sequence row(s), 0 agentic row(s), 1 eval row(s).');
    expect(r.stdout).toContain('matrix coverage: 2 of 3 expected fixed-sequence point(s) present (partial');
    expect(r.stdout).toContain(
      "absent: ('single', 'h100', 'gptoss', 'vllm', 'fp8', 'none', False, 1024, 1024, 2, 1, 1, 1, 1, False, 16)",
    );
  });

  it('fails with each problem’s code and fix', () => {
    const dir = tmp();
    cpSync(join(FIXTURES, 'artifacts'), dir, { recursive: true });
    const agg = join(dir, 'results_bmk', 'agg_bmk.json');
    const rows = JSON.parse(readFileSync(agg, 'utf8')) as unknown[];
    writeFileSync(agg, JSON.stringify([...rows, rows[0]]));
    const r = runCli(['ci', 'reuse', 'validate', '--artifacts-dir', dir, '--format', 'json']);
    expect(r.status).toBe(1);
    const json = JSON.parse(r.stdout) as { ok: boolean; problems: { code: string; message: string }[] };
    expect(json.ok).toBe(false);
    expect(json.problems.map((p) => [p.code, p.message])).toEqual([
      ['duplicate-rows', 'fixed-sequence artifacts contain 1 duplicate row(s)'],
    ]);
  });
});
