import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { BenchRequest } from './dataset.js';
import { HttpConnection, HttpError, ReusePolicy } from './http.js';
import { ResponseTracker } from './response.js';
import type { ResponseRecord } from './response.js';
import { EventTooLarge, SseSplitter } from './sse.js';

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
  /** The longest wait for the next byte of a response (an idle timeout). */
  timeoutMs: number;
  /** The longest a request may take in all (default DEFAULT_REQUEST_DEADLINE_MS). */
  requestDeadlineMs?: number | undefined;
  /** Extra JSON fields for every request body. */
  extraBody?: Record<string, unknown> | undefined;
  /** `best_of` sent with each request (the reference's `--best-of`, which it sends only to completions). */
  bestOf?: number | undefined;
  /** `logprobs` sent with each request (the reference's `--logprobs`, which it sends only to completions). */
  logprobs?: number | undefined;
}

export interface RequestResult extends ResponseRecord {
  /** performance.now() when the request was flushed to the connection. */
  sentAt: number;
  /** Open loop: when it was due to be sent (sentAt − scheduledAt is the client's own lag). */
  scheduledAt: number | undefined;
  endAt: number;
  status: number | undefined;
  /** Times it was sent again because its connection could not be opened (it never reached the server). */
  retries: number;
}

/**
 * The default total deadline of one request: 6 h, the reference client's own total timeout
 * (aiohttp's `total`). A request that long is 1M output tokens at 46 tok/s, slower and longer than
 * any generation a benchmark asks for, so it only ends requests a server keeps alive without finishing.
 */
export const DEFAULT_REQUEST_DEADLINE_MS = 6 * 3600 * 1000;

/** The most of an error response's body kept for its reason. */
export const ERROR_BODY_BYTES = 2000;

export class Client {
  private readonly connections: HttpConnection[] = [];
  /** Whether the server keeps sockets open after a response, learnt once for all slots. */
  private readonly reuse = new ReusePolicy();
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
      ...(o.bestOf !== undefined ? { best_of: o.bestOf } : {}),
      ...(o.logprobs !== undefined ? { logprobs: o.logprobs } : {}),
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
  send(
    request: BenchRequest,
    slot: number,
    scheduledAt?: number,
    body = this.body(request),
    headers?: Record<string, string>,
  ): Promise<RequestResult> {
    return new Promise((resolve) => {
      const connection = (this.connections[slot] ??= new HttpConnection(
        this.url,
        this.options.timeoutMs,
        this.options.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS,
        this.reuse,
      ));
      const splitter = new SseSplitter();
      const decoder = new StringDecoder('utf8');
      let sentAt = performance.now();
      let tracker = new ResponseTracker(sentAt, request.outputLen);
      let status: number | undefined;
      let retries = 0;
      const errorBody: Buffer[] = [];
      let errorBytes = 0;
      const done = (): void => resolve({ ...tracker.finish(), sentAt, scheduledAt, endAt: performance.now(), status, retries });
      connection.request('POST', this.path, headers ? { ...this.headers, ...headers } : this.headers, body, {
        // The clock starts when the bytes go out (on a new connection, once it is open).
        onSent: (now) => {
          sentAt = now;
          tracker = new ResponseTracker(now, request.outputLen);
        },
        onRetry: () => {
          retries++;
        },
        onStart: (code) => {
          status = code;
        },
        onBody: (piece, now) => {
          if (status !== 200) {
            if (errorBytes < ERROR_BODY_BYTES) {
              const kept = Buffer.from(piece.subarray(0, ERROR_BODY_BYTES - errorBytes));
              errorBody.push(kept);
              errorBytes += kept.length;
            }
            return;
          }
          try {
            splitter.push(decoder.write(piece), (data) => tracker.onData(data, now));
          } catch (e) {
            // Nothing the server sends may throw out of a socket read: the request fails, with the reason.
            if (e instanceof EventTooLarge) tracker.fail('event too large', e.message);
            else tracker.fail('client error reading the stream', (e as Error).message);
            connection.abort(new HttpError('EABORTED', 'stopped reading'));
          }
        },
        onEnd: () => {
          if (status !== 200) tracker.fail(`HTTP ${status}: ${errorMessage(Buffer.concat(errorBody).toString('utf8'))}`);
          else {
            const now = performance.now();
            const onData = (data: string): void => tracker.onData(data, now);
            try {
              splitter.push(decoder.end(), onData);
              splitter.end(onData);
            } catch (e) {
              tracker.fail(
                e instanceof EventTooLarge ? 'event too large' : 'client error reading the stream',
                (e as Error).message,
              );
            }
            if (!tracker.sawDone) tracker.fail('stream ended without [DONE]');
          }
          done();
        },
        onError: (e) => {
          // This client's own errors say what happened in their message; a system error's code says it.
          const what = e instanceof HttpError ? e.message : (e.code ?? e.message);
          tracker.fail(`${status === undefined ? 'connection' : 'stream'} error: ${what}`);
          done();
        },
      });
    });
  }

  /** Stop the request in flight on `slot`, if any: it fails with `reason` (a cancellation). */
  abort(slot: number, reason: string): void {
    this.connections[slot]?.abort(new HttpError('ECANCELED', reason));
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
