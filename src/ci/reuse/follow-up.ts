/** The commands that carry out an enabled reuse: check the downloaded artifacts, then ingest them. */
import type { ReuseSource } from './decide.js';

const shellWord = (w: string): string => (/^[\w./:@%+=,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * `frontier ingest DIR --source-run SOURCE --run-id THIS --official`: the source run's results,
 * published by this (merge) run. `--attempt` is the source run's attempt (ingest reads it so).
 */
export function ingestCommand(source: ReuseSource, thisRunId: string | undefined, artifactsDir: string): string {
  const words = [
    'frontier',
    'ingest',
    artifactsDir,
    '--source-run',
    source.runId,
    '--run-id',
    thisRunId ?? THIS_RUN,
    '--official',
  ];
  if (source.runAttempt !== '' && source.runAttempt !== '1') words.push('--attempt', source.runAttempt);
  return words.map((w) => (w === THIS_RUN ? w : shellWord(w))).join(' ');
}

/** Stands for the merge run's id where it is not known yet (a comment, or outside Actions). */
export const THIS_RUN = '"$GITHUB_RUN_ID"';

export function validateCommand(artifactsDir: string): string {
  return ['frontier', 'ci', 'reuse', 'validate', '--artifacts-dir', artifactsDir].map(shellWord).join(' ');
}

export function downloadCommand(source: ReuseSource, artifactsDir: string): string {
  return ['gh', 'run', 'download', source.runId, '-D', artifactsDir].map(shellWord).join(' ');
}
