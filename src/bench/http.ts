import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import { readTime } from '../util/read-time.js';

/**
 * A minimal HTTP/1.1 client connection for streamed responses: one persistent socket, one
 * request at a time, the response parsed straight from the socket's buffers (status line,
 * headers, then a chunked, sized or close-delimited body). It exists for timing: every body
 * piece is stamped with the moment its socket read began, and the work per read is a few index
 * lookups, so with hundreds of streams the last socket read in a burst is not stamped late by
 * the processing of the others (node:http's per-chunk stream machinery cost ~25 µs per chunk,
 * i.e. up to 6 ms of skew at 256 streams).
 */

export interface ResponseHandler {
  /** The request's bytes were written to the socket, at `now`. */
  onSent(now: number): void;
  /** The connection could not be opened (nothing was written): the request is sent once more on a new one. */
  onRetry?(error: Error & { code?: string }): void;
  onStart(status: number, headers: Record<string, string>): void;
  /** A piece of the (de-chunked) body, read at `now` (performance.now()); a view valid during the call only. */
  onBody(piece: Buffer, now: number): void;
  onEnd(): void;
  onError(error: Error & { code?: string }): void;
}

/** A failure this client detected itself; its message says what happened (a system error's code says it for those). */
export class HttpError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type State = 'idle' | 'head' | 'size' | 'data' | 'data-end' | 'trailer' | 'length' | 'close';

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** Every plain-TCP connection reads into this buffer; each read is handled before the next. */
const readBuffer = Buffer.allocUnsafe(256 * 1024);
/** The longest response head, chunk-size line or trailer accepted (node:http's default head limit is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;
/** How long a kept-alive socket is watched after its first response for a close the server does not announce. */
export const REUSE_PROBE_MS = 100;

/**
 * Whether the server keeps connections open after a response. Most do; some close after every
 * response without saying so (llama.cpp's server sends no `Connection: close` and its FIN about a
 * millisecond after a stream ends). A request written into such a socket may or may not have
 * reached the server, so it could only fail. The first kept-alive socket to finish a response is
 * watched for REUSE_PROBE_MS: closed by then, no socket is reused again (every request opens its
 * own connection); still open, sockets are reused. Requests that would reuse a socket before the
 * verdict wait for it, once per run. One policy is shared by all connections to a server.
 */
export class ReusePolicy {
  private verdict: 'keep' | 'close' | undefined;
  private watching = false;
  private readonly waiting: (() => void)[] = [];

  get closes(): boolean {
    return this.verdict === 'close';
  }

  /** Watch `socket`, which just finished a response and was not told to close (the first such socket only). */
  watch(socket: Socket): void {
    if (this.verdict || this.watching) return;
    this.watching = true;
    const timer = setTimeout(() => this.decide('keep'), REUSE_PROBE_MS).unref();
    const closed = (): void => {
      clearTimeout(timer);
      this.decide('close');
    };
    socket.once('end', closed);
    socket.once('error', closed);
  }

  /** Run `then` once the verdict is in (at once when it is). */
  decided(then: () => void): void {
    if (this.verdict || !this.watching) then();
    else this.waiting.push(then);
  }

  private decide(verdict: 'keep' | 'close'): void {
    if (this.verdict) return;
    this.verdict = verdict;
    for (const then of this.waiting.splice(0)) then();
  }
}

export class HttpConnection {
  private socket: Socket | undefined;
  private connected = false;
  private handler: ResponseHandler | undefined;
  private state: State = 'idle';
  private buffer: Buffer | undefined;
  private remaining = 0;
  private keepAlive = true;
  /** The request in flight, kept to send it on a new connection when the first could not be opened. */
  private inFlight: Buffer | undefined;
  /** Whether the request's bytes went to a socket: from then on it may have reached the server, and is never re-sent. */
  private written = false;
  /** Whether any byte of the response arrived. */
  private responded = false;
  private retried = false;
  /** Requests this socket has served (0: a new socket). */
  private served = 0;
  /** Counts requests, so that a deferred start or a deadline of an earlier request does nothing. */
  private seq = 0;
  private deadline: NodeJS.Timeout | undefined;
  /** What the last response's `Keep-Alive` header promised, and when the socket last went idle. */
  private keepAliveLimits = { timeoutS: Infinity, max: Infinity };
  private idleSince = 0;
  /** Whether bytes left over from the current read must be copied out of the shared buffer. */
  private keep = false;

  /**
   * `timeoutMs`: the longest wait for the next byte (an idle timeout); `deadlineMs`: the longest a
   * request may take from `request()` to its last byte, however steadily the server sends.
   */
  constructor(
    private readonly url: URL,
    private readonly timeoutMs: number,
    private readonly deadlineMs = Infinity,
    private readonly reuse = new ReusePolicy(),
  ) {}

  /** Send a request and report its response to `handler` (one request at a time). */
  request(method: string, path: string, headers: Record<string, string>, body: Buffer, handler: ResponseHandler): void {
    if (this.handler) throw new Error('internal: one request at a time per connection');
    this.handler = handler;
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.url.host}\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    this.inFlight = Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]);
    this.written = false;
    this.retried = false;
    this.state = 'head';
    this.buffer = undefined;
    const seq = ++this.seq;
    if (Number.isFinite(this.deadlineMs))
      this.deadline = setTimeout(() => {
        if (seq === this.seq) this.abort(new HttpError('EDEADLINE', `no complete response within ${this.deadlineMs / 1000} s`));
      }, this.deadlineMs);
    if (this.socket && !this.socket.destroyed && this.served > 0) {
      this.reuse.decided(() => {
        if (seq !== this.seq) return;
        if (this.reuse.closes || this.expired()) this.drop();
        // Write once the event loop has polled again, so that a close the server sent right after
        // its last response is seen first and the socket replaced. Written into a close, the
        // request would have to fail: it may have reached the server, and is never re-sent. (The
        // first immediate runs in this loop turn's check phase, the second after the next poll.)
        setImmediate(() => setImmediate(() => seq === this.seq && this.start()));
      });
    } else this.start();
  }

  /**
   * Whether the kept-alive socket is past what the server's `Keep-Alive: timeout=T, max=N` promised:
   * idle for longer than T less a second, or N (the requests left, counted differently by servers) at most 1.
   */
  private expired(): boolean {
    const { timeoutS, max } = this.keepAliveLimits;
    return max <= 1 || performance.now() - this.idleSince > timeoutS * 1000 - 1000;
  }

  /** Close the kept-alive socket without a word to anyone: nothing was written on it for this request. */
  private drop(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.connected = false;
    socket?.destroy();
  }

  private start(): void {
    if (!this.handler || this.written) return;
    if (!this.socket || this.socket.destroyed) this.open();
    if (this.connected) this.write();
  }

  private write(): void {
    const now = performance.now();
    this.written = true;
    this.socket!.write(this.inFlight!);
    this.handler?.onSent(now);
  }

  private open(): Socket {
    const port = Number(this.url.port) || (this.url.protocol === 'https:' ? 443 : 80);
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    let socket: Socket;
    if (this.url.protocol === 'https:') {
      socket = tlsConnect({ host, port, servername: host, ALPNProtocols: ['http/1.1'] }, () => this.onConnect(socket));
      socket.on('data', (data: Buffer) => this.onData(data, readTime(), socket));
    } else {
      // Reads land in one shared buffer, handed over without node's stream machinery (a third of
      // the client's work per read at a thousand streams); onData copies what it keeps.
      const onread = {
        buffer: readBuffer,
        callback: (n: number, buf: Buffer): boolean => {
          this.onData(buf.subarray(0, n), readTime(), socket, true);
          return true;
        },
      };
      socket = netConnect({ host, port, noDelay: true, onread }, () => this.onConnect(socket));
    }
    socket.setNoDelay(true);
    socket.setTimeout(this.timeoutMs, () => socket.destroy(new HttpError('ETIMEDOUT', `no data for ${this.timeoutMs / 1000} s`)));
    socket.on('error', (e) => this.fail(e as Error & { code?: string }, socket));
    socket.on('end', () => {
      // The server closed its side: this socket serves no further request. A request not yet
      // written goes out on a new socket (see `request`).
      if (!this.handler || !this.written) socket.destroy();
    });
    socket.on('close', () => {
      if (socket !== this.socket) return;
      this.connected = false;
      if (!this.handler || !this.written) return;
      if (this.state === 'close') this.finish();
      else
        this.fail(
          new HttpError(
            'ECONNRESET',
            this.responded
              ? 'the connection closed mid-response'
              : 'the server closed the connection before responding (not re-sent: it may have seen the request)',
          ),
          socket,
        );
    });
    this.socket = socket;
    this.connected = false;
    this.served = 0;
    return socket;
  }

  private onConnect(socket: Socket): void {
    if (socket !== this.socket) return;
    this.connected = true;
    if (this.handler && !this.written) this.write();
  }

  /**
   * A failure. A request is sent again only when its connection could not be opened: nothing was
   * written, so the server cannot have seen it (once; the handler hears of it). Anything after
   * the write fails the request: the server may have received it, and a silent re-send would
   * hide the failure, time the second attempt and make the server do the work twice.
   */
  private fail(error: Error & { code?: string }, socket = this.socket): void {
    if (socket !== this.socket) return;
    socket?.destroy();
    const handler = this.handler;
    if (!handler) return;
    if (!this.written) {
      const connecting = !this.connected;
      this.socket = undefined;
      this.connected = false;
      // A kept-alive socket that died before the write is replaced when the deferred write runs.
      if (!connecting) return;
      if (!this.retried) {
        this.retried = true;
        handler.onRetry?.(error);
        this.start();
        return;
      }
    }
    this.end();
    handler.onError(error);
  }

  /** Stop the request in flight with `error` (its connection is closed, not reused). */
  abort(error: Error & { code?: string }): void {
    if (!this.handler) return;
    this.written = true; // never re-sent
    this.fail(error);
  }

  private end(): void {
    this.handler = undefined;
    this.state = 'idle';
    this.responded = false;
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private finish(): void {
    const handler = this.handler;
    this.end();
    this.served++;
    this.idleSince = performance.now();
    if (!this.keepAlive) this.socket?.destroy();
    else if (this.socket) this.reuse.watch(this.socket);
    handler?.onEnd();
  }

  /** Bytes read from `socket` at `now`; `shared` when `data` is the shared read buffer (kept bytes are copied). */
  private onData(data: Buffer, now: number, socket: Socket, shared = false): void {
    if (socket !== this.socket) return;
    if (!this.handler || !this.written) {
      socket.destroy(); // bytes no request asked for: this socket's next response could not be trusted
      return;
    }
    this.responded = true;
    const buf = this.buffer ? Buffer.concat([this.buffer, data]) : data;
    this.buffer = undefined;
    this.keep = shared && buf === data;
    let at = 0;
    while (at < buf.length && this.handler) {
      switch (this.state) {
        case 'head': {
          const end = buf.indexOf(HEAD_END, at);
          if (end < 0) return this.carry(buf.subarray(at));
          this.parseHead(buf.toString('latin1', at, end));
          at = end + 4;
          break;
        }
        case 'size': {
          const end = buf.indexOf(CRLF, at);
          if (end < 0) return this.carry(buf.subarray(at));
          const line = buf.toString('latin1', at, end);
          const size = /^[0-9a-f]{1,12}(?:[ \t;]|$)/i.test(line) ? parseInt(line, 16) : NaN;
          if (Number.isNaN(size))
            return this.fail(new HttpError('EPROTO', `malformed chunked encoding (chunk size '${line.slice(0, 20)}')`));
          at = end + 2;
          if (size === 0) this.state = 'trailer';
          else {
            this.remaining = size;
            this.state = 'data';
          }
          break;
        }
        case 'data':
        case 'length': {
          const take = Math.min(this.remaining, buf.length - at);
          if (take > 0) this.handler.onBody(buf.subarray(at, at + take), now);
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            if (this.state === 'length') this.finish();
            else this.state = 'data-end';
          }
          break;
        }
        case 'data-end': {
          if (buf.length - at < 2) {
            this.buffer = this.kept(buf.subarray(at));
            return;
          }
          at += 2;
          this.state = 'size';
          break;
        }
        case 'trailer': {
          // Trailer fields (usually none), then an empty line.
          const end = buf.indexOf(CRLF, at);
          if (end < 0) return this.carry(buf.subarray(at));
          const empty = end === at;
          at = end + 2;
          if (empty) this.finish();
          break;
        }
        case 'close': {
          this.handler.onBody(buf.subarray(at), now);
          at = buf.length;
          break;
        }
        default:
          return;
      }
    }
    if (at < buf.length) {
      if (this.state !== 'idle') this.buffer = this.kept(buf.subarray(at));
      else socket.destroy(); // bytes after the response: this socket's next response could not be trusted
    }
  }

  private kept(rest: Buffer): Buffer {
    return this.keep ? Buffer.from(rest) : rest;
  }

  /** Keep an incomplete head or line for the next read; its size is capped, so each read costs at most the cap. */
  private carry(rest: Buffer): void {
    if (rest.length > MAX_HEAD_BYTES)
      return this.fail(
        new HttpError('EPROTO', `malformed response: a head or chunk line longer than ${MAX_HEAD_BYTES / 1024} KiB`),
      );
    this.buffer = this.kept(rest);
  }

  private parseHead(head: string): void {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
    if (!m) return this.fail(new HttpError('EPROTO', `not an HTTP response: ${lines[0]!.slice(0, 60)}`));
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(m[1]);
    this.keepAlive = (headers.connection ?? '').toLowerCase() !== 'close';
    const limits = headers['keep-alive'] ?? '';
    this.keepAliveLimits = {
      timeoutS: Number(/timeout=(\d+)/i.exec(limits)?.[1] ?? Infinity),
      max: Number(/max=(\d+)/i.exec(limits)?.[1] ?? Infinity),
    };
    this.handler!.onStart(status, headers);
    if (!this.handler) return;
    const length = headers['content-length'];
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) this.state = 'size';
    else if (length !== undefined) {
      if (!/^\d{1,15}$/.test(length))
        return this.fail(new HttpError('EPROTO', `malformed content-length '${length.slice(0, 20)}'`));
      this.remaining = Number(length);
      this.state = 'length';
      if (this.remaining === 0) this.finish();
    } else {
      this.keepAlive = false;
      this.state = 'close';
    }
  }

  /** Close the connection; a request in flight is dropped without a word to its handler. */
  close(): void {
    this.end();
    this.socket?.destroy();
    this.socket = undefined;
  }
}
