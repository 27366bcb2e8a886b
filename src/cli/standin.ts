import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { basename, join } from 'node:path';
import { Command } from 'commander';
import { runBenchCommand } from './bench.js';
import { simCommand } from './sim.js';
import { flagValue } from '../util/argv.js';
import { ExitCode } from '../util/exit-codes.js';
import { UserError } from '../util/user-error.js';
import { engineStandIn, simServeArgs } from '../engines/standin/engine.js';
import { frontendFor, registerWorker } from '../engines/standin/frontend.js';
import { registered } from '../launch/inferencex/registry.js';
import { listenAndClose } from '../engines/standin/ports.js';
import { startProxy } from '../engines/standin/proxy.js';
import { aiperfBenchArgs } from '../engines/standin/aiperf.js';
import { lmEvalArgs } from '../evals/lm-eval-args.js';
import { evalCommand } from './eval.js';
import { envoyStandIn, eppStandIn, sidecarStandIn } from '../engines/standin/llm-d.js';

/**
 * The node half of the stand-ins InferenceX scripts and srt-slurm recipes run under
 * (src/launch/inferencex/standins.ts): an engine entry point becomes `frontier sim serve`
 * (src/engines/standin/engine.ts), a frontend `frontier sim router` or a plain proxy over the workers
 * (src/engines/standin/frontend.ts), llm-d's EPP a sim router and its Envoy and P/D sidecar proxies
 * (src/engines/standin/llm-d.ts), and InferenceX's benchmark clients `frontier bench` with the same
 * command line (AIPerf's trace replay: src/engines/standin/aiperf.ts). Hidden: only the stand-ins call it.
 */

/** Stay up, doing nothing, until stopped (a worker rank that joins its endpoint's leader). */
function idle(what: string): void {
  process.stdout.write(`frontier standin: ${what}\n`);
  setInterval(() => undefined, 1 << 30);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(ExitCode.OK));
}

/** Servers (proxies) listening now, kept up until stopped; `lines` say where and to what. */
function keepServing(servers: Server[], lines: string[]): void {
  process.stdout.write(`${lines.join('\n')}\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const s of servers) s.close();
      process.exit(ExitCode.OK);
    });
}

async function engine(tool: string, args: string[]): Promise<void> {
  const standIn = await engineStandIn(tool, args, process.env);
  if (standIn.kind === 'idle') return idle(standIn.why);
  if (standIn.kind === 'proxy')
    return keepServing(
      [await startProxy([standIn.to], standIn.host, Number(standIn.port), { forwardHealth: true })],
      [`frontier standin: ${standIn.why}: a proxy on http://${standIn.host}:${standIn.port} to ${standIn.to}`],
    );
  // TileRT's decode server also listens on a control port, where its prefill connects first.
  if (standIn.controlPort) listenAndClose(standIn.host, standIn.controlPort);
  const sim = simServeArgs(args, standIn, process.env, (line) => process.stderr.write(`${line}\n`));
  await simCommand().parseAsync(sim, { from: 'user' });
  const { role, host, port, registerAs } = standIn;
  if (registerAs) registerWorker(registerAs, { role, url: `http://${host}:${port}` });
}

async function frontend(tool: string, args: string[]): Promise<void> {
  if (tool === 'epp') {
    const epp = eppStandIn(args);
    process.stderr.write(`${epp.notes.join('\n')}\n`);
    const workers = [...epp.prefill.flatMap((u) => ['--prefill', u]), ...epp.decode.flatMap((u) => ['--decode', u])];
    await simCommand().parseAsync(['router', ...workers, '--host', epp.host, '--port', epp.port], { from: 'user' });
    return;
  }
  const f = await frontendFor(tool, args, process.env, registered);
  if (f.kind === 'router') {
    const workers = [...f.prefill.flatMap((u) => ['--prefill', u]), ...f.decode.flatMap((u) => ['--decode', u])];
    await simCommand().parseAsync(['router', ...workers, '--host', f.host, '--port', f.port], { from: 'user' });
    return;
  }
  const server = await startProxy(f.workers, f.host, Number(f.port));
  process.stdout.write(
    `frontier standin proxy listening on http://${f.host}:${f.port}\n${f.workers.map((w) => `  worker: ${w}`).join('\n')}\n`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(ExitCode.OK)));
}

/** llm-d's Envoy (its listener and admin) and P/D sidecar: proxies (src/engines/standin/llm-d.ts). */
async function proxy(tool: string, args: string[]): Promise<void> {
  if (tool === 'pd-sidecar') {
    const s = sidecarStandIn(args, process.env);
    return keepServing([await startProxy([s.to], s.host, Number(s.port), { forwardHealth: true })], s.notes);
  }
  if (tool === 'envoy') {
    const e = envoyStandIn(args);
    const servers = [await startProxy([e.upstream], e.listen.host, e.listen.port, { forwardHealth: true })];
    // The admin listener comes up after the listener: its /ready means the listener is there.
    if (e.admin) servers.push(await adminServer(e.admin.host, e.admin.port));
    return keepServing(servers, e.notes);
  }
  throw new UserError(`stand-in: ${tool} is not a proxy the stand-ins know`);
}

/** Envoy's admin listener: /ready answers LIVE, as Envoy's does once its listeners are up. */
function adminServer(host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const ready = req.url === '/ready';
    res.writeHead(ready ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(ready ? 'LIVE\n' : 'the stand-in admin answers /ready only\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

async function client(tool: string, args: string[]): Promise<void> {
  const extra = (process.env.FRONTIER_BENCH_ARGS ?? '').split(/\s+/).filter(Boolean);
  if (tool === 'aiperf') {
    await runBenchCommand([...aiperfBenchArgs(args, process.env), ...extra]);
    return;
  }
  const [, ...flags] = args; // the client script's path
  // The executor's additions come last, so they win (a simulated engine: its time scale and a local tokenizer).
  const report = await runBenchCommand([...flags, ...extra]);
  const dir = process.env.FRONTIER_STANDIN_DIR;
  const name = flagValue(flags, '--result-filename');
  // Named by the result's file name (a multi-node script gives a path).
  if (dir && report && name)
    writeFileSync(
      join(dir, `${basename(name)}.validity.json`),
      JSON.stringify({ valid: report.valid, problems: report.problems }),
    );
}

/** lm-evaluation-harness (`python3 -m lm_eval …`): `frontier eval run` with the same meaning. */
async function lmEval(_tool: string, args: string[]): Promise<void> {
  const at = args.indexOf('lm_eval');
  await evalCommand().parseAsync(lmEvalArgs(args.slice(at + 1), process.env), { from: 'user' });
}

export function standinCommand(): Command {
  const standin = new Command('standin').description('(internal) what the stand-ins of GPU tools run');
  const passThrough = (name: string): Command =>
    standin.command(name).argument('<tool>').argument('[args...]').allowUnknownOption().helpOption(false);
  passThrough('engine').action(engine);
  passThrough('frontend').action(frontend);
  passThrough('client').action(client);
  passThrough('proxy').action(proxy);
  passThrough('eval').action(lmEval);
  return standin;
}
