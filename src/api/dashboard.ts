/** The built dashboard (dist/web), served by `frontier serve` at every path outside /api. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-error.js';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/**
 * The dashboard's files; any other path outside /api is a page of the single-page app, so it gets
 * index.html (the app reads the path). Hashed assets are cached for good, the page never.
 */
export function serveDashboard(app: FastifyInstance, webDir: string): void {
  const root = resolve(webDir);
  const index = join(root, 'index.html');
  if (!existsSync(index)) throw new Error(`no dashboard in ${root} (npm run build builds it)`);
  app.get('/*', async (request, reply) => {
    const path = decodeURIComponent(request.url.split('?')[0]!);
    if (path.startsWith('/api/')) throw new HttpError(404, `no such endpoint: GET ${path}`);
    const file = resolve(root, `.${path}`);
    const inside = file.startsWith(root + sep);
    if (inside && existsSync(file) && statSync(file).isFile()) {
      void reply.type(MIME[extname(file)] ?? 'application/octet-stream');
      void reply.header('cache-control', path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      return reply.send(readFileSync(file));
    }
    return reply.type(MIME['.html']!).header('cache-control', 'no-cache').send(readFileSync(index));
  });
}
