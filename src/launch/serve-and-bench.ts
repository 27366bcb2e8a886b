import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptanceProblem, runBench } from '../bench/index.js';
import type { SharedCores } from '../bench/saturation.js';
import type { Launch } from '../engines/index.js';
import { isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import { replayPoint } from './replay-point.js';
import { monitorSettleMs, noLaunchPower, simulatedGpus, startLaunchPower } from './power.js';
import { FRONTIER_POWER_PRODUCER, startPackagePower } from './power-package.js';
import type { PackagePower } from './power-package.js';
import type { LaunchPower } from './power.js';
import type { PlannedPoint } from '../plan/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { utcOffset } from '../util/date.js';
import type { VirtualClock } from '../util/virtual-clock.js';
import { LaunchFailure } from './failure.js';
import { clearEngines, recordEngines } from './leftovers.js';
import { RUN_MARKER, startProcesses } from './local.js';
import type { RunningProcesses } from './local.js';
import { benchOptionsOf, specDecodeMetricsUrlsOf } from './point-bench.js';
import { waitReady } from './ready.js';
import type { ReadyTarget } from './ready.js';
import type { LaunchContext } from './run.js';

const LOG_TAIL_BYTES = 3000;

function describeExit(running: RunningProcesses, name: string, when: string): string | undefined {
  const e = running.exitOf(name);
  if (!e) return undefined;
  const how = e.signal ? `signal ${e.signal}` : `exit code ${e.code}`;
  const log = running.logTail(name, LOG_TAIL_BYTES).trimEnd();
  return `${name} exited (${how}) ${when}${log ? `; the end of its log:\n${log}` : ' (its log is empty)'}`;
}

/** After it, a point's power verdict is what it would be after the monitor stopped. */
const sampleAfterWindow = (clock: VirtualClock, intervalMs: number): Promise<void> => sleep(monitorSettleMs(clock, intervalMs));

function readyTargets(launch: Launch): ReadyTarget[] {
  const targets: ReadyTarget[] = [];
  for (const p of launch.processes)
    for (const probe of p.ready ?? []) targets.push({ url: `http://${p.host}:${p.port}${probe.path}`, contains: probe.contains });
  const { host, port } = launch.endpoint;
  for (const probe of launch.ready) targets.push({ url: `http://${host}:${port}${probe.path}`, contains: probe.contains });
  return targets;
}

export interface ServeOptions {
  model: string;
  isl: number;
  osl: number;
  /** What failed to start, in the error: the engine, the recipe. */
  what: string;
  sharedCores?: SharedCores;
  /** Files written beside the logs (the launch, rendered). */
  written?: Record<string, string>;
  /** How to run Frontier itself (the simulated engine's GPU tools; default `frontier`). */
  frontierCommand?: readonly string[];
  /** The decoders' /metrics once they serve, when the launch does not name their ports (default `specDecodeMetricsUrlsOf`). */
  specDecodeMetricsUrls?: () => string[] | undefined;
}

type Measured = { status: 'ok' | 'invalid'; raw: string; problems: string[] };

/** A launch's GPU monitor: one per launch, or (a simulated multi-node launch) a DCGM power package. */
interface LaunchMonitor {
  clock: VirtualClock;
  power: LaunchPower;
  pkg: PackagePower | undefined;
}

async function startMonitor(ctx: LaunchContext, launch: Launch, logDir: string, o: ServeOptions): Promise<LaunchMonitor> {
  const { points, dir, plan } = ctx;
  const clock = { scale: launch.client.timeScale, anchorMs: ctx.clockAnchorMs };
  // An agentic point's telemetry goes beside its replay's artifacts, where InferenceX's power adapter reads it.
  const agentic = points.length === 1 && isAgenticRow(points[0]!.row) ? dir.agenticDir(points[0]!.resultFilename) : undefined;
  // The simulated engine of an adapter's launch: its GPU tools stand in for the monitor's.
  const simulatedPlan = plan.kind === 'adapter' && plan.simulated ? plan : undefined;
  const simulated = simulatedPlan ? simulatedGpus(launch, plan.deployment.gpu, o.frontierCommand) : undefined;
  // A multi-node point's power is a DCGM power package: made for the simulated engine, else not measured here.
  const multiNode = isMultiNodeRow(plan.launch.rows[0]!);
  const pkg =
    multiNode && simulatedPlan && simulated && !agentic
      ? await startPackagePower({
          runRoot: dir.root,
          logDir,
          clock,
          intervalMs: ctx.powerIntervalMs,
          gpus: simulated,
          placement: simulatedPlan.placement,
          launch,
          label: plan.launch.label,
        })
      : undefined;
  const power = multiNode
    ? noLaunchPower(clock)
    : await startLaunchPower({
        runRoot: dir.root,
        logDir: agentic ?? logDir,
        clock,
        intervalMs: ctx.powerIntervalMs,
        simulated,
        // The monitor carries the run's marker like the engines, so `--resume` and stray checks find it.
        env: { ...process.env, [RUN_MARKER]: logDir },
      });
  if (power.problem) ctx.reporter.note?.(`  ${power.problem}`);
  if (agentic) writeFileAtomic(join(agentic, 'agentic_power_timezone_offset.txt'), `${utcOffset()}\n`, { mkdir: true });
  return { clock, power, pkg };
}

/**
 * Start a launch's processes on this host, wait until they and its endpoint are ready, bench each
 * point in this process, run the launch's evals, and stop every process. A process that exits
 * fails the points it could not serve, with its log's tail.
 */
export async function serveAndBench(ctx: LaunchContext, launch: Launch, logDir: string, o: ServeOptions): Promise<void> {
  const { dir, signal } = ctx;
  const monitor = await startMonitor(ctx, launch, logDir, o);
  const { pkg, power } = monitor;
  const processes = pkg?.processes ?? launch.processes.map((p) => ({ ...p, env: { ...p.env, ...power.engineEnv } }));
  const running = startProcesses(processes, logDir);
  await pkg?.start();
  const serving = new Serving(ctx, launch, logDir, o, running, monitor);
  recordEngines(dir.enginesFile, logDir, running.pids);
  for (const [name, text] of Object.entries(o.written ?? {})) writeFileSync(join(logDir, name), text);
  const stop = (): void => void running.stop();
  signal.addEventListener('abort', stop);
  try {
    await serving.run();
  } finally {
    signal.removeEventListener('abort', stop);
    await serving.finishPackage();
    await power.stop();
    await running.stop();
    clearEngines(dir.enginesFile);
  }
}

/** A launch whose processes run: readiness, then each point, its package and evals. */
class Serving {
  // A package's points are finished together once it is written: its windows need their results.
  private readonly deferred: [PlannedPoint, Measured][] = [];
  // Whether a benchmark has sent the engine a request: a process that dies before is an infrastructure failure.
  private measured = false;

  constructor(
    private readonly ctx: LaunchContext,
    private readonly launch: Launch,
    private readonly logDir: string,
    private readonly o: ServeOptions,
    private readonly running: RunningProcesses,
    private readonly monitor: LaunchMonitor,
  ) {}

  /** The first of the launch's processes that has exited, said with `when` and its log's end. */
  private dead(when: string): string | undefined {
    for (const p of this.launch.processes) {
      const reason = describeExit(this.running, p.name, when);
      if (reason) return reason;
    }
    return undefined;
  }

  async run(): Promise<void> {
    const { ctx, launch } = this;
    if (!(await this.ready())) return;
    const baseUrl = `http://${launch.endpoint.host}:${launch.endpoint.port}`;
    for (const p of ctx.points) {
      if (ctx.signal.aborted) return;
      const before = this.dead('before this point');
      if (before) {
        ctx.finishPoint(p, { status: 'failed', error: before, kind: this.measured ? 'measurement' : 'infrastructure' });
        continue;
      }
      ctx.reporter.pointStart?.(ctx.plan.launch, p);
      this.measured = true;
      const finished = isAgenticRow(p.row) ? await this.replay(p) : await this.bench(p, baseUrl);
      if (!finished) return;
    }
    await this.finishPackage();
    if (ctx.evaluate && !ctx.signal.aborted) {
      const before = this.dead('before the eval');
      if (before) throw new Error(before);
      await ctx.evaluate(baseUrl);
    }
  }

  /** Wait until the processes and the endpoint answer; false when interrupted meanwhile. */
  private async ready(): Promise<boolean> {
    const { ctx, launch, running } = this;
    const { cluster, signal, reporter } = ctx;
    try {
      await waitReady(readyTargets(launch), {
        attempts: cluster.healthCheck.attempts,
        intervalMs: cluster.healthCheck.intervalSeconds * 1000,
        failed: () => (signal.aborted ? 'interrupted' : this.dead('before it was ready')),
        onWait: (attempt, pending) => reporter.waiting?.(ctx.plan.launch, attempt, pending),
      });
      return true;
    } catch (e) {
      if (signal.aborted) return false;
      const tails = launch.processes
        .map((p) => `--- ${p.name}.log ---\n${running.logTail(p.name, LOG_TAIL_BYTES).trimEnd()}`)
        .join('\n');
      const message = (e as Error).message;
      // It never served: the node, the engine's start-up or its health, not a measurement.
      throw new LaunchFailure(
        message.includes('the end of its log')
          ? `${this.o.what} failed to start: ${message}`
          : `${this.o.what} failed to start: ${message}\n${tails}`,
        'infrastructure',
      );
    }
  }

  /** An agentic point: its replay in this process. False when interrupted. */
  private async replay(p: PlannedPoint): Promise<boolean> {
    const { ctx } = this;
    const report = await replayPoint(ctx, p, this.launch, this.o.model);
    if (ctx.signal.aborted) return false;
    await sampleAfterWindow(this.monitor.clock, ctx.powerIntervalMs);
    if (report.failure) await Promise.race([this.running.firstExit, sleep(1000)]);
    const during = this.dead('during the replay');
    const problems = [report.failure, acceptanceProblem(report.acceptance)].filter((x) => x !== undefined);
    ctx.finishPoint(
      p,
      during
        ? { status: 'failed', error: during }
        : { status: problems.length > 0 ? 'invalid' : 'ok', agentic: true, logDir: this.logDir, problems },
    );
    return true;
  }

  /** A fixed-length point: the load generator in this process. False when interrupted. */
  private async bench(p: PlannedPoint, baseUrl: string): Promise<boolean> {
    const { ctx, launch, o } = this;
    const report = await runBench({
      ...benchOptionsOf({
        baseUrl,
        model: o.model,
        isl: o.isl,
        osl: o.osl,
        conc: p.conc,
        client: launch.client,
        specDecodeMetricsUrls: o.specDecodeMetricsUrls ? o.specDecodeMetricsUrls() : specDecodeMetricsUrlsOf(launch),
      }),
      ...(o.sharedCores ? { sharedCores: o.sharedCores } : {}),
      clockAnchorMs: ctx.clockAnchorMs,
      onProgress: (done, total, tokens, elapsedMs) =>
        ctx.reporter.pointProgress?.(ctx.plan.launch, p, done, total, tokens, elapsedMs),
    });
    if (ctx.signal.aborted) return false;
    await sampleAfterWindow(this.monitor.clock, ctx.powerIntervalMs);
    // Requests fail as soon as connections drop, a moment before the exit is reported.
    if (!report.valid) await Promise.race([this.running.firstExit, sleep(1000)]);
    const during = this.dead('during the benchmark');
    const outcome: Measured = {
      status: report.valid ? 'ok' : 'invalid',
      raw: JSON.stringify(report.result),
      problems: report.problems,
    };
    if (during) ctx.finishPoint(p, { status: 'failed', error: during });
    else if (this.monitor.pkg) this.deferred.push([p, outcome]);
    else ctx.finishPoint(p, { ...outcome, telemetry: { csv: this.monitor.power.csv } });
    return true;
  }

  /** Write the power package of the points measured so far, then finish them with it. */
  async finishPackage(): Promise<void> {
    const { ctx } = this;
    const pkg = this.monitor.pkg;
    if (!pkg || this.deferred.length === 0) return;
    const done = this.deferred.splice(0);
    for (const [p, outcome] of done) ctx.dir.writeRaw(p.resultFilename, outcome.raw);
    try {
      await pkg.finish(
        done.map(([p]) => p),
        (p) => ctx.dir.rawFile(p.resultFilename),
      );
    } catch (e) {
      ctx.reporter.note?.(`  the power package could not be written: ${(e as Error).message}`);
    }
    const telemetry = { package: pkg.dir, producer: FRONTIER_POWER_PRODUCER };
    for (const [p, outcome] of done) ctx.finishPoint(p, { ...outcome, telemetry });
  }
}
