import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunManifest } from '../../src/launch/index.js';
import { REPO, tempFiles } from '../helpers.js';

describe('npm start', () => {
  it('runs the example catalog’s whole matrix on this host, prints its summary, then serves the dashboard over it', async () => {
    const dir = tempFiles({});
    const out = join(dir, 'run');
    const db = join(dir, 'frontier.db');
    const child = spawn(process.execPath, [join(REPO, 'scripts/start.mjs'), out], {
      cwd: REPO,
      env: { ...process.env, PORT: '0', FRONTIER_DB: db },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // The run, then the ingest, then the dashboard's address.
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /dashboard: (http:\/\/127\.0\.0\.1:\d+)\/inference/.exec(stdout);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`npm start exited ${code} before serving:\n${stdout}\n${stderr}`)));
      });
      expect(stderr).toContain('cluster: local-sim');
      expect(stdout).toContain(`run directory: ${out}`);
      const manifest = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;
      expect(manifest.status).toBe('completed');
      const ran = manifest.points.filter((p) => p.status !== 'skipped');
      expect(ran.every((p) => p.status === 'ok')).toBe(true);
      expect(stdout).toContain(`${ran.length} of ${ran.length} points ok · run completed`);
      // The llama.cpp row ran on the real llama-server, the others on the simulated engine.
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

      // Ingested as an official run, and the dashboard is up.
      expect(stdout).toContain(`points: ${fixed.length} (${fixed.length} new)`);
      expect(stdout).toContain('agentic points: 5 (5 new)');
      const runs = (await (await fetch(`${url}/api/v1/runs`)).json()) as { official: boolean; points: number }[];
      expect(runs).toEqual([expect.objectContaining({ official: true, points: fixed.length })]);
      expect((await (await fetch(`${url}/api/v1/agentic`)).json()) as unknown[]).toHaveLength(5);
      const page = await fetch(`${url}/inference`);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<div id="root"></div>');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 300_000);
});
