import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { freePort } from './free-port.js';
import type { EngineProcess, Launch, Placement } from '../engines/index.js';
import type { PlannedPoint } from '../plan/index.js';
import { BENCHMARK_TYPE_SA_BENCH, fsTelemetry, readSamples, writePowerPackage } from '../results/index.js';
import type { ExpectedDevice, PackageOutcome, WindowRecord } from '../results/index.js';
import { startSampler } from '../telemetry/index.js';
import type { SamplerHandle, SamplerSummary } from '../telemetry/index.js';
import { CLOCK_ANCHOR_ENV, virtualEpochMs } from '../util/virtual-clock.js';
import type { VirtualClock } from '../util/virtual-clock.js';
import { simulatedMonitorEnv } from './power.js';
import type { SimulatedGpus } from './power.js';

/**
 * A simulated multi-node launch's power, measured as srt-slurm's dcgm-power lanes measure
 * InferenceX's disaggregated runs: a DCGM exporter on every node (`frontier sim dcgm-exporter`
 * over that node's simulated GPUs), one collector polling them all into `samples.csv` (the `dcgm`
 * sampler), and after the last point a power package (`manifest.json`, `samples.csv`, a window
 * per point) that the multinode power step re-validates and integrates into whole-deployment and
 * per-role (prefill, decode) energy.
 */

/** The producer commit a Frontier-made package carries, and the pin its power step expects. */
export const FRONTIER_POWER_PRODUCER = 'frontier.sim-dcgm-exporter';
const EXPORTER = 'frontier sim dcgm-exporter';

export interface PackagePowerOptions {
  runRoot: string;
  logDir: string;
  clock: VirtualClock;
  intervalMs: number;
  gpus: SimulatedGpus;
  /** The launch's workers placed on named nodes (`node0`, `node1`…: a local run's nodes share this host). */
  placement: Placement;
  launch: Launch;
  label: string;
}

export interface PackagePower {
  /** The launch's processes with each engine's node in its environment, and a DCGM exporter per node. */
  processes: EngineProcess[];
  /** Start the collector (once the exporters are starting). */
  start(): Promise<void>;
  /** Stop the collector and write the package for the points whose raw results are in the run directory. */
  finish(points: readonly PlannedPoint[], rawFile: (p: PlannedPoint) => string): Promise<PackageOutcome>;
  /** The package's folder, relative to the run directory. */
  dir: string;
}

export async function startPackagePower(o: PackagePowerOptions): Promise<PackagePower> {
  const nodeOf = new Map(o.placement.workers.map((w) => [`${w.role}-${w.index}`, w]));
  const nodes = [...new Set(o.placement.workers.flatMap((w) => w.hosts))];
  const registry = (node: string): string => join(o.logDir, 'gpus', node);
  const anchor = { [CLOCK_ANCHOR_ENV]: String(o.clock.anchorMs) };
  const processes = o.launch.processes.map((p) => {
    const w = nodeOf.get(p.name);
    const node = w?.hosts[0];
    return node === undefined
      ? { ...p, env: { ...p.env, ...anchor } }
      : { ...p, env: { ...p.env, ...anchor, FRONTIER_SIM_GPU_REGISTRY: registry(node), FRONTIER_NODE_ADDR: node } };
  });
  const expectedDevices: ExpectedDevice[] = [];
  const nodeGpus = new Map<string, number>();
  for (const w of o.placement.workers) {
    w.hosts.forEach((host, h) => {
      for (const gpu of w.gpus[h] ?? []) {
        nodeGpus.set(host, Math.max(nodeGpus.get(host) ?? 0, gpu + 1));
        const role = w.role === 'aggregated' ? 'agg' : w.role;
        expectedDevices.push({
          hostname: host,
          gpuIndex: gpu,
          assignments: [{ workerRole: role, workerIndex: w.index, workerProcess: h, hetGroup: null }],
        });
      }
    });
  }
  const endpoints: { url: string; hostname: string }[] = [];
  for (const node of nodes) {
    const port = await freePort();
    const { env } = simulatedMonitorEnv(o.logDir, { ...o.gpus, nodeGpus: nodeGpus.get(node) ?? 0 }, o.clock.scale);
    processes.push({
      name: `dcgm-exporter-${node}`,
      role: 'infra',
      host: '127.0.0.1',
      gpus: [],
      command: [...o.gpus.frontierCommand, 'sim', 'dcgm-exporter', '--host', '127.0.0.1', '--port', String(port)],
      env: { ...env, ...anchor, FRONTIER_SIM_GPU_REGISTRY: registry(node), FRONTIER_NODE_ADDR: node },
    });
    endpoints.push({ url: `http://127.0.0.1:${port}/metrics`, hostname: node });
  }
  const samplesDir = join(o.logDir, 'dcgm');
  const packageDir = join(o.logDir, 'power');
  const startedAtUnix = virtualEpochMs(o.clock) / 1000;
  let sampler: SamplerHandle | undefined;
  return {
    processes,
    dir: relative(o.runRoot, packageDir),
    start: async () => {
      sampler = await startSampler({
        source: 'dcgm',
        dir: samplesDir,
        dcgmEndpoints: endpoints,
        intervalMs: o.intervalMs,
        clock: o.clock,
      });
    },
    finish: async (points, rawFile) => {
      const summary: SamplerSummary | undefined = await sampler?.stop();
      const windows: WindowRecord[] = [];
      for (const p of points) {
        const raw = JSON.parse(readFileSync(rawFile(p), 'utf8')) as Record<string, number>;
        windows.push({
          benchmarkType: BENCHMARK_TYPE_SA_BENCH,
          concurrency: p.conc,
          resultPath: relative(o.runRoot, rawFile(p)),
          status: 'completed',
          startUnix: raw.benchmark_start_time_unix!,
          endUnix: raw.benchmark_end_time_unix!,
          duration: raw.duration!,
        });
      }
      const { rows } = readSamples(fsTelemetry(samplesDir), 'samples.csv');
      return writePowerPackage(packageDir, {
        jobId: o.label,
        runName: o.label,
        producerGitCommit: FRONTIER_POWER_PRODUCER,
        sampleIntervalSeconds: o.intervalMs / 1000,
        requestTimeoutSeconds: 2,
        required: false,
        startedAtUnix,
        exporter: { containerImageResolved: EXPORTER, containerImageSha256: null, port: 0, command: EXPORTER },
        expectedDevices,
        expectedWindows: points.map((p) => ({ benchmarkType: BENCHMARK_TYPE_SA_BENCH, concurrency: p.conc })),
        resultRoot: o.runRoot,
        samples: rows,
        windows,
        stoppedAtUnix: virtualEpochMs(o.clock) / 1000,
        reasonCodes: Object.keys(summary?.reasons ?? {}),
      });
    },
  };
}
