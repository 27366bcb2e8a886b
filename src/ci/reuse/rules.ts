/**
 * Who may ask for sweep reuse, which pull requests may have it, and how the ask is written:
 * InferenceX's `/reuse-sweep-run [run id]` (utils/find_reusable_sweep_run.py, run-sweep.yml).
 */

export const REUSE_COMMAND = '/reuse-sweep-run';

/** GitHub author_association values whose comment counts as an authorization. */
export const ALLOWED_ASSOCIATIONS: readonly string[] = ['OWNER', 'MEMBER', 'COLLABORATOR'];

/** The full-sweep labels: a pull request needs one of them for its sweep to be reusable. */
export const FULL_SWEEP_LABELS: readonly string[] = [
  'full-sweep-enabled',
  'non-canary-full-sweep-enabled',
  'full-sweep-fail-fast',
  'full-sweep-fail-fast-no-canary',
];

/** Labels whose sweeps are partial by design (evals only, a fast agentic subset): never reusable. */
export const INCOMPATIBLE_LABELS: readonly string[] = ['evals-only', 'agentx-fast'];

/** The workflow whose pull-request runs are reused. */
export const SWEEP_WORKFLOW = 'run-sweep.yml';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * The reuse asks in a comment body, in order: each is `null` (no run id: use the latest run) or
 * the pinned run id. The command must stand on a line of its own (surrounding blanks allowed), as
 * the reference's `(?m)^\s*CMD(?:\s+(\d+))?\s*$`: a mention inside a sentence is not an ask.
 */
export function reuseAsks(body: string, command = REUSE_COMMAND): (string | null)[] {
  // Python's `\s` and `$` under (?m): `$` matches before a newline; `\s` spans newlines, so the
  // run id may follow on the next line, exactly as the reference reads it.
  const pattern = new RegExp(`^\\s*${escapeRegExp(command)}(?:\\s+(\\d+))?\\s*$`, 'gm');
  return [...body.matchAll(pattern)].map((m) => m[1] ?? null);
}

export interface RecordedComment {
  body: string;
  association: string;
  createdAt: string;
  author: string;
}

export interface Authorization {
  authorized: boolean;
  /** The pinned run id, or null: use the latest qualifying run. */
  pinnedRunId: string | null;
  /** The comment that decided (the newest allowed one carrying the command). */
  comment?: RecordedComment;
}

/**
 * The newest comment by an allowed author that carries the command decides; within it the last
 * command line is the final intent (so a newer bare command un-pins an older pinned one).
 */
export function findAuthorization(
  comments: readonly RecordedComment[],
  allowed: readonly string[] = ALLOWED_ASSOCIATIONS,
  command = REUSE_COMMAND,
): Authorization {
  // A stable sort by created_at as text, newest last, then walk back: the reference's order.
  const ordered = comments.map((c, i) => ({ c, i })).sort((a, b) => cmp(a.c.createdAt, b.c.createdAt) || a.i - b.i);
  for (let k = ordered.length - 1; k >= 0; k--) {
    const comment = ordered[k]!.c;
    if (!allowed.includes(comment.association)) continue;
    const asks = reuseAsks(comment.body, command);
    if (asks.length === 0) continue;
    return { authorized: true, pinnedRunId: asks[asks.length - 1]!, comment };
  }
  return { authorized: false, pinnedRunId: null };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface LabelVerdict {
  /** Incompatible labels present (sorted). */
  incompatible: string[];
  /** Whether a full-sweep label is present. */
  fullSweep: boolean;
}

export function labelVerdict(labels: readonly string[]): LabelVerdict {
  return {
    incompatible: INCOMPATIBLE_LABELS.filter((l) => labels.includes(l)).sort(),
    fullSweep: FULL_SWEEP_LABELS.some((l) => labels.includes(l)),
  };
}
