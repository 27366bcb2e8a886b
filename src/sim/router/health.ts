import { request as httpRequest } from 'node:http';
import type { Backend, BackendRole } from './backends.js';

export interface BackendHealth {
  role: BackendRole;
  url: string;
  status?: number;
  error?: string;
}

/** A backend's answer to GET /health within `timeoutMs`, or why there was none. */
export function probe(backend: Backend, timeoutMs: number): Promise<BackendHealth> {
  return new Promise((resolve) => {
    const req = httpRequest(
      // A connection of its own: the probe's timeout stays off the kept-alive ones.
      {
        agent: false,
        hostname: backend.hostname,
        port: backend.port,
        path: `${backend.base}/health`,
        timeout: timeoutMs,
      },
      (up) => {
        up.resume();
        up.on('end', () => resolve({ role: backend.role, url: backend.url, status: up.statusCode ?? 0 }));
        up.on('error', (e) => resolve({ role: backend.role, url: backend.url, error: e.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve({ role: backend.role, url: backend.url, error: e.message }));
    req.end();
  });
}

/** The backends that are not ready: every one is probed at once. */
export async function notReady(backends: readonly Backend[], timeoutMs: number): Promise<BackendHealth[]> {
  const results = await Promise.all(backends.map((b) => probe(b, timeoutMs)));
  return results.filter((r) => r.status !== 200);
}
