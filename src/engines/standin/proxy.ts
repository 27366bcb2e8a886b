import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';

/**
 * A plain HTTP proxy over aggregated workers, taken in turn (what a frontend does with them); /health
 * answers itself, or with `forwardHealth` is forwarded too (a proxy that is ready when what it
 * fronts is: another node's API server of a data-parallel engine, llm-d's P/D sidecar).
 */
export async function startProxy(
  workers: readonly string[],
  host: string,
  port: number,
  o: { forwardHealth?: boolean } = {},
): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    if (req.url === '/health' && !o.forwardHealth) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    const target = new URL(req.url ?? '/', workers[next++ % workers.length]);
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`frontier standin proxy: ${e.message}`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}
