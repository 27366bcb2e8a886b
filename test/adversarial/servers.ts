// Misbehaving OpenAI-style servers for `frontier bench`: plain node:http servers on 127.0.0.1 that
// count every request they receive, so a test can tell a silent re-send from a single attempt.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gpt2Tokenizer } from '../../src/bench/index.js';

export interface Adversary {
  url: string;
  /** Completion requests received, in order. */
  completions: number;
  /** Stop now, as a killed engine does: every connection cut, nothing listening. */
  crash(): void;
  close(): Promise<void>;
}

/** What to do with completion request `n` (0, 1, …); the request's body has been read. */
export type Behaviour = (n: number, res: ServerResponse, req: IncomingMessage, server: Adversary) => void;

const tokenizer = gpt2Tokenizer();

/**
 * A server whose completions do what `behaviour` says; with `tokenize`, it also answers
 * /tokenize and /detokenize (GPT-2's tokenizer) as vLLM and llama.cpp do.
 */
export async function adversary(behaviour: Behaviour, options: { tokenize?: boolean } = {}): Promise<Adversary> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/completions') return behaviour(self.completions++, res, req, self);
      if (options.tokenize && (req.url === '/tokenize' || req.url === '/detokenize')) {
        const json = JSON.parse(body) as { prompt?: string; tokens?: number[] };
        void (
          req.url === '/tokenize'
            ? tokenizer.encode(json.prompt ?? '').then((tokens) => ({ tokens }))
            : tokenizer.decode(json.tokens ?? []).then((prompt) => ({ prompt }))
        ).then((answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)));
        return;
      }
      res.writeHead(404).end();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const self: Adversary = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    completions: 0,
    crash: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        if (!server.listening) resolve();
      }),
  };
  return self;
}

/** One completion chunk's event. */
export const event = (text: string, finish: string | null = null, usage?: unknown): string =>
  `data: ${JSON.stringify({
    id: 'cmpl-1',
    object: 'text_completion',
    choices: [{ index: 0, text, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })}\n\n`;

/** Start a 200 event stream (chunked, kept alive). */
export function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
}

/**
 * A complete, honest-looking stream: `tokens` chunks of " the" (one GPT-2 token each), then a
 * finish chunk with `usage` (none when undefined), then [DONE].
 */
export function stream(res: ServerResponse, tokens: number, usage?: unknown): void {
  startStream(res);
  let out = '';
  for (let i = 0; i < tokens; i++) out += event(' the');
  out += event('', 'length', usage);
  res.end(`${out}data: [DONE]\n\n`);
}
