import { dynamoSglang } from './dynamo-sglang.js';
import { dynamoTrt } from './dynamo-trt.js';
import { dynamoVllm } from './dynamo-vllm.js';
import { llamaCpp } from './llamacpp.js';
import { sglang } from './sglang.js';
import { sim, simulatedModel } from './sim.js';
import { trt } from './trt.js';
import { vllm } from './vllm.js';
import type { EngineAdapter } from './types.js';

export { commandLine, renderLaunchScript, shellQuote } from './script.js';
export { gpusPerWorker } from './types.js';
export { syntheticSpecFlags, syntheticSpecOf } from './synthetic-knobs.js';
export type { SyntheticSpec } from './synthetic-knobs.js';
export {
  SyntheticAcceptanceError,
  flagSpans,
  hasFlag,
  syntheticAl,
  tuneCommand,
  tuneProcess,
  tuningFor,
  tuningProblems,
} from './common.js';
export type {
  ClientSettings,
  Deployment,
  SyntheticAcceptance,
  EngineAdapter,
  EngineProcess,
  Launch,
  Layout,
  Placement,
  Pool,
  Ports,
  Probe,
  EngineTuning,
  ProcessRole,
  ProcessTuning,
  WorkerPlacement,
  WorkerShape,
} from './types.js';
export { dynamoSglang, dynamoTrt, dynamoVllm, llamaCpp, sglang, sim, simulatedModel, trt, vllm };
/** Run-to-run variation of the simulated engine, for the plan that decides it (src/sim/run-variation.ts). */
export { launchSeed } from '../sim/index.js';
export type { RunVariation } from '../sim/index.js';

/** Every adapter; the registry maps a catalog `framework` to its adapter. */
export const ADAPTERS: readonly EngineAdapter[] = [vllm, sglang, trt, dynamoVllm, dynamoSglang, dynamoTrt, llamaCpp, sim];

export function adapterFor(framework: string): EngineAdapter | undefined {
  return ADAPTERS.find((a) => a.frameworks.includes(framework));
}

export const FRAMEWORKS: readonly string[] = ADAPTERS.flatMap((a) => a.frameworks);
