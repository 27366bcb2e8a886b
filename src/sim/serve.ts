import type { Topology } from './cluster.js';
import { registerGpus } from './gpu-registry.js';
import type { EngineSpec } from './perf.js';
import { startSimServer } from './server.js';
import type { SimServer, SimServerOptions } from './server/options.js';

/** The engine a deployment's API speaks for (its model and context): the decode pool's when disaggregated. */
export const servingEngine = (t: Topology): EngineSpec => (t.kind === 'aggregated' ? t.pool.engine : t.decode.engine);

export interface ServeOptions extends Omit<SimServerOptions, 'servedModelName' | 'maxModelLen'> {
  /** Default: the model's Hugging Face name. */
  servedModelName?: string | undefined;
  /** Default: the model's context. */
  maxModelLen?: number | undefined;
  /** The fake GPU tools' registry folder (gpu-registry.ts), if any. */
  gpuRegistry?: string | undefined;
}

/**
 * A simulated deployment served over HTTP. Its GPUs are entered in `gpuRegistry` before this
 * returns (whoever waits for the server's banner finds them there), and removed at exit.
 */
export async function serveDeployment(o: ServeOptions): Promise<SimServer> {
  const { gpuRegistry, ...rest } = o;
  const engine = servingEngine(o.topology);
  const server = await startSimServer({
    ...rest,
    servedModelName: o.servedModelName ?? engine.model.hfRepo,
    maxModelLen: o.maxModelLen ?? engine.model.maxContext,
  });
  if (gpuRegistry) {
    registerGpus(gpuRegistry, {
      url: server.url,
      hardware: engine.hardware,
      gpus: server.power.gpus,
      speed: o.speed,
      startedMs: server.clock.epoch0,
    });
  }
  return server;
}
