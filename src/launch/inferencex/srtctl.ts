import { injectSyntheticAcceptance } from '../../specdec/inject.js';
import { optsIntoSyntheticAcceptance } from '../../specdec/synthetic.js';
import type { SyntheticAcceptance } from '../../engines/index.js';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MultiNodeRow } from '../../matrix/index.js';
import type { PlannedPoint } from '../../plan/launches.js';
import type { RecipePlan } from '../../plan/inferencex/recipe-plan.js';
import { relativeOf } from '../../plan/inferencex/srtctl-command.js';

/**
 * srt-slurm's own `srtctl` as the executor of a recipe row, as InferenceX's multi-node launchers
 * use it: the recipe goes into the checkout's `recipes/`, `srtctl apply -f recipes/<path>[:selector]`
 * submits its job and says its id, and when the job has ended each concurrency's result is
 * `outputs/<job>/logs/<config>_isl…osl…/results_concurrency_<c>_gpus_<g>[_ctx_<p>_gen_<d>].json`.
 */

/** Put the recipe where srtctl reads it, as the launchers copy theirs into the checkout's recipes/. */
export function placeRecipe(plan: RecipePlan, root: string): void {
  const file = join(root, relativeOf(plan));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, plan.text);
}

/**
 * A row that opts into synthetic acceptance (SYNTHETIC_ACCEPTANCE=true) gets it written into the
 * recipe srtctl reads, as InferenceX's launchers run runners/inject_synthetic_acceptance.py
 * before `srtctl apply`; an eval-only launch (no synthetic acceptance) keeps the recipe as it is.
 */
export function injectIntoRecipe(root: string, configFile: string, row: MultiNodeRow, s: SyntheticAcceptance | undefined): void {
  if (!s || !optsIntoSyntheticAcceptance(row)) return;
  const file = join(root, configFile.replace(/:.*$/, ''));
  writeFileSync(file, injectSyntheticAcceptance(readFileSync(file, 'utf8'), row.framework, s, configFile));
}

/** The job id `srtctl apply` prints (`✅ Job 1234 submitted`). */
export function srtctlJobId(output: string): string | undefined {
  return (/✅ Job (\d+)/.exec(output) ?? /\bJob (\d+)/.exec(output))?.[1];
}

const RESULT = /^results_concurrency_(\d+)_(gpus_\d+(?:_ctx_\d+_gen_\d+)?)\.json$/;

/**
 * Each point's result file among srtctl's outputs (matched on concurrency and GPUs, the suffix
 * InferenceX names results by); the logs are copied into `logDir`.
 */
export function collectSrtctlResults(logs: string, points: readonly PlannedPoint[], logDir: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!existsSync(logs)) return found;
  cpSync(logs, join(logDir, 'srtctl-logs'), { recursive: true });
  for (const sub of readdirSync(logs, { withFileTypes: true })) {
    if (!sub.isDirectory() || !/isl.*osl/.test(sub.name)) continue;
    for (const f of readdirSync(join(logs, sub.name))) {
      const m = RESULT.exec(f);
      if (!m) continue;
      const point = points.find((p) => p.conc === Number(m[1]) && p.multinodeSuffix?.endsWith(`_conc${m[1]}_${m[2]}`));
      if (point) found.set(point.resultFilename, join(logs, sub.name, f));
    }
  }
  return found;
}
