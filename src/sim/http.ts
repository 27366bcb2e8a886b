import type { IncomingMessage, ServerResponse } from 'node:http';

/** HTTP plumbing the sim's server and router share. */

export const MAX_BODY_BYTES = 64 << 20;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A request's whole body; `tooLarge()` is the error past MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) reject(tooLarge());
      else chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
