import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SaturationMonitor } from '../../src/bench/saturation.js';
import { onHosts, planLaunch, planRun } from '../../src/plan/index.js';
import { LOCAL_PROFILE } from '../../src/clusters/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import { singleRow } from './fixtures.js';

/** The llama.cpp launch of one CPU row on a cluster: its `-t` and the threads it declares. */
function llamaThreads(cluster: ClusterProfile): { flag: string; threads: number | undefined } {
  const row = singleRow({ framework: 'llama.cpp', runner: 'cpu', precision: 'q8', model: 'tiny', 'model-prefix': 'tiny' });
  const plan = planLaunch(planRun([row], cluster.name)[0]!, { cluster, frontierCommand: ['frontier'] });
  if (plan.kind !== 'adapter') throw new Error(`planned as ${plan.kind}`);
  let port = 8000;
  const launch = plan.adapter.launch(
    plan.deployment,
    onHosts(plan.placement, () => '127.0.0.1'),
    { next: () => port++ },
  );
  const { command, threads } = launch.processes[0]!;
  return { flag: command[command.indexOf('-t') + 1]!, threads };
}

describe('a CPU engine on the client’s machine', () => {
  it('llama.cpp leaves the client a core unless the profile sets its threads', () => {
    const cores = availableParallelism();
    expect(llamaThreads(LOCAL_PROFILE)).toEqual({ flag: String(Math.max(1, cores - 1)), threads: Math.max(1, cores - 1) });
    const pinned = { ...LOCAL_PROFILE, engines: { 'llama.cpp': { threads: 3 } } };
    expect(llamaThreads(pinned)).toEqual({ flag: '3', threads: 3 });
    // On Slurm the engine's node is not this machine: its cores are unknown here.
    expect(llamaThreads({ ...LOCAL_PROFILE, scheduler: 'slurm' }).flag).toBe('1');
  });

  it('a client kept waiting for a core is invalid, and the reason names the cores it shares with the engine', async () => {
    // The loop stalls without using CPU (as when the engine holds the cores): late, not busy.
    const stalled = async (shared?: { cores: number; engine: string }) => {
      const monitor = new SaturationMonitor();
      monitor.start();
      const cell = new Int32Array(new SharedArrayBuffer(4));
      for (let i = 0; i < 5; i++) {
        Atomics.wait(cell, 0, 0, 200);
        // Part of the test, not a wait for anything: the loop turns between stalls, so the monitor sees each delay.
        await sleep(20);
      }
      return monitor.stop(shared);
    };
    const shared = await stalled({ cores: 2, engine: 'llama.cpp, 1 thread' });
    expect(shared.saturated).toBe(true);
    expect(shared.reasons).toHaveLength(1);
    expect(shared.reasons[0]).toMatch(
      /^event-loop delay p99 \d+\.\d ms > 50 ms while it used only \d+% of a core: it waited for a CPU, as it shares this machine's 2 cores with the engine \(llama\.cpp, 1 thread\)/,
    );
    expect(shared.reasons[0]).toContain("leave it a core (the engine's threads option in the cluster profile, where it has one)");
    const alone = await stalled();
    expect(alone.reasons).toEqual([expect.stringMatching(/^event-loop delay p99 \d+\.\d ms > 50 ms$/)]);
  });
});
