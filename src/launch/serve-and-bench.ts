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
import type { PlannedPoint } from '../plan/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { utcOffset } from '../util/date.js';
import type { VirtualClock } from '../util/virtual-clock.js';
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

/** A local run's nodes share this host: names that tell them apart in its power telemetry. */

function readyTargets(launch: Launch): ReadyTarget[] {
  const targets: ReadyTarget[] = [];
  for (const p of launch.processes)
    for (const probe of p.ready ?? []) targets.push({ url: `http://${p.host}:${p.port}${probe.path}`, contains: probe.contains });
  const { host, port } = launch.endpoint;
  for (const probe of launch.ready) targets.push({ url: `http://${host}:${port}${probe.path}`, contains: probe.contains });
  return targets;
}

/**
 * Start a launch's processes on this host, wait until they and its endpoint are ready, bench each
 * point in this process, run the launch's evals, and stop every process. A process that exits
 * fails the points it could not serve, with its log's tail.
 */
export async function serveAndBench(
  ctx: LaunchContext,
  launch: Launch,
  logDir: string,
  o: {
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
  },
): Promise<void> {
  const { points, dir, reporter, signal, cluster } = ctx;
  const { plan } = ctx;
  const g = plan.launch;
  const clock = { scale: launch.client.timeScale, anchorMs: ctx.clockAnchorMs };
  // An agentic point's telemetry goes beside its replay's artifacts, where InferenceX's power adapter reads it.
  const agentic = points.length === 1 && isAgenticRow(points[0]!.row) ? dir.agenticDir(points[0]!.resultFilename) : undefined;
  // The simulated engine of an adapter's launch: its GPU tools stand in for the monitor's.
  const simulatedPlan = plan.kind === 'adapter' && plan.simulated ? plan : undefined;
  const simulated = simulatedPlan ? simulatedGpus(launch, plan.deployment.gpu, o.frontierCommand) : undefined;
  // A multi-node point's power is a DCGM power package: made for the simulated engine, else not measured here.
  const multiNode = isMultiNodeRow(g.rows[0]!);
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
          label: g.label,
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
  if (power.problem) reporter.note?.(`  ${power.problem}`);
  if (agentic) writeFileAtomic(join(agentic, 'agentic_power_timezone_offset.txt'), `${utcOffset()}\n`, { mkdir: true });
  const processes = pkg?.processes ?? launch.processes.map((p) => ({ ...p, env: { ...p.env, ...power.engineEnv } }));
  const running = startProcesses(processes, logDir);
  await pkg?.start();
  // A package's points are finished together once it is written: its windows need their results.
  const deferred: [PlannedPoint, { status: 'ok' | 'invalid'; raw: string; problems: string[] }][] = [];
  const finishPackage = async (): Promise<void> => {
    if (!pkg || deferred.length === 0) return;
    const done = deferred.splice(0);
    for (const [p, outcome] of done) dir.writeRaw(p.resultFilename, outcome.raw);
    try {
      await pkg.finish(
        done.map(([p]) => p),
        (p) => dir.rawFile(p.resultFilename),
      );
    } catch (e) {
      reporter.note?.(`  the power package could not be written: ${(e as Error).message}`);
    }
    const telemetry = { package: pkg.dir, producer: FRONTIER_POWER_PRODUCER };
    for (const [p, outcome] of done) ctx.finishPoint(p, { ...outcome, telemetry });
  };
  recordEngines(dir.enginesFile, logDir, running.pids);
  for (const [name, text] of Object.entries(o.written ?? {})) writeFileSync(join(logDir, name), text);
  const stop = (): void => void running.stop();
  signal.addEventListener('abort', stop);
  const dead = (when: string): string | undefined => {
    for (const p of launch.processes) {
      const reason = describeExit(running, p.name, when);
      if (reason) return reason;
    }
    return undefined;
  };
  try {
    try {
      await waitReady(readyTargets(launch), {
        attempts: cluster.healthCheck.attempts,
        intervalMs: cluster.healthCheck.intervalSeconds * 1000,
        failed: () => (signal.aborted ? 'interrupted' : dead('before it was ready')),
        onWait: (attempt, pending) => reporter.waiting?.(g, attempt, pending),
      });
    } catch (e) {
      if (signal.aborted) return;
      const tails = launch.processes
        .map((p) => `--- ${p.name}.log ---\n${running.logTail(p.name, LOG_TAIL_BYTES).trimEnd()}`)
        .join('\n');
      const message = (e as Error).message;
      throw new Error(
        message.includes('the end of its log')
          ? `${o.what} failed to start: ${message}`
          : `${o.what} failed to start: ${message}\n${tails}`,
      );
    }
    const baseUrl = `http://${launch.endpoint.host}:${launch.endpoint.port}`;
    for (const p of points) {
      if (signal.aborted) return;
      const before = dead('before this point');
      if (before) {
        ctx.finishPoint(p, { status: 'failed', error: before });
        continue;
      }
      reporter.pointStart?.(g, p);
      if (isAgenticRow(p.row)) {
        const report = await replayPoint(ctx, p, launch, o.model);
        if (signal.aborted) return;
        await sampleAfterWindow(clock, ctx.powerIntervalMs);
        if (report.failure) await Promise.race([running.firstExit, sleep(1000)]);
        const during = dead('during the replay');
        const problems = [report.failure, acceptanceProblem(report.acceptance)].filter((x) => x !== undefined);
        ctx.finishPoint(
          p,
          during
            ? { status: 'failed', error: during }
            : { status: problems.length > 0 ? 'invalid' : 'ok', agentic: true, logDir, problems },
        );
        continue;
      }
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
        onProgress: (done, total, tokens, elapsedMs) => reporter.pointProgress?.(g, p, done, total, tokens, elapsedMs),
      });
      if (signal.aborted) return;
      await sampleAfterWindow(clock, ctx.powerIntervalMs);
      // Requests fail as soon as connections drop, a moment before the exit is reported.
      if (!report.valid) await Promise.race([running.firstExit, sleep(1000)]);
      const during = dead('during the benchmark');
      const outcome = {
        status: report.valid ? ('ok' as const) : ('invalid' as const),
        raw: JSON.stringify(report.result),
        problems: report.problems,
      };
      if (during) ctx.finishPoint(p, { status: 'failed', error: during });
      else if (pkg) deferred.push([p, outcome]);
      else ctx.finishPoint(p, { ...outcome, telemetry: { csv: power.csv } });
    }
    await finishPackage();
    if (ctx.evaluate && !signal.aborted) {
      const before = dead('before the eval');
      if (before) throw new Error(before);
      await ctx.evaluate(baseUrl);
    }
  } finally {
    signal.removeEventListener('abort', stop);
    await finishPackage();
    await power.stop();
    await running.stop();
    clearEngines(dir.enginesFile);
  }
}
