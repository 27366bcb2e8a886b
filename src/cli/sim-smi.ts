import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { SmiUsageError, dcgmMetrics, runAmdSmi, runNvidiaSmi, writeLine } from '../sim/smi.js';
import type { SmiIo } from '../sim/smi.js';
import { numberArg } from './options.js';
import { UserError } from '../util/user-error.js';
import { ExitCode } from '../util/exit-codes.js';

/**
 * `frontier sim smi nvidia-smi|amd-smi ARGS…` and `frontier sim dcgm-exporter`: the simulated
 * GPUs' monitors (src/sim/smi.ts), hidden commands the GPU tools' stand-ins run.
 */

/** Run a fake tool as a process: lines to stdout at once, SIGTERM/SIGINT end it cleanly. */
async function runTool(tool: string, args: string[]): Promise<never> {
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  // A loop takes its last sample and returns (status 0); a one-shot ends at once.
  const end = (): void => {
    stop();
    setTimeout(() => process.exit(ExitCode.OK), 1000).unref();
  };
  process.once('SIGTERM', end);
  process.once('SIGINT', end);
  const io: SmiIo = {
    env: process.env,
    line: (text) => {
      try {
        writeLine(1, text);
      } catch (e) {
        // The reader went away (a closed pipe): nothing more to say.
        if ((e as NodeJS.ErrnoException).code === 'EPIPE') process.exit(ExitCode.OK);
        throw e;
      }
    },
    exit: (status) => process.exit(status),
    stopped,
  };
  try {
    const status = tool === 'nvidia-smi' ? await runNvidiaSmi(args, io) : await runAmdSmi(args, io);
    process.exit(status);
  } catch (e) {
    if (e instanceof SmiUsageError || e instanceof UserError) {
      process.stderr.write(`${tool}: ${e.message.replace(new RegExp(`^${tool}: `), '')}\n`);
      process.exit(e instanceof SmiUsageError ? e.status : ExitCode.USAGE);
    }
    throw e;
  }
}

export function addSmiCommands(sim: Command): void {
  sim
    .command('smi', { hidden: true })
    .description("(internal) the simulated nvidia-smi / amd-smi over the node's simulated GPUs")
    .argument('<tool>', 'nvidia-smi or amd-smi')
    .argument('[args...]')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (tool: string, _args: string[], _opts: unknown, cmd: Command) => {
      if (tool !== 'nvidia-smi' && tool !== 'amd-smi') throw new UserError(`sim smi: ${tool}: expected nvidia-smi or amd-smi`);
      await runTool(tool, cmd.args.slice(1));
    });

  sim
    .command('dcgm-exporter', { hidden: true })
    .description("(internal) a DCGM exporter's GET /metrics over the node's simulated GPUs")
    .option('--port <n>', 'port on --host (0: any free port)', numberArg({ integer: true, min: 0 }), 9400)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .action(async (flags: { port: number; host: string }) => {
      const server = createServer((req, res) => {
        if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
          return;
        }
        dcgmMetrics(process.env).then(
          (body) => res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(body),
          (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e.message}\n`),
        );
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', (e: NodeJS.ErrnoException) =>
          reject(e.code === 'EADDRINUSE' ? new UserError(`port ${flags.port} on ${flags.host} is in use`) : e),
        );
        server.listen(flags.port, flags.host, resolve);
      });
      const port = (server.address() as AddressInfo).port;
      process.stdout.write(`frontier sim dcgm-exporter: serving /metrics on http://${flags.host}:${port}\n`);
      const stop = (): void => {
        server.close(() => process.exit(ExitCode.OK));
        server.closeAllConnections();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
