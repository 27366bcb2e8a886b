import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpConnection, ReusePolicy } from '../../src/bench/http.js';
import { freePort } from '../helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A raw TCP server; `respond` gets each connection once its first request has arrived. */
async function serve(respond: (socket: Socket, n: number) => Promise<void>): Promise<URL> {
  let n = 0;
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let seen = '';
    const onData = (d: Buffer): void => {
      seen += d.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      void respond(socket, n++);
    };
    socket.on('data', onData);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

/** One request on `connection`: resolves with the status and the de-chunked body. */
function fetchBody(connection: HttpConnection, onRetry?: (e: Error) => void): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const pieces: Buffer[] = [];
    connection.request('POST', '/v1/completions', {}, Buffer.from('{}'), {
      onSent: () => {},
      ...(onRetry ? { onRetry } : {}),
      onStart: (code) => (status = code),
      // Copied: a piece may be a view of a buffer that the next read reuses.
      onBody: (piece) => pieces.push(Buffer.from(piece)),
      onEnd: () => resolve({ status, body: Buffer.concat(pieces).toString('latin1') }),
      onError: reject,
    });
  });
}

describe('the streaming HTTP connection', () => {
  it('parses a chunked response cut anywhere, while another connection’s big reads reuse the read buffer', async () => {
    const pieces = [
      'HTTP/1.1 200 OK\r\nTransfer-Enc',
      'oding: chunked\r\n\r\n0',
      'a\r\n0123456789\r',
      '\n5\r\nab',
      'cde\r\n0\r\n',
      '\r\n',
    ];
    let other: Socket | undefined;
    let otherStarted = (): void => {};
    const otherReady = new Promise<void>((r) => (otherStarted = r));
    const url = await serve(async (socket, n) => {
      if (n === 0) {
        other = socket;
        socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${pieces.length * 65536}\r\n\r\n`);
        otherStarted();
        return;
      }
      await otherReady;
      for (const piece of pieces) {
        socket.write(piece);
        other!.write(Buffer.alloc(65536, 'Z'));
        await sleep(15); // part of the test: each piece in a read of its own, between the other connection's
      }
    });
    const big = fetchBody(new HttpConnection(url, 10_000));
    // The big one must be the server's first connection (n 0): send the small one once it is.
    await otherReady;
    const small = await fetchBody(new HttpConnection(url, 10_000));
    expect(small).toEqual({ status: 200, body: '0123456789abcde' });
    const b = await big;
    expect(b.body.length).toBe(pieces.length * 65536);
    expect(/^Z+$/.test(b.body)).toBe(true);
  });

  it('reads close-delimited bodies, each on a connection of its own', async () => {
    const url = await serve(async (socket, n) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: ${n}\n\n`);
      await sleep(5); // part of the test: the end comes after the body, not with it
      socket.end(); // no length, no chunking: the body ends with the connection
    });
    const c = new HttpConnection(url, 10_000);
    expect(await fetchBody(c)).toEqual({ status: 200, body: 'data: 0\n\n' });
    // The server closed that socket; the next request goes out on a new one.
    expect(await fetchBody(c)).toEqual({ status: 200, body: 'data: 1\n\n' });
    c.close();
  });

  it('fails a response the server cuts mid-body with a connection error', async () => {
    const url = await serve(async (socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab');
      await sleep(5); // part of the test: the cut comes after part of the body has been read
      socket.destroy();
    });
    await expect(fetchBody(new HttpConnection(url, 10_000))).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('a kept-alive socket the server closes right after its response (as llama.cpp does) is replaced before the next write', async () => {
    const url = await serve(async (socket, n) => {
      socket.end(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n7\r\ndata: ${n}\r\n0\r\n\r\n`);
    });
    const c = new HttpConnection(url, 10_000);
    const retried: Error[] = [];
    for (let i = 0; i < 5; i++) expect(await fetchBody(c, (e) => retried.push(e))).toEqual({ status: 200, body: `data: ${i}` });
    expect(retried).toEqual([]);
    c.close();
  });

  it('a server that closes a few ms after each response, unannounced, is detected once and every request gets a connection of its own', async () => {
    let requests = 0;
    const url = await serve(async (socket, n) => {
      requests++;
      socket.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n7\r\ndata: ${n}\r\n0\r\n\r\n`);
      await sleep(10); // later than the next request would be written, but within the probe
      socket.end();
    });
    const reuse = new ReusePolicy();
    const slots = [0, 1].map(() => new HttpConnection(url, 10_000, Infinity, reuse));
    const bodies = await Promise.all(
      slots.map(async (c) => {
        const got: string[] = [];
        for (let i = 0; i < 4; i++) got.push((await fetchBody(c)).body);
        return got;
      }),
    );
    expect(bodies.flat()).toHaveLength(8);
    expect(requests).toBe(8);
    expect(reuse.closes).toBe(true);
    for (const c of slots) c.close();
  });

  it('sockets are reused when the server keeps them, and not past the Keep-Alive timeout it announced', async () => {
    const connections = new Set<Socket>();
    const server = createServer((socket) => {
      connections.add(socket);
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=2\r\ncontent-length: 2\r\n\r\nok'));
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const reuse = new ReusePolicy();
    const c = new HttpConnection(url, 10_000, Infinity, reuse);
    for (let i = 0; i < 3; i++) expect((await fetchBody(c)).body).toBe('ok');
    expect(reuse.closes).toBe(false);
    expect(connections.size).toBe(1);
    // Idle past timeout=2 s less a second of margin: the next request opens a new connection. (The idle time is what
    // is tested: a fixed wait.)
    await sleep(1100);
    expect((await fetchBody(c)).body).toBe('ok');
    expect(connections.size).toBe(2);
    c.close();
  });

  it('a connection that cannot be opened is tried once more (nothing was written), then fails', async () => {
    const port = await freePort();
    const retried: string[] = [];
    const c = new HttpConnection(new URL(`http://127.0.0.1:${port}`), 10_000);
    await expect(fetchBody(c, (e) => retried.push((e as Error & { code: string }).code))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(retried).toEqual(['ECONNREFUSED']);
  });

  it('a malformed content-length or an endless head fails at once, not at the idle timeout', async () => {
    const url = await serve(async (socket, n) => {
      if (n === 0) socket.write('HTTP/1.1 200 OK\r\ncontent-length: abc\r\n\r\nhello');
      else {
        socket.write('HTTP/1.1 200 OK\r\nx-endless: ');
        for (let i = 0; i < 100 && !socket.destroyed; i++) {
          socket.write(Buffer.alloc(4096, 'a'));
          await sleep(1); // a head that keeps coming, until the client gives up on it
        }
      }
    });
    await expect(fetchBody(new HttpConnection(url, 20_000))).rejects.toMatchObject({
      code: 'EPROTO',
      message: "malformed content-length 'abc'",
    });
    await expect(fetchBody(new HttpConnection(url, 20_000))).rejects.toMatchObject({
      code: 'EPROTO',
      message: 'malformed response: a head or chunk line longer than 64 KiB',
    });
  });
});
