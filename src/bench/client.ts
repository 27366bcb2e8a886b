import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { BenchRequest } from './dataset.js';
import { HttpConnection } from './http.js';
import { ResponseTracker } from './response.js';
import type { ResponseRecord } from './response.js';
import { SseSplitter } from './sse.js';

/**
 * The streaming client: one request, timed from the moment its bytes are written to the socket
 * to each piece's arrival, on a monotonic clock. Each concurrency slot keeps its own keep-alive
 * connection, opened once: a slot's next request goes out the moment the previous response
 * ends, so a run measures the server, not connection set-up or client queueing.
 */

export interface ClientOptions {
  baseUrl: string;
  /** `/v1/completions` or `/v1/chat/completions` (or another path that speaks one of them). */
  path: string;
  chat: boolean;
  model: string;
  apiKey?: string | undefined;
  ignoreEos: boolean;
  temperature: number;
  timeoutMs: number;
  /** Extra JSON fields for every request body. */
  extraBody?: Record<string, unknown> | undefined;
}

export interface RequestResult extends ResponseRecord {
  /** performance.now() when the request was flushed to the connection. */
  sentAt: number;
  /** Open loop: when it was due to be sent (sentAt − scheduledAt is the client's own lag). */
  scheduledAt: number | undefined;
  endAt: number;
  status: number | undefined;
}

export class Client {
  private readonly connections: HttpConnection[] = [];
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly path: string;

  constructor(readonly options: ClientOptions) {
    this.url = new URL(options.baseUrl);
    this.headers = {
      'content-type': 'application/json',
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
    this.path = `${this.url.pathname.replace(/\/+$/, '')}${options.path}`;
  }

  body(request: BenchRequest): Buffer {
    const o = this.options;
    const common = {
      model: o.model,
      max_tokens: request.outputLen,
      temperature: o.temperature,
      stream: true,
      stream_options: { include_usage: true },
      ...(o.ignoreEos ? { ignore_eos: true } : {}),
      ...o.extraBody,
    };
    return Buffer.from(
      JSON.stringify(
        o.chat ? { ...common, messages: [{ role: 'user', content: request.prompt }] } : { ...common, prompt: request.prompt },
      ),
    );
  }

  /**
   * Send one request on the slot's connection (with its body, when built ahead of time) and
   * follow its stream to the end. Never rejects: failures are in the result.
   */
  send(request: BenchRequest, slot: number, scheduledAt?: number, body = this.body(request)): Promise<RequestResult> {
    return new Promise((resolve) => {
      const connection = (this.connections[slot] ??= new HttpConnection(this.url, this.options.timeoutMs));
      const splitter = new SseSplitter();
      const decoder = new StringDecoder('utf8');
      let sentAt = performance.now();
      let tracker = new ResponseTracker(sentAt);
      let status: number | undefined;
      let errorBody = '';
      const done = (): void => resolve({ ...tracker.finish(), sentAt, scheduledAt, endAt: performance.now(), status });
      connection.request('POST', this.path, this.headers, body, {
        // The clock starts when the bytes go out (on a new connection, once it is open).
        onSent: (now) => {
          sentAt = now;
          tracker = new ResponseTracker(now);
        },
        onStart: (code) => {
          status = code;
        },
        onBody: (piece, now) => {
          if (status !== 200) {
            if (errorBody.length < 2000) errorBody += piece.toString('utf8');
            return;
          }
          splitter.push(decoder.write(piece), (data) => tracker.onData(data, now));
        },
        onEnd: () => {
          if (status !== 200) tracker.fail(`HTTP ${status}: ${errorMessage(errorBody)}`);
          else {
            const now = performance.now();
            const onData = (data: string): void => tracker.onData(data, now);
            splitter.push(decoder.end(), onData);
            splitter.end(onData);
            if (!tracker.sawDone) tracker.fail('stream ended without [DONE]');
          }
          done();
        },
        onError: (e) => {
          tracker.fail(`${status === undefined ? 'connection' : 'stream'} error: ${e.code ?? e.message}`);
          done();
        },
      });
    });
  }

  async close(): Promise<void> {
    for (const c of this.connections) c?.close();
  }
}

/** The message of an OpenAI-style error body, or the body itself. */
function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: string; error?: { message?: string } | string };
    const e = parsed.error;
    return (typeof e === 'string' ? e : e?.message) ?? parsed.message ?? body.slice(0, 200);
  } catch {
    return body.slice(0, 200).trim() || '(empty body)';
  }
}
