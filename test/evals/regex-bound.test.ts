import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalOutcome } from '../../src/launch/evals.js';
import { PY_REGEX_TIME_LIMIT_MS } from '../../src/pycompat/index.js';
import { announcedUrl, CLI, tempFiles } from '../helpers.js';
import { groupAlive, signalGroup } from '../support/process-group.js';
import { waitFor } from '../support/wait.js';

// A task file whose regex backtracks without end on the reply the sim gives: `frontier eval run`
// reports the task invalid after PY_REGEX_TIME_LIMIT_MS, and answers SIGTERM meanwhile. Without the
// bound the regex runs for hours on the eval's only thread, deaf to signals.

const PATTERN = '^(a+)+$';
const REPLY = `${'a'.repeat(40)}b`;
const QUESTIONS = ['Say a, then b.', 'Say a twice, then b.', 'Say a thrice, then b.'];

const DIR = tempFiles({
  'hostile.yaml': [
    'task: hostile_regex',
    'dataset_path: local/hostile',
    'test_split: test',
    'output_type: generate_until',
    'doc_to_text: "{{question}}"',
    'doc_to_target: "{{answer}}"',
    'filter_list:',
    '  - name: nested-repeat',
    '    filter:',
    '      - function: regex',
    `        regex_pattern: "${PATTERN}"`,
    '      - function: take_first',
    '',
  ].join('\n'),
  'data/local/hostile/test.jsonl': QUESTIONS.map((question) => JSON.stringify({ question, answer: REPLY })).join('\n') + '\n',
  'keys.jsonl': QUESTIONS.map((question) => JSON.stringify({ question, right: REPLY, wrong: REPLY })).join('\n') + '\n',
});
const TASK = join(DIR, 'hostile.yaml');
const REASON =
  `task hostile_regex (${TASK}), doc 0: Python regex /${PATTERN}/ did not finish within ${PY_REGEX_TIME_LIMIT_MS} ms ` +
  '(PY_REGEX_TIME_LIMIT_MS) on a 41-character text: rewrite the pattern so that it cannot backtrack without end: ' +
  'no repetition of a repetition such as (a+)+ or (a|a)*';

const servers: ChildProcess[] = [];
const evals: ChildProcess[] = [];
afterAll(() => {
  servers.forEach((c) => c.kill('SIGTERM'));
  evals.forEach((c) => signalGroup(c, 'SIGKILL'));
});

/** `frontier sim serve` answering every question with REPLY, logging each request as it ends. */
async function sim(truth: string): Promise<string> {
  const args = ['sim', 'serve', '--port', '0', '--speed', '1000', '--answers', join(DIR, 'keys.jsonl'), '--accuracy', '1'];
  const child = spawn(process.execPath, [CLI, ...args, '--ground-truth', truth], { stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  return announcedUrl(child);
}

interface Eval {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** The exit status, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals>;
}

/** `frontier eval run` of the hostile task against `url`, in its own process group. */
function evalRun(url: string, out: string): Eval {
  const args = ['eval', 'run', '--task', TASK, '--data', join(DIR, 'data'), '--base-url', url];
  const child = spawn(process.execPath, [CLI, ...args, '--concurrency', '1', '--max-tokens', '64', '--out', out], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  evals.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal!)));
  return { child, output, exited };
}

/** The exit status, or 'still running' once `ms` have passed (the process is then killed). */
async function exitWithin(e: Eval, ms: number): Promise<number | NodeJS.Signals | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ms)));
  const how = await Promise.race([e.exited, late]);
  clearTimeout(timer);
  if (how === 'still running') signalGroup(e.child, 'SIGKILL');
  return how;
}

describe('a task regex that backtracks without end', () => {
  it('makes the eval invalid, naming the task, file, doc, pattern and limit, and stops the task there', async () => {
    const truth = join(tempFiles({}), 'truth.jsonl');
    const url = await sim(truth);
    const out = join(tempFiles({}), 'eval');
    const run = evalRun(url, out);
    expect(await exitWithin(run, PY_REGEX_TIME_LIMIT_MS + 20_000), run.output.stderr).toBe(1);
    expect(run.output.stderr).toBe('');
    expect(run.output.stdout).toContain(
      `  1  hostile_regex             exact_match,nested-repeat           N/A ± N/A  0     1    0       no (${REASON})\n`,
    );

    const results = readdirSync(out).find((f) => /^results_.*\.json$/.test(f))!;
    const frontier = (JSON.parse(readFileSync(join(out, results), 'utf8')) as { frontier: Record<string, unknown> }).frontier;
    expect(frontier.valid).toBe(false);
    expect(frontier.interrupted).toBe(false);
    expect(frontier.tasks).toEqual({
      hostile_regex: { valid: false, unscored: REASON, requests: 0, failed_requests: 0, repeats: 1 },
    });
    expect(evalOutcome(out, [1])).toMatchObject({ status: 'invalid', error: REASON });
    // The first doc stopped the task: its one request, none for the other docs.
    expect(readFileSync(truth, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('SIGTERM during the scoring ends the eval within the bound and a second, as an interrupt, leaving no process', async () => {
    const truth = join(tempFiles({}), 'truth.jsonl');
    const url = await sim(truth);
    const out = join(tempFiles({}), 'eval');
    const run = evalRun(url, out);
    // The sim has answered: the eval is scoring the reply.
    await waitFor(() => existsSync(truth) && readFileSync(truth, 'utf8').includes('\n'), {
      what: 'the sim to answer the first request',
      timeoutMs: 20_000,
      intervalMs: 5,
    });
    const signalled = performance.now();
    signalGroup(run.child, 'SIGTERM');
    expect(await exitWithin(run, PY_REGEX_TIME_LIMIT_MS + 10_000), run.output.stderr).toBe(130);
    expect(performance.now() - signalled).toBeLessThan(PY_REGEX_TIME_LIMIT_MS + 1000);
    expect(run.output.stdout).toContain(`interrupted: finished samples kept; continue with --resume --out ${out}\n`);
    expect(groupAlive(run.child.pid!)).toBe(false);
  });
});
