import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { LaunchContext, Reporter } from './run.js';

/**
 * The Slurm commands a run needs: submit (`sbatch`), a job's state (`squeue`, then `scontrol show
 * job`: sacct needs slurmdbd, which many clusters lack), cancel (`scancel`), and follow a job until
 * it ends, cancelling it when the run is interrupted. Knows nothing of what a launch submits.
 */

const exec = promisify(execFile);

export interface FollowedJob {
  id: string;
  state: string | undefined;
  /** The nodes it ran on (Slurm's names), as far as Slurm still says once it has ended. */
  nodes: string[];
}

/**
 * Where a followed job's id goes as soon as it is known (the launch's record, saved), and what is
 * said of it; `exclude`: the nodes an sbatch submission may not use (`--exclude`); `ran`: where
 * the nodes it ran on go once it has ended (the launch's attempt).
 */
export interface JobWatch {
  reporter: Reporter;
  signal: AbortSignal;
  submitted(id: string): void;
  exclude?: readonly string[] | undefined;
  ran?(nodes: string[]): void;
}

/** What every Slurm job of a run needs: the client, how to run frontier on the nodes, the first port, the poll interval. */
export interface SlurmRunSettings {
  slurm: SlurmClient;
  frontierCommand: string[];
  basePort: number;
  pollMs: number;
}

/** A launch's job watch: its id kept in the launch's record, saved at once (so --resume can cancel it). */
export const jobWatchOf = (ctx: LaunchContext): JobWatch => ({
  reporter: ctx.reporter,
  signal: ctx.signal,
  submitted: (id) => {
    ctx.record.job = id;
    ctx.save();
  },
  exclude: ctx.attempt.exclude,
  ran: (nodes) => {
    ctx.attempt.nodes = nodes;
  },
});

export const isActive = (state: string | undefined): boolean =>
  state !== undefined && ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED'].includes(state);

export class SlurmClient {
  constructor(
    readonly env: NodeJS.ProcessEnv,
    private readonly pollMs: number,
  ) {}

  async command(command: string, args: string[]): Promise<string> {
    try {
      return (await exec(command, args, { env: this.env, encoding: 'utf8' })).stdout;
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`${command} ${args.join(' ')}: ${(err.stderr ?? '').trim() || err.message}`);
    }
  }

  /** The job's state, undefined once Slurm has forgotten it. */
  async state(id: string): Promise<string | undefined> {
    const queued = (await this.command('squeue', ['-h', '-j', id, '-o', '%T']).catch(() => '')).trim();
    if (queued) return queued;
    const shown = await this.command('scontrol', ['show', 'job', id, '-o']).catch(() => '');
    return /JobState=(\S+)/.exec(shown)?.[1];
  }

  /** The nodes job `id` was given (`scontrol show job`'s NodeList, expanded); none when Slurm no longer says. */
  async nodesOf(id: string): Promise<string[]> {
    const shown = await this.command('scontrol', ['show', 'job', id, '-o']).catch(() => '');
    const list = /(?:^|\s)NodeList=(\S+)/.exec(shown)?.[1];
    if (!list || list === '(null)') return [];
    const names = await this.command('scontrol', ['show', 'hostnames', list]).catch(() => list);
    return names.split(/[\s,]+/).filter(Boolean);
  }

  /** The ids of the queued jobs named `name`. */
  async named(name: string): Promise<string[]> {
    return (await this.command('squeue', ['-h', '--name', name, '-o', '%A']).catch(() => '')).split('\n').filter(Boolean);
  }

  /** Cancel job `id` and wait (up to 30 s) until the queue no longer lists it. */
  async cancel(id: string): Promise<void> {
    await this.command('scancel', [id]).catch(() => undefined);
    for (let i = 0; i < 60 && (await this.command('squeue', ['-h', '-j', id, '-o', '%T']).catch(() => '')).trim(); i++)
      await sleep(500);
  }

  /**
   * Submit a job (a job script for sbatch, with the watch's `--exclude`, or a submitter that says the
   * job's id) and follow it until it ends: its id, final state and nodes; undefined when the run was
   * interrupted (the job cancelled).
   */
  async follow(watch: JobWatch, submit: string | (() => Promise<string>)): Promise<FollowedJob | undefined> {
    const exclude = watch.exclude && watch.exclude.length > 0 ? [`--exclude=${watch.exclude.join(',')}`] : [];
    const id =
      typeof submit === 'string'
        ? (await this.command('sbatch', ['--parsable', ...exclude, submit])).trim().split(';')[0]!
        : await submit();
    watch.submitted(id);
    watch.reporter.note?.(`  submitted job ${id}`);
    let last: string | undefined;
    for (;;) {
      if (watch.signal.aborted) {
        await this.cancel(id);
        return undefined;
      }
      const state = await this.state(id);
      if (state !== last) watch.reporter.note?.(`  job ${id}: ${state ?? 'gone'}`);
      last = state;
      if (!isActive(state)) {
        const nodes = await this.nodesOf(id);
        watch.ran?.(nodes);
        return { id, state, nodes };
      }
      await sleep(this.pollMs);
    }
  }
}
