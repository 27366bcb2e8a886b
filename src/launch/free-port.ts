import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port the OS says is free now on 127.0.0.1 (taken by whoever binds it next). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
