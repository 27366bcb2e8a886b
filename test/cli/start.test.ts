import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunManifest } from '../../src/launch/index.js';
import { freshClone } from '../support/fresh-clone.js';
import type { FreshClone } from '../support/fresh-clone.js';

/** `npm start` in `dir`, exactly as the README gives it, with only the dashboard's port chosen. */
function npmStart(dir: string, env: Record<string, string> = {}) {
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: the test stops npm and everything it started, as Ctrl-C does
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  /** Resolves with the first match of `re` in stdout; rejects if npm start exits first. */
  const waitFor = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = re.exec(output.stdout);
        if (m) {
          child.stdout!.off('data', check);
          resolve(m);
        }
      };
      child.stdout!.on('data', check);
      check();
      void exited.then((code) => reject(new Error(`npm start exited ${code} before ${re}:\n${output.stdout}\n${output.stderr}`)));
    });
  return { child, output, exited, waitFor };
}

/** Ctrl-C, as a user stops it: SIGINT to the whole process group. */
function interrupt(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGINT');
  } catch {
    // already gone
  }
}

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as T;
}

interface StoredRun {
  run_id: string;
  official: boolean;
  status: string;
  points: number;
  agentic_points: number;
}

/** The clone's one run directory, runs/<date>-<time>. */
function runDir(dir: string): string {
  const stamps = readdirSync(join(dir, 'runs')).filter((f) => /^\d{8}-\d{6}$/.test(f));
  expect(stamps).toHaveLength(1);
  return join(dir, 'runs', stamps[0]!);
}

const manifestOf = (out: string) => JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;

let clone: FreshClone | undefined;
afterEach(() => {
  clone?.remove();
  clone = undefined;
});

describe('npm start, as the README says, on a fresh clone', () => {
  it('runs the example catalog’s whole matrix, prints its summary, then serves the dashboard with its points', async () => {
    clone = freshClone();
    const start = npmStart(clone.dir);
    try {
      const url = (await start.waitFor(/dashboard: (http:\/\/127\.0\.0\.1:\d+)\/inference/))[1]!;
      const { stdout, stderr } = start.output;
      expect(stderr).toContain('cluster: local-sim');
      // The run directory is runs/<date>-<time> of the clone, and everything the run needed is in it.
      const out = runDir(clone.dir);
      expect(stdout).toContain(`run directory: ${relative(clone.dir, out)}\n`);
      expect(existsSync(join(out, 'traces', 'small.jsonl'))).toBe(true);
      const manifest = manifestOf(out);
      expect(manifest.status).toBe('completed');
      const ran = manifest.points;
      expect(ran.every((p) => p.status === 'ok')).toBe(true);
      expect(stdout).toContain(`${ran.length} of ${ran.length} points ok · run completed`);
      // The llama.cpp row ran on the real llama-server (npm test built it), the others on the simulated engine.
      const engines = new Set(manifest.groups.filter((g) => g.status === 'done').map((g) => g.engine));
      expect([...engines].sort()).toEqual(['llama.cpp', 'sim', 'sim (for dynamo-sglang)', 'sim (for vllm)']);
      expect(stdout).toMatch(/qwen3-0\.6b q8 llama\.cpp TP1 256\/64\s+4\s+ok/);
      expect(stdout).toMatch(/dsr1 fp8 dynamo-sglang 1P1D TP8\/TP8 1024\/64\s+32\s+ok/);
      // The agentic rows replayed the small synthetic corpus: their aggregates are InferenceX's agentic ones.
      const agentic = ran.filter((p) => p.agentic);
      const fixed = ran.filter((p) => !p.agentic);
      expect(agentic).toHaveLength(5);
      expect(stdout).toMatch(/llama3\.1-8b fp8 sim TP2 agentic-coding kv dram\s+64\s+ok/);
      const all = JSON.parse(readFileSync(join(out, 'results_bmk/agg_bmk.json'), 'utf8')) as unknown[];
      expect(all).toHaveLength(fixed.length);
      // Power: the simulated engines' points were measured through their fake nvidia-smi; the
      // llama.cpp points ran on a machine without a GPU monitor and say so. The disaggregated ones
      // were measured through a DCGM exporter per node and a power package: valid, unless this
      // small machine starved the collector past the 3-s gap limit (the package then says so).
      const verdicts = new Map<string, Set<string>>();
      for (const p of ran) {
        const engine = manifest.groups.find((g) => g.id === p.group)!.engine;
        const verdict = p.power?.valid ? 'valid' : (p.power?.reasons.join(',') ?? 'none');
        verdicts.set(engine, new Set([...(verdicts.get(engine) ?? []), verdict]));
      }
      const packaged = [...verdicts.get('sim (for dynamo-sglang)')!];
      verdicts.delete('sim (for dynamo-sglang)');
      expect(Object.fromEntries([...verdicts].map(([k, v]) => [k, [...v]]))).toEqual({
        'llama.cpp': ['telemetry_file_missing'],
        sim: ['valid'],
        'sim (for vllm)': ['valid'],
      });
      expect(packaged.every((v) => v === 'valid' || v === 'package_recompute_invalid')).toBe(true);
      for (const g of manifest.groups.filter((x) => x.engine === 'sim (for dynamo-sglang)'))
        expect(existsSync(join(out, g.logs!, 'power', 'manifest.json'))).toBe(true);

      // Ingested into the clone's runs/frontier.db as an official run; the dashboard answers with its points.
      expect(existsSync(join(clone.dir, 'runs', 'frontier.db'))).toBe(true);
      expect(stdout).toContain(`points: ${fixed.length} (${fixed.length} new)`);
      expect(stdout).toContain('agentic points: 5 (5 new)');
      const runs = await json<StoredRun[]>(`${url}/api/v1/runs`);
      expect(runs).toEqual([
        expect.objectContaining({ official: true, status: 'completed', points: fixed.length, agentic_points: 5 }),
      ]);
      const points = await json<{ framework: string }[]>(`${url}/api/v1/benchmarks?run=${runs[0]!.run_id}&limit=1000`);
      expect(points).toHaveLength(fixed.length);
      expect(points.filter((p) => p.framework === 'llama.cpp')).toHaveLength(3);
      expect(await json<unknown[]>(`${url}/api/v1/agentic`)).toHaveLength(5);
      const page = await fetch(`${url}/inference`);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<div id="root"></div>');
    } finally {
      interrupt(start.child);
    }
    expect(await start.exited).toBe(0);
  }, 420_000);
});
