// What a change did to a tree, as the rules (rule.ts) and the review (change.ts, run.ts) share it:
// a type of its own, so that rule.ts does not import change.ts, which imports the rules' helpers.

/** What a change did to a tree: the review's summary, and what decides which findings are its own. */
export interface TreeChange {
  keys: { added: string[]; removed: string[]; edited: string[] };
  recipes: { added: string[]; removed: string[]; changed: string[] };
  changelog: {
    file: string;
    changed: boolean;
    /** Head line numbers of the lines the change added. */
    addedLines: number[];
  };
  /** Master-config, runner, cluster-profile and launcher files whose bytes differ, as displayed in findings (with the workflows and pin-holding files the power rules read). */
  files: string[];
  /** Launchers (runners/launch_*.sh) whose srt-slurm clones changed, and those clones (route subjects). */
  launchers: { changed: string[]; routes: string[] };
}
