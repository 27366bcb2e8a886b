import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { AgenticSettings } from '../launch/index.js';
import { isAgenticRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { DEFAULT_SYNTH_OPTIONS, formatWekaTraces, readTraceFile, synthTraces } from '../traces/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { POSITIVE_INT, parseNumber } from './options.js';
import { pathOption } from './paths.js';

/** `frontier run`'s options for agentic-coding rows. */
export interface AgenticFlags {
  traces?: string;
  agenticDuration?: string;
  agentxFast?: boolean;
}

export function withAgenticOptions(cmd: Command): Command {
  return cmd
    .addOption(
      pathOption(
        '--traces <file>',
        'the trace corpus agentic-coding rows replay (default: a synthetic one, frontier traces synth)',
      ),
    )
    .option('--agentic-duration <s>', 'profiling seconds of every agentic point instead of its row’s duration')
    .option('--agentx-fast', 'agentic points as the agentx-fast label runs them: 1200 s, one warmup request per lane');
}

/** Where the default corpus goes: the run directory, which a Slurm job's nodes see too. */
export const synthCorpusFile = (out: string): string => join(out, 'traces', 'synth.jsonl');

/**
 * The corpus and settings of a run's agentic rows, none without such rows. Without --traces the
 * run replays `frontier traces synth`'s default corpus, written into the run directory (unless
 * `write` is false: a dry run names the file only).
 */
export async function agenticSettings(
  flags: AgenticFlags,
  rows: readonly MatrixRow[],
  out: string,
  write: boolean,
  note: (line: string) => void,
): Promise<AgenticSettings | undefined> {
  if (!rows.some(isAgenticRow)) return undefined;
  const durationS =
    flags.agenticDuration === undefined ? undefined : parseNumber('--agentic-duration', flags.agenticDuration, POSITIVE_INT);
  const common = { durationS, fast: flags.agentxFast === true };
  if (flags.traces !== undefined) {
    const file = resolve(flags.traces);
    return { ...common, tracesFile: file, traces: write ? await readTraceFile(file) : [] };
  }
  const file = synthCorpusFile(out);
  if (!write) return { ...common, tracesFile: file, traces: [] };
  const traces = synthTraces(DEFAULT_SYNTH_OPTIONS);
  writeFileAtomic(file, formatWekaTraces(traces), { mkdir: true });
  note(
    `agentic rows replay a synthetic corpus (frontier traces synth, seed ${DEFAULT_SYNTH_OPTIONS.seed}): ${file}; --traces FILE replays a recorded one`,
  );
  return { ...common, tracesFile: file, traces };
}
