import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraces } from '../../src/traces/index.js';
import { REPO, runCli, tempFiles } from '../helpers.js';

const SAMPLE = join(REPO, 'test/fixtures/agentic/traces/trace_replay_sample.jsonl');

describe('frontier traces', () => {
  it('synth writes a seeded corpus that stats reads, as text, JSON and an SVG', () => {
    const dir = tempFiles({});
    const out = join(dir, 'corpus/traces.jsonl');
    const synth = runCli(['traces', 'synth', '--traces', '4', '--seed', '9', '--scale', '0.05', '-o', out]);
    expect(synth.stderr).toMatch(/^wrote 4 traces \(\d+ requests, \d+ subagents\) to /);
    expect(synth.status).toBe(0);
    const again = runCli(['traces', 'synth', '--traces', '4', '--seed', '9', '--scale', '0.05', '-o', '-']);
    expect(again.stdout).toBe(readFileSync(out, 'utf8'));
    expect(parseTraces(again.stdout, 'x')).toHaveLength(4);

    const text = runCli(['traces', 'stats', out]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/: 4 traces, \d+ requests/);
    expect(text.stdout).toMatch(/^distribution +unit +count +mean +p50 +p90 +p99 +max$/m);
    expect(text.stdout).toMatch(/^prefix_reuse +share +\d+ +0\.\d{3} /m);

    const svg = join(dir, 'plot.svg');
    const json = runCli(['traces', 'stats', out, '--format', 'json', '--plot', svg]);
    expect(json.status).toBe(0);
    const stats = JSON.parse(json.stdout) as { traces: number; distributions: Record<string, { count: number }> };
    expect(stats.traces).toBe(4);
    expect(Object.keys(stats.distributions)).toContain('idle_gap_s');
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\n$/);
  });

  it('stats reads a block trace', () => {
    const result = runCli(['traces', 'stats', SAMPLE, '--format', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ traces: 2, requests: 3, input_tokens: 3212, output_tokens: 120 });
  });

  it('cap drops requests over the cap and writes Weka JSONL', () => {
    const trace = {
      id: 'c',
      requests: [
        { t: 0, type: 'n', in: 300, out: 1, hash_ids: [] },
        { t: 5, type: 'n', in: 10, out: 1, hash_ids: [], think_time: 1 },
      ],
    };
    const dir = tempFiles({ 'in.jsonl': `${JSON.stringify(trace)}\n` });
    const result = runCli(['traces', 'cap', '--max-tokens', '100', join(dir, 'in.jsonl'), join(dir, 'out.jsonl')]);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/kept 1 traces, dropped 0/);
    expect(JSON.parse(readFileSync(join(dir, 'out.jsonl'), 'utf8'))).toEqual({
      id: 'c',
      block_size: 64,
      hash_id_scope: 'local',
      requests: [{ t: 0, in: 10, out: 1, hash_ids: [], think_time: 1, type: 'n' }],
    });
  });

  it('a bad file is one error naming its line and the fix, exit 1', () => {
    const dir = tempFiles({
      'bad.jsonl': '{"input_length": 5, "output_length": 1}\n{"input_length": 5, "output_length": 1, "hash_ids": [1, "x"]}\n',
    });
    const result = runCli(['traces', 'stats', join(dir, 'bad.jsonl')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^frontier: error: .*bad\.jsonl:2: hash_ids block trace: hash_ids\[1\]: the string "x" is not a non-negative integer\n +hint: /,
    );
    expect(existsSync(join(dir, 'plot.svg'))).toBe(false);
  });

  it('a bad option value is refused', () => {
    const result = runCli(['traces', 'synth', '--traces', '0', '-o', '-']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/--traces/);
  });
});
