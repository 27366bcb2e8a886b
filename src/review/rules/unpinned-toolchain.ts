import type { Rule } from '../rule.js';
import { subject } from '../rule.js';
import { fromProblem } from './shared.js';

/** The loader's rule name for an unpinned commit (the loader rejects it; this rule reports it). */
export const UNPINNED_TOOLCHAIN = 'unpinned-toolchain';

export const unpinnedToolchain: Rule = {
  id: 'clusters/unpinned-toolchain',
  severity: 'error',
  scope: 'tree',
  description: 'every routing rule pins its toolchain to a full 40-hex commit',
  explanation:
    "InferenceX's launchers clone srt-slurm at a branch (sa-submission-q2-2026), a tag or a short sha: a branch or tag moves, and a short sha can become ambiguous, so the same recipe can run different code from one day to the next and results stop being comparable. Pin the full commit: `git ls-remote <repo> <ref>` prints it.",
  check: ({ head }) =>
    head.clusterProblems.filter((p) => p.rule === UNPINNED_TOOLCHAIN).map((p) => fromProblem(p, [subject.file(p.file)])),
};
