import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RunManifest } from '../../src/launch/index.js';
import { REPO, tempFiles } from '../helpers.js';

describe('npm start', () => {
  it('runs the example catalog’s whole matrix on this host and prints the run directory and its summary', () => {
    const out = join(tempFiles({}), 'run');
    const result = spawnSync(process.execPath, [join(REPO, 'scripts/start.mjs'), out], { cwd: REPO, encoding: 'utf8' });
    expect(result.stderr).toContain('cluster: local-sim');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`run directory: ${out}`);
    const manifest = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('completed');
    const ran = manifest.points.filter((p) => p.status !== 'skipped');
    expect(ran.every((p) => p.status === 'ok')).toBe(true);
    expect(result.stdout).toContain(`${ran.length} of ${ran.length} points ok · run completed`);
    // The llama.cpp row ran on the real llama-server, the others on the simulated engine.
    const engines = new Set(manifest.groups.filter((g) => g.status === 'done').map((g) => g.engine));
    expect([...engines].sort()).toEqual(['llama.cpp', 'sim', 'sim (for dynamo-sglang)', 'sim (for vllm)']);
    expect(result.stdout).toMatch(/qwen3-0\.6b q8 llama\.cpp TP1 256\/64\s+4\s+ok/);
    expect(result.stdout).toMatch(/dsr1 fp8 dynamo-sglang 1P1D TP8\/TP8 1024\/64\s+32\s+ok/);
    const all = JSON.parse(readFileSync(join(out, 'results_bmk/agg_bmk.json'), 'utf8')) as unknown[];
    expect(all).toHaveLength(ran.length);
  }, 300_000);
});
