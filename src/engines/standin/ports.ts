import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

/** A port the OS says is free now. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A TCP port that accepts connections and closes them (a control channel nothing speaks on here). */
export function listenAndClose(host: string, port: number): Server {
  return createServer((socket) => socket.end()).listen(port, host);
}
