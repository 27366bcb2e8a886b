// `frontier serve` over a store, for the perf scripts: resolves with its URL and a stop function.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/frontier.cjs', import.meta.url));

export async function startServe(db) {
  const server = spawn(process.execPath, [cli, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = / on (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
      if (m) resolve(m[1]);
    });
    server.once('exit', (code) => reject(new Error(`frontier serve exited ${code}`)));
  });
  return { url, stop: () => server.kill('SIGTERM') };
}
