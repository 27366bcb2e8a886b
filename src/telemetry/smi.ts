/**
 * The vendor tools, as InferenceX's benchmark_lib.sh runs them (start_gpu_monitor /
 * stop_gpu_monitor): nvidia-smi's CSV loop with a post-exit one-shot sample, and amd-smi's watch
 * mode filtered to one header and flushed row by row, with energy-accumulator snapshots around it.
 * Their rows are written as the tools print them: the tools' own timestamps, in their TZ.
 */
import { appendFileSync, closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { countDataRows, newSummary, repairTruncatedTail, sidecarPath, writeSummary, writeTimezoneFile } from './common.js';
import type { SamplerHandle, SamplerSummary } from './common.js';
import { ToolProcess, runOnce } from './tool.js';

export const NVIDIA_QUERY =
  'timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory';

export interface ToolSamplerOptions {
  dir: string;
  csvName: string;
  intervalMs: number;
  env: NodeJS.ProcessEnv;
  /** The tool's resolved path. */
  tool: string;
  amdSettleMs?: number;
  log: (line: string) => void;
}

function finish(summary: SamplerSummary, proc: ToolProcess, csv: string): void {
  summary.stopped_at = new Date().toISOString();
  summary.exit_code = proc.exitCode;
  summary.exit_signal = proc.exitSignal;
  summary.died_before_stop = proc.diedBeforeStop;
  summary.samples = countDataRows(csv);
  if (proc.spawnError) summary.warnings.push(`could not run ${summary.source}: ${proc.spawnError.message}`);
  if (proc.stderrTail) summary.stderr_tail = proc.stderrTail;
}

function diedWarning(source: string, proc: ToolProcess): string {
  const how = proc.exitSignal ? `signal ${proc.exitSignal}` : `code ${String(proc.exitCode)}`;
  return `${source} exited before stop (${how}): samples end where it died`;
}

/** `nvidia-smi --query-gpu=… --format=csv -lms MS > <csv>`. */
export function startNvidiaSmi(o: ToolSamplerOptions): SamplerHandle {
  const csv = join(o.dir, o.csvName);
  const args = [`--query-gpu=${NVIDIA_QUERY}`, '--format=csv', '-lms', String(o.intervalMs)];
  const summary = newSummary('nvidia-smi', o.csvName, ['nvidia-smi', ...args], o.intervalMs);
  writeTimezoneFile(o.dir, o.csvName, o.env);
  const fd = openSync(csv, 'w');
  let proc: ToolProcess;
  try {
    proc = new ToolProcess(o.tool, args, o.env, fd);
  } finally {
    closeSync(fd);
  }
  writeSummary(o.dir, o.csvName, summary);
  o.log(`[GPU Monitor] Started NVIDIA (PID=${String(proc.child.pid)}, interval=${o.intervalMs}ms, output=${csv})`);

  let stopped: Promise<SamplerSummary> | undefined;
  const stop = async (): Promise<SamplerSummary> => {
    const died = !proc.alive();
    await proc.stop();
    if (repairTruncatedTail(csv)) {
      summary.warnings.push('dropped truncated trailing sample');
      o.log('[GPU Monitor] Dropped truncated trailing sample');
    }
    if (died || proc.diedBeforeStop) {
      summary.warnings.push(diedWarning('nvidia-smi', proc));
    } else {
      // The benchmark's end is stamped a moment before it exits: one more sample brackets it.
      const last = await runOnce(o.tool, [`--query-gpu=${NVIDIA_QUERY}`, '--format=csv,noheader'], o.env);
      if (last.stdout) appendFileSync(csv, last.stdout);
      if (!last.ok) {
        summary.warnings.push(`final NVIDIA sample failed: ${last.detail}`);
        o.log('[GPU Monitor] Warning: final NVIDIA sample failed');
      }
    }
    finish(summary, proc, csv);
    writeSummary(o.dir, o.csvName, summary);
    o.log(`[GPU Monitor] Stopped (PID=${String(proc.child.pid)}); ${summary.samples} rows -> ${csv}`);
    return summary;
  };
  return {
    source: 'nvidia-smi',
    csvPath: csv,
    alive: () => proc.alive(),
    stop: () => (stopped ??= stop()),
  };
}

/** Whole seconds for amd-smi's `-w` (at least 1). */
export const amdIntervalS = (intervalMs: number): number => Math.max(1, Math.round(intervalMs / 1000));

const HEADER = /^timestamp,/;

/**
 * `PYTHONUNBUFFERED=1 amd-smi metric -p -c -t -u -w S --csv | awk … > <csv>`: the preamble
 * dropped, the first `timestamp,…` header kept and later ones dropped, every row written at once.
 * Energy (`metric -E --csv`) and identity (`static --json`) snapshots beside it.
 */
export async function startAmdSmi(o: ToolSamplerOptions): Promise<SamplerHandle> {
  const csv = join(o.dir, o.csvName);
  const intervalS = amdIntervalS(o.intervalMs);
  const args = ['metric', '-p', '-c', '-t', '-u', '-w', String(intervalS), '--csv'];
  const summary = newSummary('amd-smi', o.csvName, ['amd-smi', ...args], intervalS * 1000);
  writeTimezoneFile(o.dir, o.csvName, o.env);
  const fd = openSync(csv, 'w');
  let headerSeen = false;
  let partial = '';
  let stopAsked = false;
  const before = new Set<string>();
  const after = new Set<string>();
  let onTick: (() => void) | undefined;

  let fdOpen = true;
  let writeError: string | undefined;
  const write = (text: string): void => {
    if (!fdOpen || writeError) return;
    try {
      writeSync(fd, `${text}\n`);
    } catch (e) {
      // A full disk must not crash the run: the sampler reports it at stop.
      writeError = (e as Error).message;
    }
  };
  const line = (text: string): void => {
    if (HEADER.test(text)) {
      if (!headerSeen) {
        write(text);
        headerSeen = true;
      }
      return;
    }
    if (!headerSeen) return;
    write(text);
    const stamp = text.split(',', 1)[0] ?? '';
    if (!stopAsked) before.add(stamp);
    else if (!before.has(stamp)) {
      after.add(stamp);
      onTick?.();
    }
  };

  const proc = new ToolProcess(o.tool, args, { ...o.env, PYTHONUNBUFFERED: '1' }, 'pipe');
  proc.child.stdout?.setEncoding('utf8');
  proc.child.stdout?.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const p of parts) line(p);
  });
  writeSummary(o.dir, o.csvName, summary);

  const snapshot = async (suffix: string, snapArgs: string[]): Promise<void> => {
    const path = sidecarPath(o.dir, o.csvName, suffix);
    const r = await runOnce(o.tool, snapArgs, o.env);
    if (r.ok) writeFileSync(path, r.stdout);
    else {
      rmSync(path, { force: true });
      summary.warnings.push(`amd-smi ${snapArgs[0] ?? ''} sidecar failed: ${r.detail}`);
      o.log(`[GPU Monitor] Warning: amd-smi ${snapArgs[0] ?? ''} sidecar failed`);
    }
  };
  await snapshot('_energy_start.csv', ['metric', '-E', '--csv']);
  await snapshot('_identity.json', ['static', '--json']);
  o.log(`[GPU Monitor] Started AMD (PID=${String(proc.child.pid)}, interval=${intervalS}s, output=${csv})`);

  let stopped: Promise<SamplerSummary> | undefined;
  const stop = async (): Promise<SamplerSummary> => {
    const died = !proc.alive();
    if (!died) {
      // amd-smi stamps whole seconds: the window's end is bracketed only by a tick at a later
      // second. The reference sleeps interval + 2 s; three whole new ticks end the wait sooner.
      stopAsked = true;
      const settleMs = o.amdSettleMs ?? (intervalS + 2) * 1000;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, settleMs);
        const check = (): void => {
          // A fourth new stamp shows the third tick complete (every GPU's row written).
          if (after.size >= 4) {
            clearTimeout(timer);
            resolve();
          }
        };
        onTick = check;
        void proc.done.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await proc.stop();
    // The reference kills the filter: a row it had not finished reading is not written.
    partial = '';
    fdOpen = false;
    closeSync(fd);
    if (writeError) summary.warnings.push(`writing ${o.csvName} failed: ${writeError}`);
    if (repairTruncatedTail(csv)) summary.warnings.push('dropped truncated trailing sample');
    if (died || proc.diedBeforeStop) summary.warnings.push(diedWarning('amd-smi', proc));
    else await snapshot('_energy_end.csv', ['metric', '-E', '--csv']);
    if (!headerSeen) summary.warnings.push('amd-smi printed no timestamp header: no samples');
    finish(summary, proc, csv);
    writeSummary(o.dir, o.csvName, summary);
    o.log(`[GPU Monitor] Stopped (PID=${String(proc.child.pid)}); ${summary.samples} rows -> ${csv}`);
    return summary;
  };
  return {
    source: 'amd-smi',
    csvPath: csv,
    alive: () => proc.alive(),
    stop: () => (stopped ??= stop()),
  };
}
