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
import { loadLlamaServerScript } from '../support/llama-server.js';
import { groupAlive, signalGroup } from '../support/process-group.js';
import { waitFor } from '../support/wait.js';
import { chartOf, launchChromium } from '../support/browser.js';
import { REPO } from '../helpers.js';

const SHOTS = join(REPO, 'test-results/screenshots');
import type { FreshClone } from '../support/fresh-clone.js';

/** `npm start` in `dir`, exactly as the README gives it, with only the dashboard's port chosen. */
function npmStart(dir: string, env: Record<string, string> = {}, args: string[] = []) {
  const child = spawn('npm', ['start', ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd: dir,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: the test stops npm and everything it started, as Ctrl-C does
  });
  started.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
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
      void exited.then((how) => reject(new Error(`npm start ended (${how}) before ${re}:\n${output.stdout}\n${output.stderr}`)));
    });
  return { child, output, exited, waitFor };
}

/**
 * After Ctrl-C: npm ends as npm does on SIGINT (it passes the signal on and ends by it), and
 * nothing npm start started is left running: its process group is empty.
 */
async function expectStopped(start: ReturnType<typeof npmStart>): Promise<void> {
  expect(['exit 0', 'SIGINT']).toContain(await start.exited);
  await expect.poll(() => groupAlive(start.child.pid!), { timeout: 15_000 }).toBe(false);
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
  deferred_points: number;
  deferred_reason: string;
}

/** The clone's one run directory, runs/<date>-<time>. */
function runDir(dir: string): string {
  const stamps = readdirSync(join(dir, 'runs')).filter((f) => /^\d{8}-\d{6}$/.test(f));
  expect(stamps).toHaveLength(1);
  return join(dir, 'runs', stamps[0]!);
}

/** The sweep's run among the stored ones (npm start adds a run of repeated rows later, without agentic points). */
const sweepRuns = (runs: StoredRun[]): StoredRun[] => runs.filter((r) => r.agentic_points > 0);

const manifestOf = (out: string) => JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;

let clone: FreshClone | undefined;
/** Every `npm start` begun: a test that times out never reaches its `finally`, so they are stopped here too. */
const started: ChildProcess[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) {
    signalGroup(child, 'SIGINT');
    await waitFor(() => !groupAlive(child.pid!), { what: `npm start's group ${child.pid} to end`, timeoutMs: 15_000 }).catch(() =>
      signalGroup(child, 'SIGKILL'),
    );
  }
  clone?.remove();
  clone = undefined;
}, 30_000);

describe('npm start, as the README says, on a fresh clone', () => {
  it('runs the example catalog’s whole matrix, prints its summary, then serves the dashboard with its points', async () => {
    clone = await freshClone();
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
      const engines = new Set(manifest.launches.filter((g) => g.status === 'done').map((g) => g.engine));
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
        const engine = manifest.launches.find((g) => g.id === p.launch)!.engine;
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
      for (const g of manifest.launches.filter((x) => x.engine === 'sim (for dynamo-sglang)'))
        expect(existsSync(join(out, g.logs!, 'power', 'manifest.json'))).toBe(true);

      // Ingested into the clone's runs/frontier.db as an official run; the dashboard answers with its points.
      expect(existsSync(join(clone.dir, 'runs', 'frontier.db'))).toBe(true);
      expect(stdout).toContain(`points: ${fixed.length} (${fixed.length} new)`);
      expect(stdout).toContain('agentic points: 5 (5 new)');
      const runs = sweepRuns(await json<StoredRun[]>(`${url}/api/v1/runs`));
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

      // Then a few rows again, three fresh launches each, as a later official run: points with intervals.
      await start.waitFor(/the repeated points are in: reload the dashboard for their error bars/);
      const repeated = manifestOf(`${out}-repeats`);
      expect(repeated.status).toBe('completed');
      expect(new Set(repeated.points.map((p) => p.repeat))).toEqual(new Set([1, 2, 3]));
      const latest = await json<{ conc: number; n: number; stats: Record<string, { ci95: number[] | null }> }[]>(
        `${url}/api/v1/benchmarks?model=llama3.1-8b&isl=1024&osl=64&framework=sim`,
      );
      // conc 1–8 measured three times, with intervals; the rest of the curve once, without.
      expect(latest.map((p) => [p.conc, p.n])).toEqual([1, 2, 4, 8, 16, 32, 64].map((c) => [c, c <= 8 ? 3 : 1]));
      for (const p of latest)
        expect(p.stats.tput_per_gpu?.ci95 ?? null).toEqual(p.n === 3 ? [expect.any(Number), expect.any(Number)] : null);
      // The dashboard draws them with error bars, in Chromium.
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(`${url}/inference?model=llama3.1-8b&seq=1024x64`);
        await expect.poll(async () => (await chartOf(page, 'inference-chart'))('error-bars')).toBeGreaterThan(0);
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: join(SHOTS, 'npm-start-error-bars.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    } finally {
      signalGroup(start.child, 'SIGINT');
    }
    await expectStopped(start);
  }, 480_000);

  it('on a machine without llama-server yet: the simulated rows first, then the llama.cpp row joins the same run', async () => {
    clone = await freshClone();
    const script = await loadLlamaServerScript();
    const built = await script.ensureLlamaServer();
    // A cache of its own, where "another process" (this test) holds the build lock: npm start
    // builds in the background, which here waits for that build, as a second clone would wait
    // for the first one's. The test then finishes the build as the build does (the binary last).
    const cache = mkdtempSync(join(tmpdir(), 'frontier-cache-'));
    const llama = join(cache, 'frontier', 'llama.cpp', `node-llama-cpp-${script.NODE_LLAMA_CPP_VERSION}`);
    mkdirSync(llama, { recursive: true });
    writeFileSync(join(llama, '.lock'), `${process.pid} ${new Date().toISOString()}\n`);
    const start = npmStart(clone.dir, { XDG_CACHE_HOME: cache });
    try {
      const url = (await start.waitFor(/dashboard: (http:\/\/127\.0\.0\.1:\d+)\/inference/))[1]!;
      expect(start.output.stderr).toContain('llama-server is not built on this machine yet: building it in the background');
      const out = runDir(clone.dir);
      const first = manifestOf(out);
      expect(first.status).toBe('partial');
      expect(first.points.filter((p) => p.status === 'deferred').map((p) => p.conc)).toEqual([1, 2, 4]);
      expect(first.points.filter((p) => p.status !== 'deferred').every((p) => p.status === 'ok')).toBe(true);
      expect(first.launches.find((g) => g.status === 'deferred')?.label).toBe('qwen3-0.6b q8 llama.cpp TP1 256/64');
      expect(start.output.stdout).toMatch(/qwen3-0\.6b q8 llama\.cpp TP1 256\/64\s+1\s+deferred\s+llama-server is building/);
      expect(start.output.stdout).toContain('31 of 31 points ok · 3 deferred · run partial');

      // The dashboard has the simulated points, and says the run is partial and why.
      const [partial] = sweepRuns(await json<StoredRun[]>(`${url}/api/v1/runs`));
      expect(partial).toMatchObject({ status: 'partial', points: 26, agentic_points: 5, deferred_points: 3 });
      expect(partial!.deferred_reason).toContain('llama-server is building');
      const simulated = await json<{ framework: string }[]>(`${url}/api/v1/benchmarks?run=${partial!.run_id}&limit=1000`);
      expect(simulated).toHaveLength(26);
      expect(simulated.some((p) => p.framework === 'llama.cpp')).toBe(false);

      // The build is done: the llama.cpp row runs in the same run directory, and the same run in the store gets its points.
      copyFileSync(script.GPT2_VOCAB, join(llama, 'ggml-vocab-gpt-2.gguf'));
      copyFileSync(built, join(llama, 'llama-server.tmp'));
      renameSync(join(llama, 'llama-server.tmp'), join(llama, 'llama-server'));
      rmSync(join(llama, '.lock'));
      await start.waitFor(/the llama\.cpp points are in: reload the dashboard/);
      const done = manifestOf(out);
      expect(done.status).toBe('completed');
      expect(done.points.every((p) => p.status === 'ok')).toBe(true);
      expect(done.started).toBe(first.started);
      const [run] = sweepRuns(await json<StoredRun[]>(`${url}/api/v1/runs`));
      expect(run).toMatchObject({
        run_id: partial!.run_id,
        status: 'completed',
        points: 29,
        deferred_points: 0,
        deferred_reason: '',
      });
      const points = await json<{ framework: string }[]>(`${url}/api/v1/benchmarks?run=${run!.run_id}&limit=1000`);
      expect(points.filter((p) => p.framework === 'llama.cpp')).toHaveLength(3);
    } finally {
      signalGroup(start.child, 'SIGINT');
      rmSync(cache, { recursive: true, force: true });
    }
    await expectStopped(start);
  }, 600_000);

  it('where llama-server cannot be built: the run stays partial, and the run and the dashboard say why (the llama.cpp row alone: npm start -- --filter)', async () => {
    clone = await freshClone();
    // A toolchain whose cmake fails (a stand-in on PATH), and a cache that has no build yet.
    const bin = mkdtempSync(join(tmpdir(), 'frontier-broken-cmake-'));
    writeFileSync(join(bin, 'cmake'), '#!/bin/sh\necho "cmake: this toolchain is broken" >&2\nexit 1\n', { mode: 0o755 });
    const cache = mkdtempSync(join(tmpdir(), 'frontier-cache-'));
    const env = { XDG_CACHE_HOME: cache, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const start = npmStart(clone.dir, env, ['--filter', 'framework=llama.cpp']);
    try {
      const url = (await start.waitFor(/dashboard: (http:\/\/127\.0\.0\.1:\d+)\/inference/))[1]!;
      const runs = () => json<StoredRun[]>(`${url}/api/v1/runs`);
      await expect.poll(async () => (await runs())[0]?.deferred_reason, { timeout: 60_000 }).toMatch(/could not be built/);
      // The one row asked for, deferred; no other row ran, and no repeated rows follow (npm start
      // goes on to them at once after this ingest, when it does).
      const [run, ...others] = await runs();
      expect(others).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(start.output.stderr).not.toContain('three more times');
      expect(run).toMatchObject({ status: 'partial', points: 0, agentic_points: 0, deferred_points: 3 });
      expect(run!.deferred_reason).toBe(
        'llama-server could not be built: cmake: this toolchain is broken (see runs/llama-server-build.log)',
      );
      expect(readFileSync(join(clone.dir, 'runs/llama-server-build.log'), 'utf8')).toContain('cmake: this toolchain is broken');
      const manifest = manifestOf(runDir(clone.dir));
      expect(manifest.status).toBe('partial');
      expect(manifest.launches.find((g) => g.status === 'deferred')?.reason).toBe(run!.deferred_reason);
      expect(start.output.stdout).not.toContain('the llama.cpp points are in');
    } finally {
      signalGroup(start.child, 'SIGINT');
      rmSync(cache, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
    await expectStopped(start);
  }, 600_000);
});
