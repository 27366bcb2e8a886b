import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_FAULTS, buildTopology, encode, renderChat, startSimRouter, startSimServer } from '../../src/sim/index.js';
import type {
  DeploymentOptions,
  FaultOptions,
  KvTransferParams,
  SimRouter,
  SimServer,
  SimServerOptions,
} from '../../src/sim/index.js';
import { tempFiles } from '../helpers.js';
import { readSse } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const DEPLOYMENT: DeploymentOptions = { model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' };

async function serve(
  options: Partial<Omit<SimServerOptions, 'faults'>> & { faults?: Partial<FaultOptions> } = {},
): Promise<SimServer> {
  const server = await startSimServer({
    topology: buildTopology(DEPLOYMENT),
    servedModelName: MODEL,
    maxModelLen: 16384,
    speed: 20,
    seed: 1,
    naturalOutputTokens: 32,
    host: '127.0.0.1',
    port: 0,
    ...options,
    faults: { ...NO_FAULTS, ...options.faults },
  });
  open.push(server);
  return server;
}

async function route(prefill: string[], decode: string[]): Promise<SimRouter> {
  const router = await startSimRouter({ prefill, decode, host: '127.0.0.1', port: 0, healthTimeoutMs: 500 });
  open.push(router);
  return router;
}

/** A prefill server, a decode server and the router in front of them. */
async function deployment(
  options: Partial<Omit<SimServerOptions, 'faults'>> & { faults?: Partial<FaultOptions> } = {},
  files?: { prefill: string; decode: string },
): Promise<{ prefill: SimServer; decode: SimServer; router: SimRouter }> {
  const prefill = await serve({ ...options, role: 'prefill', groundTruthFile: files?.prefill });
  const decode = await serve({ ...options, role: 'decode', groundTruthFile: files?.decode });
  return { prefill, decode, router: await route([prefill.url], [decode.url]) };
}

const post = (url: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

type Chunk = {
  id: string;
  object: string;
  choices: { text?: string; delta?: { content?: string; role?: string }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
};

interface Stream {
  status: number;
  events: Chunk[];
  done: boolean;
  /** From sending the request to the first chunk with text (ms). */
  ttft: number;
}

async function stream(url: string, path: string, body: Record<string, unknown>): Promise<Stream> {
  const sent = performance.now();
  const res = await post(url, path, { ...body, stream: true, stream_options: { include_usage: true } });
  const out: Stream = { status: res.status, events: [], done: false, ttft: NaN };
  await readSse(res.body!, ({ data, at }) => {
    if (data === '[DONE]') {
      out.done = true;
      return;
    }
    const event = JSON.parse(data) as Chunk;
    if (Number.isNaN(out.ttft) && (event.choices[0]?.text || event.choices[0]?.delta?.content)) out.ttft = at - sent;
    out.events.push(event);
  });
  return out;
}

const tokenChunks = (s: Stream): Chunk[] =>
  s.events.filter(
    (e) =>
      e.choices.length > 0 &&
      (e.choices[0]!.text !== undefined || e.choices[0]!.delta?.content !== undefined) &&
      !e.choices[0]!.delta?.role,
  );

const truthOf = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('prefill and decode roles (vLLM NIXL kv_transfer_params)', () => {
  it('a prefill server returns kv_transfer_params only when asked for a remote decode', async () => {
    const prefill = await serve({ role: 'prefill' });
    const prompt = 'word '.repeat(100);
    const asked = (await (
      await post(prefill.url, '/v1/completions', {
        model: MODEL,
        prompt,
        max_tokens: 1,
        kv_transfer_params: { do_remote_decode: true },
      })
    ).json()) as { id: string; usage: { completion_tokens: number }; kv_transfer_params: KvTransferParams };
    expect(asked.usage.completion_tokens).toBe(1);
    expect(asked.kv_transfer_params).toEqual({
      do_remote_prefill: true,
      do_remote_decode: false,
      remote_block_ids: Array.from({ length: Math.ceil(encode(prompt).length / 16) }, (_, i) => i),
      remote_engine_id: prefill.engineId,
      remote_request_id: asked.id,
      remote_num_tokens: encode(prompt).length,
      remote_host: '127.0.0.1',
      remote_port: prefill.port,
      tp_size: 1,
    });
    // An ordinary request is answered as ever.
    const plain = (await (
      await post(prefill.url, '/v1/completions', { model: MODEL, prompt, max_tokens: 5, ignore_eos: true })
    ).json()) as Record<string, unknown>;
    expect(plain).not.toHaveProperty('kv_transfer_params');
    expect(plain.usage).toMatchObject({ completion_tokens: 5 });
    // A server of the default role ignores kv_transfer_params.
    const both = await serve();
    const ignored = (await (
      await post(both.url, '/v1/completions', {
        model: MODEL,
        prompt,
        max_tokens: 1,
        kv_transfer_params: { do_remote_decode: true },
      })
    ).json()) as Record<string, unknown>;
    expect(ignored).not.toHaveProperty('kv_transfer_params');
    expect((await post(prefill.url, '/v1/completions', { model: MODEL, prompt, kv_transfer_params: 3 })).status).toBe(400);
  });

  it('a decode server prefills a request without kv_transfer_params itself', async () => {
    const decode = await serve({ role: 'decode' });
    const prompt = 'word '.repeat(50);
    const s = await stream(decode.url, '/v1/completions', { model: MODEL, prompt, max_tokens: 4, ignore_eos: true });
    expect(tokenChunks(s)).toHaveLength(4);
    expect(decode.cluster.stats().promptTokens).toBe(encode(prompt).length);
  });
});

describe('frontier sim router: prefill and decode servers as separate servers', () => {
  it('streams completions and chat with the exact max_tokens and usage; the decode server admits them prefilled', async () => {
    const dir = tempFiles({});
    const files = { prefill: join(dir, 'prefill.jsonl'), decode: join(dir, 'decode.jsonl') };
    const { prefill, decode, router } = await deployment({}, files);
    const prompt = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
    const s = await stream(router.url, '/v1/completions', { model: MODEL, prompt, max_tokens: 37, ignore_eos: true });
    expect(s.status).toBe(200);
    expect(s.done).toBe(true);
    expect(tokenChunks(s)).toHaveLength(37);
    expect(tokenChunks(s).at(-1)!.choices[0]!.finish_reason).toBe('length');
    const promptTokens = encode(prompt).length;
    expect(s.events.at(-1)!.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: 37,
      total_tokens: promptTokens + 37,
    });

    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a colour.' },
    ];
    const chat = await stream(router.url, '/v1/chat/completions', {
      model: MODEL,
      messages,
      max_completion_tokens: 9,
      ignore_eos: true,
    });
    expect(chat.events[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(tokenChunks(chat)).toHaveLength(9);
    expect(chat.events.at(-1)!.usage).toMatchObject({ prompt_tokens: encode(renderChat(messages)).length, completion_tokens: 9 });

    const plain = (await (
      await post(router.url, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 6, ignore_eos: true })
    ).json()) as { usage: { completion_tokens: number } };
    expect(plain.usage.completion_tokens).toBe(6);

    // The decode server computed no prompt token; the prefill server computed every one.
    expect(decode.cluster.stats()).toMatchObject({ promptTokens: 0, generatedTokens: 37 + 9 + 6 });
    expect(prefill.cluster.stats().generatedTokens).toBe(3);
    const decodeMetrics = await (await fetch(`${decode.url}/metrics`)).text();
    expect(decodeMetrics).toContain(`vllm:prompt_tokens_total{model_name="${MODEL}"} 0`);
    expect(decodeMetrics).toContain(`vllm:generation_tokens_total{model_name="${MODEL}"} 52`);

    await Promise.all(open.splice(0).map((x) => x.close()));
    const [pTruth, dTruth] = [truthOf(files.prefill), truthOf(files.decode)];
    expect(pTruth).toHaveLength(3);
    expect(dTruth).toHaveLength(3);
    for (const t of pTruth)
      expect(t).toMatchObject({
        role: 'prefill',
        status: 'ok',
        completion_tokens: 1,
        remote_decode: true,
        remote_prefill: false,
      });
    expect(dTruth.map((t) => t.completion_tokens)).toEqual([37, 9, 6]);
    dTruth.forEach((t, i) => {
      expect(t).toMatchObject({ role: 'decode', status: 'ok', remote_prefill: true, remote_request_id: pTruth[i]!.id });
      expect(t.kv_transfer_ms).toBeGreaterThan(0);
      // The first token comes once the KV cache has landed.
      expect((t.simulated_times as number[])[0]! - (t.arrival as number)).toBeGreaterThanOrEqual(
        (t.kv_transfer_ms as number) - 0.01,
      );
    });
    expect(dTruth[0]!.id).toBe(tokenChunks(s)[0]!.id); // the client sees the decode server's response
  });

  it('TTFT is above the KV transfer and close to the one-process 1P1D deployment (speed 1)', async () => {
    const dir = tempFiles({});
    const files = { prefill: join(dir, 'prefill.jsonl'), decode: join(dir, 'decode.jsonl') };
    const { router } = await deployment({ speed: 1 }, files);
    const oneProcess = await serve({
      speed: 1,
      topology: buildTopology({ ...DEPLOYMENT, prefillWorkers: 1, decodeWorkers: 1 }),
    });
    // Each prompt starts differently: a repeated one would be a prefix-cache hit, not a prefill.
    let n = 0;
    const body = (): Record<string, unknown> => ({
      model: MODEL,
      prompt: `${n++}:${'word '.repeat(4000)}`,
      max_tokens: 4,
      ignore_eos: true,
    });
    const ttfts = async (url: string): Promise<number[]> => {
      await stream(url, '/v1/completions', body()); // warm-up
      const out: number[] = [];
      for (let i = 0; i < 5; i++) out.push((await stream(url, '/v1/completions', body())).ttft);
      return out;
    };
    const viaRouter = median(await ttfts(router.url));
    const inProcess = median(await ttfts(oneProcess.url));
    await Promise.all(open.splice(0).map((x) => x.close()));
    const transfer = truthOf(files.decode).at(-1)!.kv_transfer_ms as number;
    console.log(
      `TTFT, ISL 4000, speed 1: router ${viaRouter.toFixed(1)} ms, one-process 1P1D ${inProcess.toFixed(1)} ms, KV transfer ${transfer.toFixed(2)} ms`,
    );
    expect(viaRouter).toBeGreaterThan(transfer);
    expect(viaRouter).toBeGreaterThan(inProcess * 0.8);
    expect(viaRouter).toBeLessThan(inProcess * 2);
  });

  it('/health is 503 until every backend is up, naming the ones that are not', async () => {
    const prefill = await serve({ role: 'prefill' });
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const router = await route([prefill.url], [`http://127.0.0.1:${port}`]);
    const down = await fetch(`${router.url}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      status: 'not ready',
      not_ready: [{ role: 'decode', url: `http://127.0.0.1:${port}`, error: expect.stringMatching(/ECONNREFUSED/) as string }],
    });
    const started = performance.now();
    const decode = await serve({ role: 'decode', port, faults: { slowStartMs: 200 } });
    const loading = await fetch(`${router.url}/health`);
    expect(loading.status).toBe(503);
    expect(await loading.json()).toMatchObject({ not_ready: [{ role: 'decode', status: 503 }] });
    await waitFor(
      async () => {
        const res = await fetch(`${router.url}/health`);
        await res.arrayBuffer();
        return res.status === 200;
      },
      {
        what: 'the router’s /health to answer 200 once the decode server has loaded',
      },
    );
    // Not before the decode server's 200 ms load.
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(decode.port).toBe(port);
  });

  it('a backend error reaches the client with its status, naming the backend', async () => {
    const good = await serve({ role: 'prefill' });
    const failingPrefill = await serve({ role: 'prefill', faults: { errorRate: 1, errorStatuses: [503] } });
    const failingDecode = await serve({ role: 'decode', faults: { errorRate: 1, errorStatuses: [429] } });
    const decode = await serve({ role: 'decode' });
    const body = { model: MODEL, prompt: 'Hi', max_tokens: 3, ignore_eos: true, stream: true };

    const a = await post((await route([failingPrefill.url], [decode.url])).url, '/v1/completions', body);
    expect(a.status).toBe(503);
    expect(await a.json()).toMatchObject({
      object: 'error',
      code: 503,
      backend: failingPrefill.url,
      message: `prefill backend ${failingPrefill.url} answered HTTP 503: injected fault: HTTP 503`,
    });
    const router = await route([good.url], [failingDecode.url]);
    const b = await post(router.url, '/v1/completions', body);
    expect(b.status).toBe(429);
    expect(((await b.json()) as { message: string }).message).toBe(
      `decode backend ${failingDecode.url} answered HTTP 429: injected fault: HTTP 429`,
    );
    const metrics = await (await fetch(`${router.url}/metrics`)).text();
    expect(metrics).toContain('frontier_router_requests_failed_total 1');
    expect(metrics).toContain(`frontier_router_backend_errors_total{role="decode",backend="${failingDecode.url}"} 1`);

    // A backend that is not there: 502. A request the backends refuse: their 400.
    await good.close();
    const c = await post(router.url, '/v1/completions', body);
    expect(c.status).toBe(502);
    expect(((await c.json()) as { message: string }).message).toMatch(
      new RegExp(`^prefill backend ${good.url} failed: .*ECONNREFUSED`),
    );
    const bad = await post((await route([decode.url], [decode.url])).url, '/v1/completions', { ...body, max_tokens: 99999 });
    expect(bad.status).toBe(400);
    expect((await fetch(`${router.url}/v1/nothing`)).status).toBe(404);
    expect((await fetch(`${router.url}/v1/completions`, { method: 'POST', body: '{nope' })).status).toBe(400);
  });

  it('a client that goes away cancels the decode request', async () => {
    const { decode, router } = await deployment({ speed: 1 });
    const controller = new AbortController();
    const res = await post(
      router.url,
      '/v1/completions',
      { model: MODEL, prompt: 'Hi', max_tokens: 5000, ignore_eos: true, stream: true },
      controller.signal,
    );
    const reader = res.body!.getReader();
    await reader.read();
    expect(decode.cluster.inFlight).toBe(1);
    controller.abort();
    // Freed at once, or at the end of the step that holds it.
    await waitFor(
      () => decode.cluster.inFlight === 0 && decode.cluster.instances[0]!.kvUsedBytes === 0 && router.stats().inFlight === 0,
      {
        what: () =>
          `the cancelled request to be freed (decode: ${decode.cluster.inFlight} in flight, ${decode.cluster.instances[0]!.kvUsedBytes} KV bytes; router: ${router.stats().inFlight} in flight)`,
      },
    );
    expect(router.stats()).toMatchObject({ cancelled: 1, failed: 0, inFlight: 0 });
    expect(router.stats().backends.map((b) => [b.role, b.inFlight, b.errors])).toEqual([
      ['prefill', 0, 0],
      ['decode', 0, 0],
    ]);
  });

  it('forwards /v1/models and /tokenize to a decode server; /metrics has the router’s counters', async () => {
    const { prefill, decode, router } = await deployment();
    const models = (await (await fetch(`${router.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]!.id).toBe(MODEL);
    const tokens = (await (await post(router.url, '/tokenize', { prompt: 'Hello world' })).json()) as { tokens: number[] };
    expect(tokens.tokens).toEqual([15496, 995]);
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        stream(router.url, '/v1/completions', { model: MODEL, prompt: `request ${i}`, max_tokens: 5, ignore_eos: true }),
      ),
    );
    const metrics = await (await fetch(`${router.url}/metrics`)).text();
    expect(metrics).toContain('# TYPE frontier_router_requests_total counter');
    expect(metrics).toContain('frontier_router_requests_total 4');
    expect(metrics).toContain(`frontier_router_backend_requests_total{role="prefill",backend="${prefill.url}"} 4`);
    expect(metrics).toContain(`frontier_router_backend_requests_total{role="decode",backend="${decode.url}"} 6`);
    expect(metrics).toContain(`frontier_router_backend_in_flight{role="decode",backend="${decode.url}"} 0`);
    expect(metrics).toContain('frontier_router_kv_params_missing_total 0');
  });

  it('spreads requests over several prefill and decode servers', async () => {
    const prefills = [await serve({ role: 'prefill' }), await serve({ role: 'prefill' })];
    const decodes = [await serve({ role: 'decode' }), await serve({ role: 'decode' })];
    const router = await route(
      prefills.map((s) => s.url),
      decodes.map((s) => s.url),
    );
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        stream(router.url, '/v1/completions', { model: MODEL, prompt: `request ${i}`, max_tokens: 20, ignore_eos: true }),
      ),
    );
    expect(results.every((r) => r.done && tokenChunks(r).length === 20)).toBe(true);
    for (const b of router.stats().backends) expect(b.requests).toBeGreaterThanOrEqual(10);
    for (const d of decodes) expect(d.cluster.stats().promptTokens).toBe(0);
  });
});
