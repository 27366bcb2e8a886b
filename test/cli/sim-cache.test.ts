import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Start a `frontier sim` server and wait for the URL it prints. */
function start(args: string[]): Promise<{ child: ChildProcess; url: string; banner: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, banner: out });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

describe('frontier sim serve: prefix caching and the DRAM tier flags', () => {
  it('--kv-offload-dram-gb and --enable-prompt-tokens-details: vLLM’s KV-size line, cached_tokens, connector metrics', async () => {
    const { url, banner } = await start([
      'sim',
      'serve',
      '--port',
      '0',
      '--speed',
      '50',
      '--workers',
      '2',
      '--kv-offload-dram-gb',
      '100',
      '--host-link-bandwidth',
      '25',
      '--enable-prompt-tokens-details',
    ]);
    // One line per engine, as vLLM logs it, so InferenceX's log parser sums the pool's capacity.
    expect(banner.match(/ {2}GPU KV cache size: [\d,]+ tokens\n/g)).toHaveLength(2);
    const ask = async (): Promise<number> => {
      const res = await fetch(`${url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'the cat sat on the mat '.repeat(40), max_tokens: 2, ignore_eos: true }),
      });
      return ((await res.json()) as { usage: { prompt_tokens_details: { cached_tokens: number } } }).usage.prompt_tokens_details
        .cached_tokens;
    };
    expect(await ask()).toBe(0);
    // Whichever worker takes them, one of the next two lands where a copy is cached.
    expect(Math.max(await ask(), await ask())).toBeGreaterThan(0);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('# TYPE vllm:external_prefix_cache_hits_total counter');
    expect(metrics).toMatch(/num_cpu_blocks="[1-9]\d*"/);
  });

  it('refuses a DRAM tier without prefix caching, and a negative size, saying why', () => {
    expect(runCli(['sim', 'serve', '--no-enable-prefix-caching', '--kv-offload-dram-gb', '10']).stderr).toMatch(
      /a KV offload DRAM tier holds prefix-cache blocks: it needs prefix caching on/,
    );
    expect(runCli(['sim', 'serve', '--kv-offload-dram-gb', '-1']).status).toBe(1);
  });

  it('the router takes --no-session-affinity and --session-ttl', async () => {
    const { banner } = await start([
      'sim',
      'router',
      '--port',
      '0',
      '--prefill',
      'http://127.0.0.1:9',
      '--decode',
      'http://127.0.0.1:9',
      '--no-session-affinity',
      '--session-ttl',
      '60',
    ]);
    expect(banner).toContain('frontier sim router listening on');
  });
});
