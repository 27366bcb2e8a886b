import type { IncomingMessage, ServerResponse } from 'node:http';

/** HTTP plumbing the sim's server and router share. */

export const MAX_BODY_BYTES = 64 << 20;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * An error answered as vLLM answers one (OpenAI's error object, plus `extra` fields); a response
 * already under way can only be cut.
 */
export function sendErrorAnswer(res: ServerResponse, status: number, message: string, extra: Record<string, unknown> = {}): void {
  if (res.headersSent) res.destroy();
  else if (!res.destroyed)
    sendJson(res, status, {
      object: 'error',
      message,
      type: status === 400 ? 'BadRequestError' : 'Error',
      param: null,
      code: status,
      ...extra,
    });
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
