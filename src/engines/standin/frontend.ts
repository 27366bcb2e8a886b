import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { flagValue, flagValues } from '../../util/argv.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { UserError } from '../../util/user-error.js';
import type { SimRole } from '../../sim/index.js';

/**
 * What a frontend (`dynamo.frontend`, the SGLang router, nginx) becomes under the stand-ins: a
 * router given its workers on its command line fronts those; under an srt-slurm recipe it waits
 * until $FRONTIER_RECIPE_EXPECT workers (`prefill=1,decode=2`) have registered, then fronts them:
 * `frontier sim router` over prefill and decode workers, a plain proxy over aggregated ones.
 */

/** A worker's entry in the registry (what launch/inferencex/registry.ts reads back). */
export interface RegisteredWorker {
  role: SimRole;
  url: string;
}

/** The workers registered so far in a registry folder, in a stable order. */
export type RegistryReader = (registry: string) => RegisteredWorker[];

type Fronted = { kind: 'router'; prefill: string[]; decode: string[] } | { kind: 'proxy'; workers: string[] };
/** Where the frontend listens (the port its command line names; $FRONTIER_RECIPE_PORT for nginx, whose port is in its config), and what it fronts. */
export type Frontend = { host: string; port: string } & Fronted;

/** The workers the frontend command `tool args…` fronts, once they are all up. */
export async function frontendFor(
  tool: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  registered: RegistryReader,
): Promise<Frontend> {
  const host = env.FRONTIER_NODE_ADDR || env.FRONTIER_RECIPE_HOST || '127.0.0.1';
  const port = flagValue(args, '--http-port', '--port') ?? env.FRONTIER_RECIPE_PORT ?? '8000';
  return { host, port, ...(await fronted(tool, args, env, registered)) };
}

async function fronted(
  tool: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  registered: RegistryReader,
): Promise<Fronted> {
  const registry = env.FRONTIER_STANDIN_REGISTRY;
  if (!registry) return commandLineRouter(tool, args);
  const workers = await awaitWorkers(() => registered(registry), expectedWorkers(env.FRONTIER_RECIPE_EXPECT ?? ''));
  const urls = (role: string): string[] => workers.filter((w) => w.role === role).map((w) => w.url);
  if (urls('prefill').length > 0 && urls('decode').length > 0)
    return { kind: 'router', prefill: urls('prefill'), decode: urls('decode') };
  if (urls('both').length === 0) throw new UserError(`stand-in: ${tool} has no workers to front (${JSON.stringify(workers)})`);
  return { kind: 'proxy', workers: urls('both') };
}

/**
 * A router given its workers on its command line: the SGLang and ATOM routers (--prefill URL,
 * --decode URL), TileRT's (--vllm-url URL, --decode host:ctrl-port:http-port).
 */
function commandLineRouter(tool: string, args: readonly string[]): Fronted {
  const prefill = [...flagValues(args, '--prefill'), ...flagValues(args, '--vllm-url')];
  const decode = flagValues(args, '--decode').map((d) =>
    /^https?:/.test(d) ? d : `http://${d.split(':')[0]}:${d.split(':').at(-1)}`,
  );
  if (prefill.length === 0 || decode.length === 0)
    throw new UserError(`stand-in: ${tool} names no --prefill and --decode workers, and FRONTIER_STANDIN_REGISTRY is not set`);
  return { kind: 'router', prefill, decode };
}

/** `prefill=1,decode=2` → counts by role (aggregated workers count as `both`). */
export function expectedWorkers(spec: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of spec.split(',').filter(Boolean)) {
    const [role, n] = part.split('=') as [string, string];
    out.set(role === 'aggregated' ? 'both' : role, Number(n));
  }
  return out;
}

/** The registered workers, once there are as many of each role as `want` says. */
async function awaitWorkers(read: () => RegisteredWorker[], want: Map<string, number>): Promise<RegisteredWorker[]> {
  let workers = read();
  const count = (role: string): number => workers.filter((w) => w.role === role).length;
  while ([...want].some(([role, n]) => count(role) < n)) {
    await sleep(100);
    workers = read();
  }
  return workers;
}

/** Enter a worker that serves now into the registry (`file`, in the registry's folder). */
export function registerWorker(file: string, worker: RegisteredWorker): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, JSON.stringify(worker));
}
