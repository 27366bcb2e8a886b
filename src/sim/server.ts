import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { readTime } from '../util/read-time.js';
import { Cluster } from './cluster.js';
import { FaultPlan } from './faults.js';
import { ClusterPower } from './power.js';
import { SimClock } from './server/clock.js';
import { createGenerationHandler } from './server/generation.js';
import { GroundTruthLog } from './server/ground-truth.js';
import { KvTransferAllocator } from './server/kv-transfer.js';
import type { LiveRequest } from './server/live.js';
import type { SimServer, SimServerOptions } from './server/options.js';
import { ResponseWriter } from './server/response-writer.js';
import { createServerRoutes, sendError } from './server/routes.js';
import { SimProfiler } from './server/profiler.js';
import { SimulationLoop } from './server/simulation-loop.js';
import { loadTokenizer } from './tokens.js';

export { DEFAULT_SERVER_OPTIONS, SIM_ROLES } from './server/options.js';
export type { SimRole, SimServer, SimServerOptions } from './server/options.js';
export type { KvTransferParams } from './server/kv-transfer.js';

/**
 * The simulated engine's HTTP server: the OpenAI-compatible API (as vLLM serves it) over a
 * `Cluster` running in virtual time. Virtual time advances with the wall clock (× `speed`), and
 * each token is written to its socket when the simulation produces it, so a client measures
 * what it would measure against the GPUs the cluster models.
 * This module starts and stops it; its parts are in server/.
 */
export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  loadTokenizer();
  const cluster = new Cluster(options.topology, options.seed);
  const role = options.role ?? 'both';
  const engineId = randomUUID();
  const kvTransfer = new KvTransferAllocator(options.topology, cluster, engineId, options.host, options.port);
  const maxModelLen = Math.min(options.maxModelLen, cluster.maxSequenceTokens);
  const clock = new SimClock(options.speed);
  const power = new ClusterPower(cluster);
  const live = new Map<number, LiveRequest>();
  const sockets = new Set<Socket>();
  const groundTruth = new GroundTruthLog(options.groundTruthFile, role, options.speed);
  const isLoaded = (): boolean => clock.elapsedMs() >= options.faults.slowStartMs;

  const writer = new ResponseWriter({
    servedModelName: options.servedModelName,
    stallMs: options.faults.stallMs,
    cluster,
    clock,
    live,
    groundTruth,
    kvTransfer,
    promptTokensDetails: options.promptTokensDetails ?? false,
  });
  const loop = new SimulationLoop(cluster, clock, live, writer);
  const generate = createGenerationHandler({
    servedModelName: options.servedModelName,
    maxModelLen,
    role,
    seed: options.seed,
    naturalOutputTokens: options.naturalOutputTokens,
    answers: options.answers,
    cluster,
    clock,
    faults: new FaultPlan(options.faults, options.seed),
    live,
    writer,
    loop,
    groundTruth,
    isLoaded,
    onCrashFault: () => setImmediate(crash),
  });
  const route = createServerRoutes({
    servedModelName: options.servedModelName,
    maxModelLen,
    clock,
    cluster,
    power,
    finishedReasons: writer.finishedReasons,
    isLoaded,
    generate,
    profiler:
      options.profilerDir === undefined
        ? undefined
        : new SimProfiler(options.profilerDir, clock, () => [...writer.finishedReasons.values()].reduce((a, b) => a + b, 0)),
  });

  const server: Server = createServer((req, res) => {
    const received = performance.timeOrigin + readTime();
    route(req, res, received).catch((e: unknown) => sendError(res, e));
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
  });

  /** The crash fault: every connection dropped, the port closed, no goodbye. */
  function crash(): void {
    loop.stop();
    for (const l of live.values()) groundTruth.record(l, null, 'crashed');
    live.clear();
    server.close();
    for (const s of sockets) s.destroy();
    options.onCrash?.();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  kvTransfer.port = port;
  return {
    url: `http://${options.host}:${port}`,
    port,
    cluster,
    power,
    clock,
    role,
    engineId,
    close: async () => {
      loop.stop();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await groundTruth.close();
    },
  };
}
