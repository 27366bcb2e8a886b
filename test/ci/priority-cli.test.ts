// `frontier ci priority` against InferenceX's utils/ci_priority.py: test/fixtures/ci/priority/
// expected/ holds what the reference printed for each case of cases.json (made by
// scripts/ci-priority-golden.py); the command must print the same bytes.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO, runCli, tempFiles } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/priority');

interface GoldenCase {
  name: string;
  matrix: string;
  policy: string;
  eventName: string;
  labels: string[] | null;
  criteria?: string;
  queueNamespace: string;
  prNumber?: number;
}

const { cases } = JSON.parse(readFileSync(join(FIXTURES, 'cases.json'), 'utf8')) as { cases: GoldenCase[] };
/** No Actions variables leak in from the environment the tests run in. */
const OUTSIDE_ACTIONS = {
  GITHUB_EVENT_PATH: '',
  GITHUB_EVENT_NAME: '',
  GITHUB_RUN_ID: '',
  GITHUB_RUN_ATTEMPT: '',
  GITHUB_OUTPUT: '',
};

const run = (args: string[], env: Record<string, string> = {}) =>
  runCli(['ci', 'priority', ...args], { cwd: FIXTURES, env: { ...OUTSIDE_ACTIONS, ...env } });

describe('frontier ci priority --format json (the reference golden cases)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: byte for byte what ci_priority.py printed', (name, c) => {
    const args = ['--format', 'json', '--matrix', c.matrix, '--policy', c.policy, '--event-name', c.eventName];
    args.push('--labels', JSON.stringify(c.labels), '--queue-namespace', c.queueNamespace);
    if (c.criteria !== undefined) args.push('--criteria', c.criteria);
    if (c.prNumber !== undefined) args.push('--pr-number', String(c.prNumber));
    const result = run(args);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout === readFileSync(join(FIXTURES, 'expected', `${name}.json`), 'utf8')).toBe(true);
  });
});

const prEvent = (labels: string[], number = 2606) =>
  JSON.stringify({
    action: 'labeled',
    number,
    pull_request: { number, labels: labels.map((name) => ({ name })), head: { sha: 'abc' } },
  });

describe('frontier ci priority', () => {
  it('reads the event payload in Actions: event name, labels, PR number, the run attempt as namespace; writes GITHUB_OUTPUT', () => {
    const dir = tempFiles({ 'event.json': prEvent(['skip_queue', 'ci-checklist-complete']), 'output.txt': '' });
    const result = run(['--matrix', 'matrix-pr2606.json', '--policy', 'ci-priority.yaml', '--format', 'json'], {
      GITHUB_EVENT_PATH: join(dir, 'event.json'),
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_RUN_ID: '222',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_OUTPUT: join(dir, 'output.txt'),
    });
    const expected = readFileSync(join(FIXTURES, 'expected/pr2606-skip-queue-checklist.json'), 'utf8');
    expect(result.stderr).toBe('');
    expect(result.stdout === expected).toBe(true);
    expect(readFileSync(join(dir, 'output.txt'), 'utf8')).toBe(`search-space-config=${expected}`);
  });

  it('reads the matrix from stdin and prints the queue order, highest first, with why', () => {
    const matrix = JSON.stringify({
      single_node: {
        '1k1k': [
          { runner: 'h100', framework: 'trt', 'exp-name': 'plain', conc: 4 },
          { runner: 'b200', framework: 'sglang', precision: 'fp4', 'model-prefix': 'dsv4', 'exp-name': 'boosted', conc: [8, 16] },
        ],
      },
    });
    const args = [
      'ci',
      'priority',
      '--policy',
      join(FIXTURES, 'ci-priority.yaml'),
      '--event-name',
      'push',
      '--labels',
      'ci-checklist-complete',
    ];
    const result = spawnSync(process.execPath, [CLI, ...args], {
      input: matrix,
      env: { ...process.env, ...OUTSIDE_ACTIONS },
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        '2 jobs, highest priority first (event: push; labels: ci-checklist-complete; criteria: none (job fields))',
        'score  job      where               runner  conc  why',
        '5.250  boosted  single_node/1k1k/1  b200    8,16  base 1, push +2, fp4 +0.75, sglang +0.5, dsv4 +0.75, checklist (ci-checklist-complete) +0.25',
        '3.250  plain    single_node/1k1k/0  h100    4     base 1, push +2, checklist (ci-checklist-complete) +0.25',
        '',
      ].join('\n'),
    );
  });

  it('says which label pinned a patchwork score, and that the pull request skips the queue', () => {
    const result = run(
      ['--matrix', 'matrix-pr2606.json', '--policy', 'ci-priority.yaml', '--event-name', 'pull_request'].concat([
        '--labels',
        '["engine-patch","skip_queue"]',
        '--pr-number',
        '2606',
      ]),
    );
    expect(result.stdout).toContain(
      '0.000  qwen3.5_8k1k  multinode_evals/0  mi355x-disagg  8,16,32,64,128  patchwork: label engine-patch pins the score',
    );
    expect(result.stdout).toContain(
      'skip-queue: pull request #2606 asked to skip the queue; every job carries skip-queue-pr 2606',
    );
  });

  it('takes criteria as a comma list; an unknown criterion is an error naming it and the known ones', () => {
    const ok = run([
      '--matrix',
      'matrix-pr2606.json',
      '--policy',
      'ci-priority.yaml',
      '--criteria',
      'multi-node, qwen3.5',
      '--format',
      'json',
    ]);
    expect(ok.stdout).toContain('"priority":"3.000"');
    const bad = run(['--matrix', 'matrix-pr2606.json', '--policy', 'ci-priority.yaml', '--criteria', 'fp4,fp5']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("frontier: error: Unknown CI priority criteria: ['fp5']");
    expect(bad.stderr).toContain('hint: the criteria ci-priority.yaml knows: agentic, checklist-complete, dsr1, dsv4');
  });

  it('refuses a matrix that is not JSON, naming where', () => {
    const dir = tempFiles({ 'm.json': '{"single_node": [' });
    const result = run(['--matrix', join(dir, 'm.json'), '--policy', 'ci-priority.yaml']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`--matrix ${join(dir, 'm.json')}: not JSON: Expecting value: line 1 column 18 (char 17)`);
  });
});

describe('the priority policy file', () => {
  const policyRun = (yaml: string) => {
    const dir = tempFiles({ 'policy.yaml': yaml });
    return {
      file: join(dir, 'policy.yaml'),
      result: run(['--matrix', 'matrix-pr2606.json', '--policy', join(dir, 'policy.yaml')]),
    };
  };
  const shipped = readFileSync(join(FIXTURES, 'ci-priority.yaml'), 'utf8');

  it('an unknown key is an error at its file:line, with the key it likely meant', () => {
    const { file, result } = policyRun(shipped.replace('  multi-node: 1.25', '  multinode: 1.25'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${file}:11:3  adjustments.multinode  unknown field "multinode"`);
    expect(result.stderr).toContain('hint: did you mean "multi-node"?');
  });

  it('a score that is not a number is an error at its file:line naming the key', () => {
    const { file, result } = policyRun(shipped.replace('    fp4: 0.75', '    fp4: high'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${file}:15:10  adjustments.precision.fp4  expected a number, e.g. 0.75, got "high"`);
  });

  it('a number PyYAML reads as a string (1e-05, no dot) is taken as the reference takes it', () => {
    const { result } = policyRun(shipped.replace('  eval-only: 0.0', '  eval-only: 1e-03'));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('eval-only +0.001');
  });

  it('another version, a missing section and a missing file are errors with the fix', () => {
    expect(policyRun(shipped.replace('version: 1', 'version: 2')).result.stderr).toMatch(
      /:1:10 {2}version {2}expected 1 \(the only policy version\), got 2/,
    );
    expect(policyRun(shipped.replace(/ {2}patchwork:[^]*$/, '')).result.stderr).toContain('missing required field "patchwork"');
    const missing = run(['--matrix', 'matrix-pr2606.json', '--policy', 'nowhere.yaml']);
    expect(missing.stderr).toContain('the CI priority policy nowhere.yaml does not exist');
    expect(missing.stderr).toContain('hint: give --policy FILE');
  });
});
