import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { REPLAY_DEFAULTS } from '../../../src/bench/replay/index.js';
import type { ReplayOptions } from '../../../src/bench/replay/index.js';
import type { Trace, TraceEntry, TraceRequest } from '../../../src/traces/types.js';

const SOURCE = { file: 'memory.jsonl', line: 1 };

/** A request growing the context by `grow` blocks over `previous`. */
export function req(t: number, hashIds: number[], output = 4, delay?: number): TraceRequest {
  return { t, input: hashIds.length * 4, output, hashIds, ...(delay !== undefined ? { delay } : {}), source: SOURCE };
}

/** A main-agent-only trace of `turns` requests whose context grows by one block a turn. */
export function linearTrace(id: string, turns: number, o: { delay?: number; output?: number } = {}): Trace {
  const entries: TraceEntry[] = [];
  for (let i = 0; i < turns; i++) {
    const ids = Array.from({ length: i + 2 }, (_, j) => j);
    entries.push({ kind: 'request', request: req(i * 10, ids, o.output ?? 4, i === 0 ? undefined : o.delay) });
  }
  return { id, blockSize: 4, hashIdScope: 'local', entries, source: SOURCE };
}

export function trace(id: string, entries: TraceEntry[]): Trace {
  return { id, blockSize: 4, hashIdScope: 'local', entries, source: SOURCE };
}

export function options(baseUrl: string, o: Partial<ReplayOptions> = {}): ReplayOptions {
  return {
    ...REPLAY_DEFAULTS,
    baseUrl,
    model: 'test-model',
    concurrency: 2,
    liveAssistant: false,
    dynamoSessionBinding: false,
    dynamoSessionHeader: false,
    timeoutMs: 30_000,
    serverMetricsUrls: [],
    ...o,
  };
}

export interface Seen {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  start: number;
  end: number;
}

/** The usage an honest server reports for a response. */
export interface HonestUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

/**
 * A tiny OpenAI-style chat server that records every request (headers, body, performance.now()
 * at arrival and at the end of its response) and streams `max_tokens` one-word tokens, after
 * `delayMs(body, headers)` milliseconds; `fail(n)` answers the n-th request (0-based) with a 500.
 * A lying server: `tokens(maxTokens, n)` streams another count, `usage(honest, n)` sends these
 * usage chunks instead of the honest one.
 */
export async function recordingServer(
  o: {
    delayMs?: (headers: IncomingHttpHeaders, body: Record<string, unknown>) => number;
    fail?: (n: number) => boolean;
    tokens?: (maxTokens: number, n: number) => number;
    usage?: (honest: HonestUsage, n: number) => unknown[];
  } = {},
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let n = 0;
  const server: Server = createServer((request, res) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const start = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const entry: Seen = { headers: request.headers, body, start, end: NaN };
      seen.push(entry);
      const k = n++;
      if (o.fail?.(k)) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'injected failure' } }));
        entry.end = performance.now();
        return;
      }
      const maxTokens = Number(body.max_tokens ?? 1);
      const tokens = o.tokens?.(maxTokens, k) ?? maxTokens;
      const messages = body.messages as { content: string }[];
      const promptTokens = messages.map((m) => m.content.split(' ').length).reduce((a, b) => a + b, 0);
      setTimeout(
        () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (let i = 0; i < tokens; i++)
            res.write(
              `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content: ` w${i}` }, finish_reason: null }] })}\n\n`,
            );
          const honest = { prompt_tokens: promptTokens, completion_tokens: tokens, prompt_tokens_details: { cached_tokens: 3 } };
          for (const usage of o.usage?.(honest, k) ?? [honest])
            res.write(`data: ${JSON.stringify({ id: 'x', choices: [], usage })}\n\n`);
          if (!res.destroyed) res.end('data: [DONE]\n\n');
          entry.end = performance.now();
        },
        o.delayMs?.(request.headers, body) ?? 0,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
