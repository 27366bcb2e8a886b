// The throw-away Slurm cluster of test/support/slurm.ts, checked against the real daemons (Debian slurm-wlm + munge):
// a two-node batch job whose srun steps land on distinct nodes, scancel, and fake-GPU gres allocation.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { waitFor } from '../support/wait.js';

const execFileAsync = promisify(execFile);
const JOB_TIMEOUT_MS = 20_000;
const TERMINAL = new Set(['COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE']);

let slurm: LocalSlurm;

beforeAll(async () => {
  slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 8 });
}, 60_000);

afterAll(async () => {
  await slurm?.stop();
});

async function slurmCommand(command: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(command, args, {
    env: { ...process.env, ...slurm.env },
    timeout: 15_000,
    encoding: 'utf8',
  });
  return stdout;
}

/** Write `body` as an executable script in the cluster's dir and submit it; the job id. */
async function sbatch(name: string, body: string, args: string[]): Promise<string> {
  const script = join(slurm.dir, `${name}.sh`);
  writeFileSync(script, body, { mode: 0o755 });
  const out = await slurmCommand('sbatch', [
    '--parsable',
    `--chdir=${slurm.dir}`,
    `--output=${slurm.dir}/${name}-%j.out`,
    ...args,
    script,
  ]);
  const id = out.trim().split(';')[0] ?? '';
  expect(id).toMatch(/^\d+$/);
  return id;
}

/** `scontrol show job ID` as key → value (the first occurrence of each key). */
async function showJob(id: string): Promise<Record<string, string>> {
  const out = await slurmCommand('scontrol', ['show', 'job', '--oneliner', '--details', id]);
  const fields: Record<string, string> = {};
  for (const match of out.trim().matchAll(/(?:^|\s)([A-Za-z:/]+)=(\S*)/g)) {
    const [, key = '', value = ''] = match;
    if (!(key in fields)) fields[key] = value;
  }
  return fields;
}

async function squeueState(id: string): Promise<string> {
  return (await slurmCommand('squeue', ['-j', id, '-h', '-o', '%T'])).trim();
}

/** Follow the job with squeue until it has left the queue, then its final state from `scontrol show job`. */
async function waitForJob(id: string): Promise<Record<string, string>> {
  let queued = '';
  return waitFor(
    async () => {
      queued = await squeueState(id);
      if (queued !== '') return undefined;
      const job = await showJob(id);
      return TERMINAL.has(job.JobState ?? '') ? job : undefined;
    },
    {
      timeoutMs: JOB_TIMEOUT_MS,
      intervalMs: 100,
      what: () => `job ${id} to end (still ${queued || 'not final'})\n${slurm.logs()}`,
    },
  );
}

async function waitForState(id: string, state: string): Promise<void> {
  let last = '';
  await waitFor(async () => (last = await squeueState(id)) === state, {
    timeoutMs: JOB_TIMEOUT_MS,
    intervalMs: 100,
    what: () => `job ${id} to be ${state} (squeue: ${last || 'not queued'})\n${slurm.logs()}`,
  });
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

describe('local Slurm cluster', () => {
  it('has every node idle in its partition, with the fake GPUs as gres', async () => {
    expect(slurm.nodeNames).toEqual(['n1', 'n2']);
    const sinfo = await slurmCommand('sinfo', ['-h', '-N', '-p', slurm.partition, '-o', '%N %T %c %G']);
    expect(sinfo.trim().split('\n').sort()).toEqual(['n1 idle 2 gpu:8', 'n2 idle 2 gpu:8']);
  });

  it('runs a two-node batch job whose srun steps land on distinct nodes, and reports it COMPLETED', async () => {
    const [first = '', second = ''] = slurm.nodeNames;
    const body = [
      '#!/bin/bash',
      'set -euo pipefail',
      'pids=()',
      `for node in ${first} ${second}; do`,
      `  srun --overlap --nodes=1 --ntasks=1 --nodelist="$node" bash -c 'echo "$SLURMD_NODENAME $(hostname) $SLURM_STEP_ID" > "step-$SLURMD_NODENAME.txt"' &`,
      '  pids+=($!)',
      'done',
      'for pid in "${pids[@]}"; do wait "$pid"; done',
      'echo "batch on $SLURMD_NODENAME of $SLURM_JOB_NODELIST"',
    ].join('\n');
    const id = await sbatch('two-nodes', `${body}\n`, ['--nodes=2', '--ntasks-per-node=1', '--time=1']);
    const job = await waitForJob(id);
    const output = readFileSync(join(slurm.dir, `two-nodes-${id}.out`), 'utf8');
    expect(job.JobState, `${output}\n${slurm.logs()}`).toBe('COMPLETED');
    expect(job.ExitCode).toBe('0:0');
    expect(job.NumNodes).toBe('2');
    expect(job.NodeList).toBe('n[1-2]');
    expect(output).toContain(`batch on ${first} of n[1-2]`);
    const steps = slurm.nodeNames.map((node) =>
      readFileSync(join(slurm.dir, `step-${node}.txt`), 'utf8')
        .trim()
        .split(' '),
    );
    expect(steps.map(([node]) => node)).toEqual([first, second]);
    // Two steps, not one step run twice.
    expect(new Set(steps.map((step) => step[2])).size).toBe(2);
    // squeue has forgotten it; `scontrol show job` keeps it (MinJobAge=300).
    expect(await squeueState(id)).toBe('');
  });

  it('scancel ends a running job and its processes; the job becomes CANCELLED', async () => {
    const id = await sbatch('sleeper', '#!/bin/bash\necho $$ > sleeper.pid\nexec sleep 300\n', ['--nodes=1', '--time=5']);
    await waitForState(id, 'RUNNING');
    const pidFile = join(slurm.dir, 'sleeper.pid');
    const pid = Number(
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), {
        timeoutMs: JOB_TIMEOUT_MS,
        intervalMs: 50,
        what: `job ${id} to write its pid to ${pidFile}`,
      }),
    );
    expect(isRunning(pid)).toBe(true);
    await slurmCommand('scancel', [id]);
    const job = await waitForJob(id);
    expect(job.JobState).toBe('CANCELLED');
    await waitFor(() => !isRunning(pid), {
      timeoutMs: JOB_TIMEOUT_MS,
      intervalMs: 50,
      what: `the cancelled job's process ${pid} to end`,
    });
  });

  it('allocates fake GPUs with --gpus-per-node and exports them to the job and its steps', async () => {
    const body = [
      '#!/bin/bash',
      'set -euo pipefail',
      'echo "batch $SLURM_GPUS_PER_NODE $CUDA_VISIBLE_DEVICES"',
      // Each node's GPU indices (only while the job runs: a finished job's `scontrol -d show job` has no GRES=).
      'scontrol --details show job "$SLURM_JOB_ID" | grep -o "Nodes=.* GRES=[^ ]*" | sed "s/ CPU_IDs.* GRES=/ /"',
      `srun --overlap --nodes=2 --ntasks=2 --ntasks-per-node=1 bash -c 'echo "step $SLURMD_NODENAME $SLURM_GPUS_PER_NODE $CUDA_VISIBLE_DEVICES"'`,
    ].join('\n');
    const id = await sbatch('gpus', `${body}\n`, ['--nodes=2', '--gpus-per-node=2', '--time=1']);
    const job = await waitForJob(id);
    const output = readFileSync(join(slurm.dir, `gpus-${id}.out`), 'utf8');
    expect(job.JobState, output).toBe('COMPLETED');
    expect(job.TresPerNode).toBe('gres:gpu:2');
    const lines = output.trim().split('\n');
    expect(lines[0]).toBe('batch 2 0,1');
    expect(lines[1]).toBe('Nodes=n[1-2] gpu:2(IDX:0-1)');
    expect(lines.slice(2).sort()).toEqual(['step n1 2 0,1', 'step n2 2 0,1']);
  });

  it('rejects more GPUs per node than the nodes have', async () => {
    await expect(
      slurmCommand('sbatch', ['--parsable', '--gpus-per-node=9', '--output=/dev/null', '--wrap', 'true']),
    ).rejects.toThrow(/Requested node configuration is not available/);
  });
});
