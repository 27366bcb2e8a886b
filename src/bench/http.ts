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
  /** The request's bytes were written to the socket, at `now` (again, if it had to be re-sent). */
  onSent(now: number): void;
  onStart(status: number, headers: Record<string, string>): void;
  /** A piece of the (de-chunked) body, read at `now` (performance.now()); a view valid during the call only. */
  onBody(piece: Buffer, now: number): void;
  onEnd(): void;
  onError(error: Error & { code?: string }): void;
}

type State = 'idle' | 'head' | 'size' | 'data' | 'data-end' | 'trailer' | 'length' | 'close';

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** Every plain-TCP connection reads into this buffer; each read is handled before the next. */
const readBuffer = Buffer.allocUnsafe(256 * 1024);

export class HttpConnection {
  private socket: Socket | undefined;
  private connected = false;
  private handler: ResponseHandler | undefined;
  private state: State = 'idle';
  private buffer: Buffer | undefined;
  private remaining = 0;
  private keepAlive = true;
  /** The request in flight, kept to re-send it once on a fresh connection (see `fail`). */
  private inFlight: Buffer | undefined;
  private resent = false;
  private received = false;
  /** Requests this socket has served: a reused keep-alive socket may have been closed by the server. */
  private served = 0;
  /** Whether bytes left over from the current read must be copied out of the shared buffer. */
  private keep = false;

  constructor(
    private readonly url: URL,
    private readonly timeoutMs: number,
  ) {}

  /** Send a request and report its response to `handler` (one request at a time). */
  request(method: string, path: string, headers: Record<string, string>, body: Buffer, handler: ResponseHandler): void {
    if (this.handler) throw new Error('internal: one request at a time per connection');
    this.handler = handler;
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.url.host}\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    this.inFlight = Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]);
    this.resent = false;
    this.send();
  }

  private send(): void {
    this.state = 'head';
    this.buffer = undefined;
    this.received = false;
    if (!this.socket || this.socket.destroyed) this.open();
    if (this.connected) this.write();
  }

  private write(): void {
    const now = performance.now();
    this.socket!.write(this.inFlight!);
    this.handler?.onSent(now);
  }

  private open(): Socket {
    const port = Number(this.url.port) || (this.url.protocol === 'https:' ? 443 : 80);
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    let socket: Socket;
    if (this.url.protocol === 'https:') {
      socket = tlsConnect({ host, port, servername: host, ALPNProtocols: ['http/1.1'] }, () => this.onConnect());
      socket.on('data', (data: Buffer) => this.onData(data, readTime()));
    } else {
      // Reads land in one shared buffer, handed over without node's stream machinery (a third of
      // the client's work per read at a thousand streams); onData copies what it keeps.
      const onread = {
        buffer: readBuffer,
        callback: (n: number, buf: Buffer): boolean => {
          this.onData(buf.subarray(0, n), readTime(), true);
          return true;
        },
      };
      socket = netConnect({ host, port, noDelay: true, onread }, () => this.onConnect());
    }
    socket.setNoDelay(true);
    socket.setTimeout(this.timeoutMs, () =>
      socket.destroy(Object.assign(new Error(`no data for ${this.timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })),
    );
    socket.on('error', (e) => this.fail(e as Error & { code?: string }, socket));
    // The server closed its side: this socket serves no further request.
    socket.on('end', () => {
      if (!this.handler) socket.destroy();
    });
    socket.on('close', () => {
      if (socket !== this.socket) return;
      this.connected = false;
      if (this.state === 'close') this.finish();
      else if (this.handler)
        this.fail(Object.assign(new Error('the connection closed mid-response'), { code: 'ECONNRESET' }), socket);
    });
    this.socket = socket;
    this.connected = false;
    this.served = 0;
    return socket;
  }

  private onConnect(): void {
    this.connected = true;
    if (this.handler && !this.received) this.write();
  }

  /**
   * A failure. A keep-alive socket the server had already closed fails the next request before
   * any response byte: that request never reached the server, so it is sent once more on a fresh
   * connection (servers such as llama.cpp close the connection after every streamed response).
   */
  private fail(error: Error & { code?: string }, socket = this.socket): void {
    if (socket !== this.socket) return;
    this.socket?.destroy();
    if (this.handler && !this.received && this.served > 0 && !this.resent) {
      this.resent = true;
      this.socket = undefined;
      this.send();
      return;
    }
    const handler = this.handler;
    this.handler = undefined;
    this.state = 'idle';
    handler?.onError(error);
  }

  private finish(): void {
    const handler = this.handler;
    this.handler = undefined;
    this.state = 'idle';
    this.served++;
    if (!this.keepAlive) this.socket?.destroy();
    handler?.onEnd();
  }

  /** Body bytes read at `now`; `shared` when `data` is the shared read buffer (kept bytes are copied). */
  private onData(data: Buffer, now: number, shared = false): void {
    this.received = true;
    const buf = this.buffer ? Buffer.concat([this.buffer, data]) : data;
    this.buffer = undefined;
    this.keep = shared && buf === data;
    let at = 0;
    while (at < buf.length && this.handler) {
      switch (this.state) {
        case 'head': {
          const end = buf.indexOf(HEAD_END, at);
          if (end < 0) {
            this.buffer = this.kept(buf.subarray(at));
            return;
          }
          this.parseHead(buf.toString('latin1', at, end));
          at = end + 4;
          break;
        }
        case 'size': {
          const end = buf.indexOf(CRLF, at);
          if (end < 0) {
            this.buffer = this.kept(buf.subarray(at));
            return;
          }
          const size = parseInt(buf.toString('latin1', at, end), 16);
          if (!Number.isFinite(size)) return this.fail(new Error('malformed chunked encoding'));
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
          if (end < 0) {
            this.buffer = this.kept(buf.subarray(at));
            return;
          }
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
          return; // bytes with no request waiting: ignored (the socket is reset on the next request)
      }
    }
    if (at < buf.length && this.state !== 'idle') this.buffer = this.kept(buf.subarray(at));
  }

  private kept(rest: Buffer): Buffer {
    return this.keep ? Buffer.from(rest) : rest;
  }

  private parseHead(head: string): void {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
    if (!m) return this.fail(new Error(`not an HTTP response: ${lines[0]!.slice(0, 60)}`));
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(m[1]);
    this.keepAlive = (headers.connection ?? '').toLowerCase() !== 'close';
    this.handler!.onStart(status, headers);
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) this.state = 'size';
    else if (headers['content-length'] !== undefined) {
      this.remaining = Number(headers['content-length']);
      this.state = 'length';
      if (this.remaining === 0) this.finish();
    } else {
      this.keepAlive = false;
      this.state = 'close';
    }
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }
}
