import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import type { Launch } from '../engines/index.js';
import type { PlannedPoint, RunnablePlan } from '../plan/index.js';
import type { ClusterProfile } from '../clusters/index.js';
import { findHardware, powerBoundsOf } from '../sim/index.js';
import { rowEnv, runAgenticPowerFs } from '../results/index.js';
import type { NodeBounds, PowerSettings } from '../results/index.js';
import type { PointTelemetry } from './point-outcome.js';
import { startSampler } from '../telemetry/index.js';
import type { SamplerHandle, SamplerSource, SamplerSummary } from '../telemetry/index.js';
import { CLOCK_ANCHOR_ENV, wallMsOf } from '../util/virtual-clock.js';
import type { VirtualClock } from '../util/virtual-clock.js';
import type { PointRecord, RunDir } from './run-dir.js';

/**
 * A launch's GPU power telemetry: one sampler on the engine's node, started before the engine and
 * stopped after the last client, writing `gpu_metrics.csv` (and its offset and status files) into
 * the launch's log folder, where each point's power step integrates it over the point's window.
 *
 * Against the simulated engine the real sampler runs unchanged: the engine registers its GPUs
 * (FRONTIER_SIM_GPU_REGISTRY) and a fake `nvidia-smi`/`amd-smi` first on the sampler's PATH reads
 * their modelled board power (`frontier sim smi`), stamped on the run's clock, which the client's
 * window is on too (FRONTIER_CLOCK_ANCHOR). Elsewhere the sampler finds what the machine has
 * (nvidia-smi, amd-smi, hwmon) or records that it found nothing.
 */

/** The sampling interval: InferenceX's monitor samples once a second (a simulated engine's second). */
export const POWER_INTERVAL_MS = 1000;
/** The largest sample gap the power step allows (aggregate_power.py's default, srt-slurm's contract). */
export const MAX_SAMPLE_GAP_MS = 3000;

/**
 * Wall-clock ms to wait after a benchmark window for the GPU monitor to have every sample the
 * power step looks at: past the window's end by the largest gap it allows, and a sample more (on
 * the run's clock: a moment of wall time against a fast simulation).
 */
export const monitorSettleMs = (clock: VirtualClock, intervalMs: number): number =>
  wallMsOf(clock, MAX_SAMPLE_GAP_MS + 2 * intervalMs) + 50;

export interface LaunchPowerOptions {
  /** The run directory: the CSV's path is given relative to it. */
  runRoot: string;
  /** The launch's log folder (`server_logs_<RF>`). */
  logDir: string;
  /** The run's clock (its scale is the simulated engine's speed; 1 elsewhere). */
  clock: VirtualClock;
  /** The sampling interval, ms on the run's clock (default POWER_INTERVAL_MS). */
  intervalMs?: number;
  /** Set for the simulated engine: its GPUs, and how to run Frontier (their tools). */
  simulated?: SimulatedGpus | undefined;
  /** The sampler's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

export interface LaunchPower {
  /** What the engine's processes need in their environment. */
  engineEnv: Record<string, string>;
  /** The telemetry CSV, relative to the run directory (what a point's power step reads). */
  csv: string;
  /** Stop the sampler (a final sample included); undefined when none could start. */
  stop(): Promise<SamplerSummary | undefined>;
  /** Why no sampler runs, when none does. */
  problem?: string;
}

const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** A folder with `nvidia-smi` and `amd-smi` that are the simulated engine's (`frontier sim smi TOOL`). */
export function writeFakeGpuTools(dir: string, frontierCommand: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const tool of ['nvidia-smi', 'amd-smi']) {
    const path = join(dir, tool);
    const command = [...frontierCommand, 'sim', 'smi', tool].map(shellQuote).join(' ');
    writeFileSync(path, `#!/bin/sh\n# The simulated engine's ${tool} (Frontier, docs/power.md).\nexec ${command} "$@"\n`);
    chmodSync(path, 0o755);
  }
  return dir;
}

/** A launch without a GPU monitor: its engines still get the run's clock. */
export function noLaunchPower(clock: VirtualClock): LaunchPower {
  return { engineEnv: { [CLOCK_ANCHOR_ENV]: String(clock.anchorMs) }, csv: NO_CSV, stop: async () => undefined };
}

/** The simulated engine's GPUs on its node: what its fake GPU tools report. */
export interface SimulatedGpus {
  frontierCommand: readonly string[];
  hardware: string;
  vendor: 'nvidia' | 'amd';
  /** The node's GPUs: every index the launch's processes hold (those no engine holds idle). */
  nodeGpus: number;
}

export function simulatedGpus(
  launch: Launch,
  hardware: string,
  frontierCommand: readonly string[] = ['frontier'],
): SimulatedGpus {
  const nodeGpus = Math.max(0, ...launch.processes.flatMap((p) => p.gpus.map((i) => i + 1)));
  return { frontierCommand, hardware, vendor: findHardware(hardware).vendor, nodeGpus };
}

/**
 * What a GPU monitor needs to read the simulated engine's GPUs: its registry (the engines write
 * there too), the node's inventory, the run's speed, and the fake tools first on its PATH.
 */
export function simulatedMonitorEnv(
  logDir: string,
  gpus: SimulatedGpus,
  scale: number,
): { env: Record<string, string>; path: string } {
  return {
    env: {
      FRONTIER_SIM_GPU_REGISTRY: join(logDir, 'gpus'),
      FRONTIER_SIM_NODE_GPUS: String(gpus.nodeGpus),
      FRONTIER_SIM_NODE_HARDWARE: gpus.hardware,
      FRONTIER_TIME_SCALE: String(scale),
    },
    path: join(logDir, 'gpu-tools'),
  };
}

export async function startLaunchPower(o: LaunchPowerOptions): Promise<LaunchPower> {
  const env = { ...(o.env ?? process.env) };
  const engineEnv: Record<string, string> = { [CLOCK_ANCHOR_ENV]: String(o.clock.anchorMs) };
  let source: SamplerSource = 'auto';
  if (o.simulated) {
    const monitor = simulatedMonitorEnv(o.logDir, o.simulated, o.clock.scale);
    engineEnv.FRONTIER_SIM_GPU_REGISTRY = monitor.env.FRONTIER_SIM_GPU_REGISTRY!;
    writeFakeGpuTools(monitor.path, o.simulated.frontierCommand);
    Object.assign(env, engineEnv, monitor.env, { PATH: `${monitor.path}${delimiter}${env.PATH ?? ''}` });
    source = `${o.simulated.vendor}-smi`;
  }
  const csv = relative(o.runRoot, join(o.logDir, 'gpu_metrics.csv'));
  let sampler: SamplerHandle;
  try {
    sampler = await startSampler({ source, dir: o.logDir, intervalMs: o.intervalMs ?? POWER_INTERVAL_MS, env, clock: o.clock });
  } catch (e) {
    return { engineEnv, csv, stop: async () => undefined, problem: `no GPU telemetry: ${(e as Error).message}` };
  }
  return { engineEnv, csv, stop: () => sampler.stop() };
}

/** No telemetry file: a path nothing writes, so the power step records `telemetry_file_missing`. */
export const NO_CSV = 'no-gpu-telemetry/gpu_metrics.csv';

/** The bounds of a launch's nodes: its hardware (the simulated GPU on a simulating cluster) and the cluster's GPUs per node. */
export const launchNode = (plan: RunnablePlan, cluster: ClusterProfile): NodeBounds =>
  powerBoundsOf(plan.hardware, cluster.gpusPerNode);

/** The power step's settings for a point's telemetry (paths relative to the run directory), sampled on `node`. */
export function powerSettingsOf(telemetry: PointTelemetry | undefined, requirePower: boolean, node: NodeBounds): PowerSettings {
  if (telemetry && 'package' in telemetry)
    return {
      powerArtifactDir: telemetry.package,
      powerResultRoot: '.',
      powerProducerSha: telemetry.producer,
      requirePower,
      node,
    };
  return { gpuMetricsCsv: telemetry?.csv ?? NO_CSV, requirePower, node };
}

/**
 * A point's power verdict (its sidecar) into its record. Invalid power is recorded and the point
 * stays ok, as InferenceX's ordinary runs do; with `requirePower` (REQUIRE_POWER=1) it makes the
 * point invalid, its results still written.
 */
export function settlePower(record: PointRecord, sidecar: Record<string, unknown>, requirePower: boolean): void {
  const valid = sidecar.power_valid === true;
  const reasons = Array.isArray(sidecar.reasons) ? sidecar.reasons.map(String) : [];
  record.power = { valid, reasons };
  if (!valid && requirePower) {
    record.status = 'invalid';
    record.error = `power not valid (--require-power): ${reasons.join(', ') || 'no verdict'}`;
  } else {
    record.status = 'ok';
    delete record.error;
  }
}

/**
 * An agentic point's power, as InferenceX's AgentX power adapter measures it: the window of its
 * replay's profiling phase, the telemetry its sampler wrote into `agentic_<RF>/`, the verdict in
 * `agentic_<RF>/power_validation.json` and the aggregate patched.
 */
export function agenticPower(dir: RunDir, p: PlannedPoint, requirePower: boolean, node: NodeBounds): Record<string, unknown> {
  const rf = p.resultFilename;
  const env = rowEnv(p.row, { runner: p.row.runner, resultFilename: rf });
  const expectedGpus = Number(env.TP ?? 1) * Number(env.PP_SIZE ?? 1) * Number(env.PCP_SIZE ?? 1);
  const resultDir = relative(dir.root, dir.agenticDir(rf));
  runAgenticPowerFs(
    { resultDir, aggResult: relative(dir.root, dir.agenticAggFile(rf)), expectedGpus, node, requirePower },
    dir.root,
  );
  return JSON.parse(readFileSync(join(dir.agenticDir(rf), 'power_validation.json'), 'utf8')) as Record<string, unknown>;
}
