import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Start `frontier sim serve` and wait for the URL it prints. */
const serve = (args: string[]): Promise<{ child: ChildProcess; url: string; banner: string }> =>
  start(['sim', 'serve', '--port', '0', ...args]);

/** Start a `frontier sim` server (serve or router) and wait for the URL it prints: the same pattern finds either's. */
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

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.on('exit', (code) => resolve(code)));

describe('frontier sim serve', () => {
  it('starts a default deployment on 127.0.0.1 and stops cleanly on SIGTERM', async () => {
    const { child, url, banner } = await serve(['--speed', '100']);
    expect(banner).toContain('frontier sim: Llama 3.1 8B Instruct fp8 on NVIDIA H100 SXM5 80GB: TP1');
    expect(banner).toMatch(/weights 8\.0 GB\/GPU, KV cache \d+\.\d GB\/GPU/);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
    const res = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'meta-llama/Llama-3.1-8B-Instruct', prompt: 'Hello', max_tokens: 5, ignore_eos: true }),
    });
    expect(((await res.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(5);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('serves a disaggregated DeepSeek-R1 deployment under the name asked for', async () => {
    const { child, url, banner } = await serve([
      '--model',
      'deepseek-r1',
      '--hardware',
      'b200',
      '--precision',
      'fp4',
      '--tp',
      '8',
      '--ep',
      '8',
      '--prefill-workers',
      '2',
      '--decode-workers',
      '1',
      '--decode-dp-attn',
      '--served-model-name',
      'dsr1',
      '--speed',
      '50',
    ]);
    expect(banner).toContain('DeepSeek-R1 fp4 on NVIDIA B200 (HGX B200): 2P1D TEP8/DEP8');
    expect(banner).toMatch(/prefill 2 × 8 GPUs: weights .* GB\/GPU/);
    expect(((await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] }).data[0]!.id).toBe('dsr1');
    const res = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'dsr1', prompt: 'Hi', max_tokens: 3, ignore_eos: true }),
    });
    expect(res.status).toBe(200);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('--fault-crash-after exits with status 1, dropping connections', async () => {
    const { child, url } = await serve(['--fault-crash-after', '1', '--speed', '1']);
    await fetch(`${url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'Hi', max_tokens: 1000, ignore_eos: true }),
    }).catch(() => undefined);
    expect(await exited(child)).toBe(1);
  });

  it('refuses deployments that cannot exist, saying why', () => {
    expect(runCli(['sim', 'serve', '--precision', 'fp4'])).toMatchObject({
      status: 1,
      stderr: 'frontier: error: h100 has no fp4 tensor cores; choose another precision or hardware\n',
    });
    expect(runCli(['sim', 'serve', '--model', 'deepseek-r1']).stderr).toMatch(
      /needs \d+\.\d GB of weights per GPU with tp 1: it does not fit on h100/,
    );
    expect(runCli(['sim', 'serve', '--ep', '2', '--tp', '2']).stderr).toMatch(
      /is dense: expert parallelism \(ep 2\) needs a MoE model/,
    );
    expect(runCli(['sim', 'serve', '--prefill-workers', '1']).stderr).toMatch(
      /needs both --prefill-workers and --decode-workers/,
    );
    expect(runCli(['sim', 'serve', '--efficiency', 'speed=3']).stderr).toMatch(
      /--efficiency speed=3: expected <key>=<number> with key one of compute, memory/,
    );
    expect(runCli(['sim', 'serve', '--spec-draft-tokens', '2', '--spec-acceptance', '3.39']).stderr).toMatch(
      /speculative acceptance length 3\.39 must be between 1 and draft tokens \+ 1 \(3\): 2 draft tokens accept at most 3 tokens per step; lower it or raise the draft tokens/,
    );
  });
});

describe('frontier sim serve --role and frontier sim router: a disaggregated deployment as separate processes', () => {
  it('a prefill server, a decode server and the router in front of them; each stops cleanly', async () => {
    const prefill = await serve(['--role', 'prefill', '--speed', '20']);
    expect(prefill.banner).toContain('frontier sim: Llama 3.1 8B Instruct fp8 on NVIDIA H100 SXM5 80GB: TP1, prefill role');
    const decode = await serve(['--role', 'decode', '--speed', '20']);
    expect(decode.banner).toContain(': TP1, decode role');
    const router = await start(['sim', 'router', '--port', '0', '--prefill', prefill.url, '--decode', decode.url]);
    expect(router.banner.split('\n')).toEqual([
      `frontier sim router listening on ${router.url}`,
      `  prefill: ${prefill.url}`,
      `  decode: ${decode.url}`,
      '',
    ]);
    expect(await (await fetch(`${router.url}/health`)).json()).toEqual({ status: 'ok' });
    const res = await fetch(`${router.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({
        prompt: 'Hello there',
        max_tokens: 7,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)!.slice(6))).toMatchObject({ usage: { completion_tokens: 7 } });
    expect(await (await fetch(`${decode.url}/metrics`)).text()).toMatch(/vllm:prompt_tokens_total\{[^}]*\} 0\n/);
    router.child.kill('SIGTERM');
    expect(await exited(router.child)).toBe(0);
    prefill.child.kill('SIGTERM');
    decode.child.kill('SIGINT');
    expect(await exited(prefill.child)).toBe(0);
    expect(await exited(decode.child)).toBe(0);
  });

  it('refuses what it cannot do, saying why', () => {
    expect(runCli(['sim', 'serve', '--role', 'decode', '--prefill-workers', '1', '--decode-workers', '1'])).toMatchObject({
      status: 1,
      stderr:
        'frontier: error: --role decode serves one pool of a disaggregated deployment: size it with --workers, not --prefill-workers/--decode-workers\n',
    });
    expect(runCli(['sim', 'serve', '--role', 'router']).stderr).toMatch(/--role.*Allowed choices are prefill, decode, both/);
    expect(runCli(['sim', 'router', '--prefill', 'http://127.0.0.1:1']).stderr).toBe(
      'frontier: error: the router needs at least one --prefill URL and one --decode URL\n',
    );
    expect(runCli(['sim', 'router', '--prefill', 'nope', '--decode', 'http://127.0.0.1:1']).stderr).toBe(
      'frontier: error: prefill backend nope: not a URL (expected http://host:port)\n',
    );
  });
});

describe('frontier sim estimate', () => {
  it('prints throughput per GPU and interactivity per concurrency', () => {
    const result = runCli([
      'sim',
      'estimate',
      '--model',
      'deepseek-r1',
      '--hardware',
      'h200',
      '--tp',
      '8',
      '--isl',
      '8192',
      '--osl',
      '1024',
      '--conc',
      '1,64',
    ]);
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('DeepSeek-R1 fp8 on NVIDIA H200 SXM 141GB: TP8 (vllm), ISL 8192 / OSL 1024 (lengths in [0.8 L, L])');
    expect(lines[1]).toBe('  1 × 8 GPUs: weights 83.9 GB/GPU, KV cache 41.0 GB/GPU');
    expect(lines[3]).toBe('  conc  tok/s/GPU  tok/s/user  TTFT ms  TPOT ms  preemptions');
    const [c1, c64] = lines.slice(4).map((l) => l.trim().split(/\s+/).map(Number));
    expect(c1![0]).toBe(1);
    expect(c64![1]).toBeGreaterThan(c1![1]!); // throughput per GPU rises
    expect(c64![2]).toBeLessThan(c1![2]!); // interactivity falls
  });

  it('--format json', () => {
    const json = JSON.parse(runCli(['sim', 'estimate', '--conc', '4', '--format', 'json']).stdout) as {
      points: { conc: number; gpus: number }[];
    };
    expect(json.points).toMatchObject([{ conc: 4, gpus: 1 }]);
  });
});
