import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFactor } from '../../src/sim/index.js';
import { CLI, runCli, tempFiles } from '../helpers.js';
import { waitFor } from '../support/wait.js';

/**
 * `frontier sim serve --run-variation CV --run-seed S` as a process: one launch's factor, drawn at
 * start-up, changes what the same bench measures; the same seed measures the same.
 */

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Served {
  url: string;
  banner: string;
  truth: string;
}

/** Start `frontier sim serve` with a ground-truth log; its URL and banner once it serves. */
function serve(args: string[]): Promise<Served> {
  const truth = join(tempFiles({}), 'truth.jsonl');
  const child = spawn(process.execPath, [CLI, 'sim', 'serve', '--port', '0', '--speed', '5', '--ground-truth', truth, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, banner: out, truth });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`sim exited ${code}: ${err}`)));
  });
}

const REQUESTS = 3;
const OUTPUT = 48;

/**
 * The same small bench against a server: requests one after another (each alone in the engine, so
 * its steps are the model's alone), and the decode throughput the ground truth shows: output
 * tokens after the first over the time between the first and the last, tokens per simulated second.
 */
async function bench(s: Served): Promise<number> {
  for (let i = 0; i < REQUESTS; i++) {
    const res = await fetch(`${s.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: `request ${i}: ${'word '.repeat(200)}`, max_tokens: OUTPUT, ignore_eos: true }),
    });
    expect(res.status).toBe(200);
    await res.json();
  }
  const lines = await waitFor(
    () => {
      const text = readFileSync(s.truth, 'utf8');
      const whole = text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .filter(Boolean);
      return whole.length === REQUESTS && whole;
    },
    { what: `${REQUESTS} ground-truth lines in ${s.truth}` },
  );
  let tokens = 0;
  let ms = 0;
  for (const line of lines) {
    const t = JSON.parse(line) as { simulated_times: number[]; completion_tokens: number };
    expect(t.completion_tokens).toBe(OUTPUT);
    tokens += OUTPUT - 1;
    ms += t.simulated_times[OUTPUT - 1]! - t.simulated_times[0]!;
  }
  // Wall milliseconds at --speed 5: simulated seconds are 5 times as long.
  return tokens / ((ms * 5) / 1000);
}

/** The banner without its address (the port differs from one process to the next). */
const bannerOf = (s: Served): string => s.banner.replace(/http:\/\/127\.0\.0\.1:\d+/, 'URL');

// Seeds whose factors (CV 3%) are far enough apart to tell: 0.968 and 1.028.
const LOW = 1;
const HIGH = 3;

describe('frontier sim serve --run-variation', () => {
  it('two seeds measure different throughput for the same bench; the same seed the same', async () => {
    expect(runFactor(0.03, LOW)).toBeLessThan(0.98);
    expect(runFactor(0.03, HIGH)).toBeGreaterThan(1.02);
    const low = await serve(['--run-variation', '0.03', '--run-seed', String(LOW)]);
    const again = await serve(['--run-variation', '0.03', '--run-seed', String(LOW)]);
    const high = await serve(['--run-variation', '0.03', '--run-seed', String(HIGH)]);
    expect(low.banner).toContain(`  run variation: CV 3%, this launch's factor ${runFactor(0.03, LOW).toFixed(3)}\n`);
    expect(high.banner).toContain(`this launch's factor ${runFactor(0.03, HIGH).toFixed(3)}`);
    const [a, b, c] = [await bench(low), await bench(again), await bench(high)];
    // The same seed: the same steps (to the rounding of epoch milliseconds).
    expect(Math.abs(a / b - 1)).toBeLessThan(1e-6);
    // The faster launch decodes faster, by part of the factors' 6% (a step's fixed overhead does not scale).
    expect(c / a).toBeGreaterThan(1.01);
    expect(c / a).toBeLessThan(runFactor(0.03, HIGH) / runFactor(0.03, LOW) + 1e-9);
  }, 60_000);

  it('CV 0 is the server without the flag: the same banner, the same measurements', async () => {
    const plain = await serve([]);
    const zero = await serve(['--run-variation', '0', '--run-seed', String(HIGH)]);
    expect(bannerOf(zero)).toBe(bannerOf(plain));
    expect(plain.banner).not.toContain('run variation');
    const [a, b] = [await bench(plain), await bench(zero)];
    expect(Math.abs(a / b - 1)).toBeLessThan(1e-6);
  }, 60_000);

  it('refuses a CV outside [0, 0.5], saying what it takes', () => {
    for (const cv of ['0.6', '-0.01', 'three'])
      expect(runCli(['sim', 'serve', '--run-variation', cv])).toMatchObject({
        status: 1,
        stderr: expect.stringContaining(
          `option '--run-variation <cv>' argument '${cv}' is invalid. expected a coefficient of variation in [0, 0.5], e.g. 0.02 for 2%`,
        ) as string,
      });
  });
});
