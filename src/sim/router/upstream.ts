import { Agent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Backend } from './backends.js';
import { RouteError } from './route-error.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
]);

/** Requests to backends over kept-alive connections, and their responses piped back to clients. */
export class UpstreamClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024, scheduling: 'lifo' });
  /** Requests to backends not answered or not finished yet. */
  private readonly open = new Set<ClientRequest>();

  /**
   * Send a request to a backend; resolves with its response (headers read). The backend's
   * in-flight count holds until the response ends, fails or is aborted through `signal` (the
   * client went away; not counted as the backend's error). A kept-alive connection that the
   * backend had closed is retried once on a new one, as nothing was answered on it.
   */
  call(
    backend: Backend,
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    body: Buffer | undefined,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      backend.inFlight++;
      backend.requests++;
      let open = true;
      const release = (failed: boolean): void => {
        if (!open) return;
        open = false;
        backend.inFlight--;
        if (failed && !signal.aborted) backend.errors++;
      };
      const send = (retry: boolean): void => {
        let answered = false;
        let settled = false;
        const req = httpRequest(
          {
            agent: this.agent,
            hostname: backend.hostname,
            port: backend.port,
            method,
            path: `${backend.base}${path}`,
            headers: body ? { ...headers, 'content-length': body.length } : headers,
            signal,
          },
          (up) => {
            answered = true;
            up.on('end', () => release(false));
            up.on('error', () => release(true));
            up.on('close', () => {
              this.open.delete(req);
              release(!up.complete);
            });
            resolve(up);
          },
        );
        this.open.add(req);
        req.on('socket', (s) => s.setNoDelay(true));
        const fail = (e: NodeJS.ErrnoException): void => {
          if (settled || answered) return;
          settled = true;
          this.open.delete(req);
          if (retry && req.reusedSocket && e.code === 'ECONNRESET' && !signal.aborted) return send(false);
          release(true);
          reject(
            signal.aborted
              ? new RouteError('the client went away', 499, backend.url)
              : new RouteError(`${backend.role} backend ${backend.url} failed: ${e.message}`, 502, backend.url),
          );
        };
        req.on('error', fail);
        req.on('close', () => fail(new Error('the connection closed before an answer')));
        req.end(body);
      };
      send(true);
    });
  }

  /** Cut every request to a backend, and every kept-alive connection. */
  destroy(): void {
    for (const r of this.open) r.destroy();
    this.agent.destroy();
  }
}

/** A backend's whole response body. */
export function readAll(up: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => resolve(Buffer.concat(chunks)));
    up.on('error', reject);
    up.on('close', () => {
      if (!up.complete) reject(new Error('the connection closed mid-response'));
    });
  });
}

/** A backend answered with an error status: the client gets that status, and which backend said it. */
export async function backendError(backend: Backend, up: IncomingMessage): Promise<RouteError> {
  const text = (await readAll(up).catch(() => Buffer.alloc(0))).toString('utf8');
  let detail = text.slice(0, 2000);
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
    const message = parsed.message ?? parsed.error?.message;
    if (typeof message === 'string') detail = message;
  } catch {
    // not JSON: the raw text
  }
  backend.errors++;
  return new RouteError(
    `${backend.role} backend ${backend.url} answered HTTP ${up.statusCode}${detail ? `: ${detail}` : ''}`,
    up.statusCode ?? 502,
    backend.url,
  );
}

/** Write a backend's response to the client as it arrives, one write per chunk, flushed at once. */
export function pipe(up: IncomingMessage, res: ServerResponse): void {
  res.writeHead(up.statusCode ?? 502, responseHeaders(up.headers));
  res.flushHeaders();
  up.on('data', (chunk: Buffer) => {
    if (res.destroyed) return;
    // node:http corks the socket until the end of this tick: chunks that came in one read go
    // out in one write, each as soon as it came.
    const more = res.write(chunk);
    if (!more) {
      up.pause();
      res.once('drain', () => up.resume());
    }
  });
  up.on('end', () => res.end());
  up.on('close', () => {
    if (!up.complete && !res.destroyed) res.destroy();
  });
}

function responseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}
