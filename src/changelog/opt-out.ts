/**
 * A change's explicit opt-out of its sweep: maintainers who change matrix rows on purpose without
 * re-running them (a label fix, a point dropped because it hangs) say so, and the gate records it.
 * InferenceX's own marker is `[skip-sweep]` in the head commit's message (run-sweep.yml greps
 * for it); `no-sweep: <reason>` on a line of the pull request description or the commit message
 * gives the reason too.
 */
export interface NoSweep {
  /** Where the opt-out was written, e.g. `commit 1a2b3c4` or `pull request description`. */
  source: string;
  reason: string;
}

const SKIP_SWEEP = '[skip-sweep]';
const NO_SWEEP_LINE = /^\s*no-sweep:\s*(\S.*?)\s*$/im;

/** The opt-out a text (a commit message or a pull request description) states, if any. */
export function sweepOptOut(text: string, source: string): NoSweep | undefined {
  const line = NO_SWEEP_LINE.exec(text);
  if (line) return { source, reason: line[1]! };
  if (!text.includes(SKIP_SWEEP)) return undefined;
  // The line carrying the tag says what the commit did; that is the reason on record.
  const tagged = text.split('\n').find((l) => l.includes(SKIP_SWEEP))!;
  const reason = tagged
    .replace(SKIP_SWEEP, ' ')
    .replace(/^[\s*-]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return { source, reason: `${SKIP_SWEEP}${reason ? ` ${reason}` : ''}` };
}
