/** Everything a sign-off verdict is decided from, gathered beforehand (the rules read nothing themselves). */
import type { ChangedFile, ConfigEntry } from './change.js';

/** A run of the store that measured a commit of the pull request. */
export interface RunEvidence {
  runId: string;
  commit: string;
  status: string;
  url: string;
  /** Benchmark points the run stored. */
  points: number;
  /** Jobs that succeeded over all jobs; null when the run recorded no job stats. */
  successRate: number | null;
  evals: { task: string; model: string; hardware: string; passed: boolean | null }[];
  /**
   * Its points whose change against the official results is a significant regression (the
   * comparison's verdicts, docs/verdicts.md), each as `label isl/osl conc N: metric −x% [lo, hi]`.
   */
  regressions: string[];
}

/** A pull-request conversation comment, as `gh api repos/O/R/issues/N/comments` lists it. */
export interface PrComment {
  body: string;
  author: string;
  association: string;
}

export interface SignoffInput {
  pr: {
    number: number;
    body: string;
    headSha: string;
    /** The SHAs of the commits currently in the pull request. */
    commits: string[];
  };
  /** The sign-off comment. */
  comment: PrComment;
  /** `.github/CODEOWNERS` on the trusted default branch (never the PR's base); undefined when it has none. */
  codeowners: string | undefined;
  /** `docs/PR_REVIEW_CHECKLIST.md` on the trusted default branch. */
  checklist: string | undefined;
  files: ChangedFile[];
  /** Master-config entries the change added or changed. */
  entries: ConfigEntry[];
  /** Every master-config entry at the head. */
  headEntries: ConfigEntry[];
  /** Whether `docs/waiver/<PR>.md` exists at the head. */
  waiverExists: boolean;
  /** Runs of the PR's commits from the store; undefined when no store was read. */
  runs: RunEvidence[] | undefined;
  /** The PR's conversation comments; undefined when they were not given. */
  comments: PrComment[] | undefined;
  /** Team members, `org/team` → logins; undefined when not given. */
  teams: Record<string, string[]> | undefined;
}

export const CODEOWNERS_FILE = '.github/CODEOWNERS';
export const CHECKLIST_FILE = 'docs/PR_REVIEW_CHECKLIST.md';
export const waiverFile = (pr: number): string => `docs/waiver/${pr}.md`;
