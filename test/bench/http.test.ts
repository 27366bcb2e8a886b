import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpConnection } from '../../src/bench/http.js';

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
function fetchBody(connection: HttpConnection): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const pieces: Buffer[] = [];
    connection.request('POST', '/v1/completions', {}, Buffer.from('{}'), {
      onSent: () => {},
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
        await sleep(15);
      }
    });
    const big = fetchBody(new HttpConnection(url, 10_000));
    await sleep(20);
    const small = await fetchBody(new HttpConnection(url, 10_000));
    expect(small).toEqual({ status: 200, body: '0123456789abcde' });
    const b = await big;
    expect(b.body.length).toBe(pieces.length * 65536);
    expect(/^Z+$/.test(b.body)).toBe(true);
  });

  it('reads close-delimited bodies, and re-sends once when a kept-alive socket was closed by the server', async () => {
    const url = await serve(async (socket, n) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: ${n}\n\n`);
      await sleep(5);
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
      await sleep(5);
      socket.destroy();
    });
    await expect(fetchBody(new HttpConnection(url, 10_000))).rejects.toMatchObject({ code: 'ECONNRESET' });
  });
});
