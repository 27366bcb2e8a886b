/**
 * `frontier ci init`: the GitHub Actions workflows of a catalog repository. Thin by design:
 * each step is one `frontier` call, or the `gh`/`jq` calls that fetch what a decision reads.
 */
import { workflowYaml } from './common.js';
import type { WorkflowOptions } from './common.js';
import { FLEET_HEALTH_WORKFLOW, fleetHealthWorkflow } from './fleet-health.js';
import { RECOVER_WORKFLOW, recoverWorkflow } from './recover.js';
import { EXTERNAL_WORKFLOW, externalSweepWorkflow } from './external.js';
import { REUSE_WORKFLOW, reuseWorkflow } from './reuse.js';
import { PROFILE_WORKFLOW, profileWorkflow } from './profile.js';
import { REMIND_WORKFLOW, remindWorkflow } from './remind.js';
import { SIGNOFF_WORKFLOW, signoffWorkflow } from './signoff.js';
import { SPEEDBENCH_AL_WORKFLOW, speedbenchAlWorkflow } from './speedbench-al.js';
import { STORE_DUMP_WORKFLOW, storeDumpWorkflow } from './store-dump.js';
import { STAGE_WORKFLOW, stageWorkflow } from './stage.js';
import { BENCHMARK_WORKFLOW, SWEEP_WORKFLOW, benchmarkWorkflow, sweepWorkflow } from './sweep.js';

export type { WorkflowOptions } from './common.js';
export {
  SWEEP_WORKFLOW,
  BENCHMARK_WORKFLOW,
  EXTERNAL_WORKFLOW,
  REUSE_WORKFLOW,
  SIGNOFF_WORKFLOW,
  PROFILE_WORKFLOW,
  SPEEDBENCH_AL_WORKFLOW,
  FLEET_HEALTH_WORKFLOW,
  STORE_DUMP_WORKFLOW,
  RECOVER_WORKFLOW,
  STAGE_WORKFLOW,
};
export { HEALTH_WEBHOOK_SECRET, RUNNERS_TOKEN_SECRET } from './fleet-health.js';

/** Each workflow file (its path under the repository) and its text. */
export function workflowFiles(o: WorkflowOptions, version: string): [path: string, text: string][] {
  const header = (what: string): string =>
    `${what}\nWritten by \`frontier ci init\` (Frontier ${version}); regenerate rather than edit: every decision is a \`frontier ci\` step.`;
  return [
    [
      SWEEP_WORKFLOW,
      workflowYaml(header('The sweep: plan → canary → jobs → results, ingest and the PR comment.'), sweepWorkflow(o)),
    ],
    [BENCHMARK_WORKFLOW, workflowYaml(header('One matrix row on its runner (called by the sweep).'), benchmarkWorkflow(o))],
    [
      EXTERNAL_WORKFLOW,
      workflowYaml(
        header(
          "A maintainer's sweep label approves a fork's pull request: its exact head commit is swept by a dispatch of the sweep.\nControl plane only: it never checks out or runs the pull request's code.",
        ),
        externalSweepWorkflow(o, SWEEP_WORKFLOW),
      ),
    ],
    [REUSE_WORKFLOW, workflowYaml(header('Answers a /reuse-sweep-run comment.'), reuseWorkflow(o, SWEEP_WORKFLOW))],
    [SIGNOFF_WORKFLOW, workflowYaml(header('Verifies a CODEOWNER sign-off comment.'), signoffWorkflow(o))],
    [
      REMIND_WORKFLOW,
      workflowYaml(
        header('Reminds a pull request touching the recipes, once, of sign-off and the sweep label.'),
        remindWorkflow(o),
      ),
    ],
    [
      STAGE_WORKFLOW,
      workflowYaml(
        header('Answers a /stage-results comment: stages a sweep run of the pull request, apart from the record.'),
        stageWorkflow(o, SWEEP_WORKFLOW),
      ),
    ],
    [
      PROFILE_WORKFLOW,
      workflowYaml(header("Profiles one point of a config under the engine's profiler (dispatched)."), profileWorkflow(o)),
    ],
    [
      SPEEDBENCH_AL_WORKFLOW,
      workflowYaml(
        header(
          "Collects a model's golden acceptance-length curve on SPEED-Bench, as InferenceX's speedbench-al.yml (dispatched).",
        ),
        speedbenchAlWorkflow(o),
      ),
    ],
    [
      FLEET_HEALTH_WORKFLOW,
      workflowYaml(
        header(
          'Daily fleet health: offline self-hosted runners, runner labels without an online runner, nodes that keep failing (frontier clusters health).',
        ),
        fleetHealthWorkflow(o),
      ),
    ],
    [
      STORE_DUMP_WORKFLOW,
      workflowYaml(
        header('Dumps the store daily (frontier store dump), checks the dump restores to the same bytes, and publishes it.'),
        storeDumpWorkflow(o),
      ),
    ],
    [
      RECOVER_WORKFLOW,
      workflowYaml(
        header('Re-ingests a sweep run whose ingest failed, or a reused run, from its artifacts (dispatched).'),
        recoverWorkflow(o),
      ),
    ],
  ].map(([file, text]) => [`.github/workflows/${file}`, text] as [string, string]);
}
