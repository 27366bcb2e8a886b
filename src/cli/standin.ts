import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { writeFileAtomic } from '../util/atomic-write.js';
import { runBenchCommand } from './bench.js';
import { UserError } from '../util/user-error.js';
import { simCommand } from './sim.js';
import { flagValues, flagValue } from '../util/argv.js';
import { syntheticSpecFlags, syntheticSpecOf } from '../engines/index.js';
import { registered } from '../launch/inferencex/registry.js';

/**
 * The node half of the stand-ins InferenceX scripts run under (src/launch/inferencex/standins.ts):
 * an engine entry point becomes `frontier sim serve` for the row the script was given (its
 * environment contract names model, GPUs and parallelism), on the port and under the name the
 * script asked for, with the synthetic acceptance the engine was told (engines/synthetic-knobs.ts);
 * InferenceX's benchmark client becomes `frontier bench` with the same command line. Hidden:
 * only the stand-ins call it.
 *
 * An srt-slurm recipe's processes (recipe-run.ts) run under them too, with
 * $FRONTIER_STANDIN_REGISTRY set: a Dynamo worker (`python3 -m dynamo.sglang|vllm|trtllm`, or a
 * plain `sglang.launch_server`/`vllm serve`) becomes `frontier sim serve --role prefill|decode`
 * (from its `--disaggregation-mode`/`--is-prefill-worker`, else $FRONTIER_RECIPE_ROLE) and writes
 * its URL into the registry, since real workers are found through etcd/NATS rather than named on
 * the frontend's command line; a process that joins another's endpoint (a multi-node worker's
 * other ranks, $FRONTIER_RECIPE_LEADER=0) idles. A frontend (`dynamo.frontend`, the SGLang
 * router, nginx) waits until $FRONTIER_RECIPE_EXPECT workers (`prefill=1,decode=2`) have
 * registered, then serves `frontier sim router` over them (a plain proxy over aggregated ones)
 * on the port its command line names ($FRONTIER_RECIPE_PORT for nginx, whose port is in its
 * config).
 */

/** The model argument of an engine command line: a flag, else the first positional argument. */
function modelArg(tool: string, args: readonly string[]): string | undefined {
  const flagged = flagValue(args, '--model-path', '--model', '--model_path');
  if (flagged) return flagged;
  const rest = tool === 'python3' || tool === 'python' ? args.slice(2) : args[0] === 'serve' ? args.slice(1) : args;
  return rest[0] !== undefined && !rest[0].startsWith('-') ? rest[0] : undefined;
}

const DEFAULT_PORTS: Record<string, number> = { vllm: 8000, 'trtllm-serve': 8000, sglang: 30000 };

function need(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new UserError(`stand-in: ${name} is not set (the InferenceX workflow sets it)`);
  return v;
}

/** A port the OS says is free now. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A worker's role: its disaggregation flags or KV-transfer role, else what the executor says. */
function recipeRole(args: readonly string[]): 'prefill' | 'decode' | 'both' {
  const mode = flagValue(args, '--disaggregation-mode');
  if (mode === 'prefill' || mode === 'decode') return mode;
  if (args.includes('--is-prefill-worker')) return 'prefill';
  if (args.includes('--is-decode-worker')) return 'decode';
  const kv = /"kv_role"\s*:\s*"kv_(producer|consumer)"/.exec(flagValue(args, '--kv-transfer-config') ?? '');
  if (kv) return kv[1] === 'producer' ? 'prefill' : 'decode';
  if (args[1] === 'tilert.pd_vllm.decode_server') return 'decode';
  const role = process.env.FRONTIER_RECIPE_ROLE;
  return role === 'prefill' || role === 'decode' ? role : 'both';
}

/** `frontier sim router` over prefill and decode workers. */
async function simRouter(prefill: string[], decode: string[], host: string, port: string): Promise<void> {
  const workers = [...prefill.flatMap((u) => ['--prefill', u]), ...decode.flatMap((u) => ['--decode', u])];
  await simCommand().parseAsync(['router', ...workers, '--host', host, '--port', port], { from: 'user' });
}

/** A TCP port that accepts connections and closes them (a control channel nothing speaks on here). */
function listenAndClose(host: string, port: number): void {
  createNetServer((socket) => socket.end()).listen(port, host);
}

/** Stay up, doing nothing, until stopped (a worker rank that joins its endpoint's leader). */
function idle(what: string): void {
  process.stdout.write(`frontier standin: ${what}\n`);
  setInterval(() => undefined, 1 << 30);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
}

/** `prefill=1,decode=2` → counts by role (aggregated workers count as `both`). */
function expected(spec: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of spec.split(',').filter(Boolean)) {
    const [role, n] = part.split('=') as [string, string];
    out.set(role === 'aggregated' ? 'both' : role, Number(n));
  }
  return out;
}

/** A plain proxy over aggregated workers, taken in turn (what a frontend does with them). */
async function proxy(workers: string[], host: string, port: number): Promise<void> {
  let next = 0;
  const server = createServer((req, res) => {
    if (req.url === '/health') {
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
  process.stdout.write(
    `frontier standin proxy listening on http://${host}:${port}\n${workers.map((w) => `  worker: ${w}`).join('\n')}\n`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
}

/** `frontier sim serve` for an engine command line: the row's model and shape (the workflow's variables), in `role`. */
async function simServe(
  args: readonly string[],
  role: 'prefill' | 'decode' | 'both',
  host: string,
  port: string,
  model?: string,
): Promise<void> {
  const served = flagValue(args, '--served-model-name', '--served_model_name') ?? model ?? need('MODEL');
  // The shape: the workflow's variables, else (a multi-node script's server) the engine's own
  // flags, else its role's.
  const roleTp = role === 'prefill' ? process.env.PREFILL_TP : role === 'decode' ? process.env.DECODE_TP : undefined;
  const tp = process.env.TP || flagValue(args, '--tp-size', '--tp', '-tp', '--tensor-parallel-size') || roleTp || need('TP');
  const ep = process.env.EP_SIZE || flagValue(args, '--ep-size', '--ep', '--expert-parallel-size') || '1';
  const dpAttn = process.env.DP_ATTENTION ? process.env.DP_ATTENTION === 'true' : args.includes('--enable-dp-attention');
  const spec = syntheticSpecOf(args, process.env);
  if (spec)
    process.stderr.write(
      `stand-in: speculative decoding, ${spec.draftTokens} draft tokens, acceptance length ${spec.acceptanceLength} (${spec.source})\n`,
    );
  const sim = [
    'serve',
    '--model',
    process.env.FRONTIER_SIM_MODEL || need('MODEL'),
    '--hardware',
    need('FRONTIER_SIM_GPU'),
    '--precision',
    need('PRECISION'),
    '--tp',
    tp,
    '--ep',
    ep,
    '--pp',
    process.env.PP_SIZE || '1',
    ...(dpAttn ? ['--dp-attn'] : []),
    '--served-model-name',
    served,
    ...(role === 'both' ? [] : ['--role', role]),
    ...(process.env.MAX_MODEL_LEN ? ['--max-model-len', process.env.MAX_MODEL_LEN] : []),
    ...syntheticSpecFlags(spec),
    ...(process.env.FRONTIER_SIM_ARGS ?? '').split(/\s+/).filter(Boolean),
    // Tests and local runs listen on loopback only; `http://0.0.0.0:PORT` reaches it.
    '--host',
    host,
    '--port',
    port,
  ];
  await simCommand().parseAsync(sim, { from: 'user' });
}

export function standinCommand(): Command {
  const standin = new Command('standin').description('(internal) what the stand-ins of GPU tools run');
  standin
    .command('engine')
    .argument('<tool>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (tool: string, args: string[]) => {
      const registry = process.env.FRONTIER_STANDIN_REGISTRY;
      if (registry && process.env.FRONTIER_RECIPE_LEADER === '0') {
        idle(`${tool} ${args.slice(0, 2).join(' ')} joins its endpoint's first process, which serves it`);
        return;
      }
      if (registry) {
        // A recipe worker: the sim in its role, on its port (a free one when it names none), registered.
        const host = process.env.FRONTIER_RECIPE_HOST || '127.0.0.1';
        const role = recipeRole(args);
        const port = flagValue(args, '--port') ?? String(await freePort(host));
        await simServe(args, role, host, port);
        mkdirSync(registry, { recursive: true });
        const file = join(registry, `${process.env.FRONTIER_RECIPE_NAME ?? role}-${process.pid}`);
        writeFileAtomic(`${file}.json`, JSON.stringify({ role, url: `http://${host}:${port}` }));
        return;
      }
      // A rank of a server spanning nodes other than its first joins the first, which serves.
      const rank = flagValue(args, '--node-rank');
      if (rank !== undefined && rank !== '0') {
        idle(`${tool} ${args.slice(0, 2).join(' ')} is rank ${rank} of a server whose rank 0 serves it`);
        return;
      }
      // TileRT's decode server also listens on a control port, where its prefill connects first.
      const ctrl = flagValue(args, '--ctrl-port');
      if (ctrl) listenAndClose(process.env.FRONTIER_NODE_ADDR || '127.0.0.1', Number(ctrl));
      const port =
        flagValue(args, '--port', '--server-port', '--http-port') ??
        String(
          tool === 'python3' || tool === 'python'
            ? args[1]?.startsWith('sglang')
              ? 30000
              : 8000
            : (DEFAULT_PORTS[tool] ?? 8000),
        );
      const model = modelArg(tool, args) ?? need('MODEL');
      // Nodes sharing this host each have a loopback address of their own (frontier-node-addr).
      await simServe(args, recipeRole(args), process.env.FRONTIER_NODE_ADDR || '127.0.0.1', port, model);
    });
  standin
    .command('frontend')
    .argument('<tool>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (tool: string, args: string[]) => {
      const registry = process.env.FRONTIER_STANDIN_REGISTRY;
      const host = process.env.FRONTIER_NODE_ADDR || process.env.FRONTIER_RECIPE_HOST || '127.0.0.1';
      const port = flagValue(args, '--http-port', '--port') ?? process.env.FRONTIER_RECIPE_PORT ?? '8000';
      if (!registry) {
        // A router given its workers on its command line: the SGLang and ATOM routers (--prefill
        // URL, --decode URL), TileRT's (--vllm-url URL, --decode host:ctrl-port:http-port).
        const prefill = [...flagValues(args, '--prefill'), ...flagValues(args, '--vllm-url')];
        const decode = flagValues(args, '--decode').map((d) =>
          /^https?:/.test(d) ? d : `http://${d.split(':')[0]}:${d.split(':').at(-1)}`,
        );
        if (prefill.length === 0 || decode.length === 0)
          throw new UserError(
            `stand-in: ${tool} names no --prefill and --decode workers, and FRONTIER_STANDIN_REGISTRY is not set`,
          );
        await simRouter(prefill, decode, host, port);
        return;
      }
      const want = expected(process.env.FRONTIER_RECIPE_EXPECT ?? '');
      let workers = registered(registry);
      const count = (role: string): number => workers.filter((w) => w.role === role).length;
      while ([...want].some(([role, n]) => count(role) < n)) {
        await sleep(100);
        workers = registered(registry);
      }
      const urls = (role: string): string[] => workers.filter((w) => w.role === role).map((w) => w.url);
      if (urls('prefill').length > 0 && urls('decode').length > 0) {
        await simRouter(urls('prefill'), urls('decode'), host, port);
        return;
      }
      if (urls('both').length === 0)
        throw new UserError(`stand-in: ${tool} has no workers to front (${JSON.stringify(workers)})`);
      await proxy(urls('both'), host, Number(port));
    });
  standin
    .command('client')
    .argument('<tool>')
    .argument('[args...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (_tool: string, args: string[]) => {
      const [, ...flags] = args; // the client script's path
      const extra = (process.env.FRONTIER_BENCH_ARGS ?? '').split(/\s+/).filter(Boolean);
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
    });
  return standin;
}
