/**
 * `frontier ci init`: the GitHub Actions workflows of a catalog repository. Thin by design:
 * each step is one `frontier` call, or the `gh`/`jq` calls that fetch what a decision reads.
 */
import { workflowYaml } from './common.js';
import type { WorkflowOptions } from './common.js';
import { REUSE_WORKFLOW, reuseWorkflow } from './reuse.js';
import { PROFILE_WORKFLOW, profileWorkflow } from './profile.js';
import { SIGNOFF_WORKFLOW, signoffWorkflow } from './signoff.js';
import { SPEEDBENCH_AL_WORKFLOW, speedbenchAlWorkflow } from './speedbench-al.js';
import { STAGE_WORKFLOW, stageWorkflow } from './stage.js';
import { BENCHMARK_WORKFLOW, SWEEP_WORKFLOW, benchmarkWorkflow, sweepWorkflow } from './sweep.js';

export type { WorkflowOptions } from './common.js';
export {
  SWEEP_WORKFLOW,
  BENCHMARK_WORKFLOW,
  REUSE_WORKFLOW,
  SIGNOFF_WORKFLOW,
  PROFILE_WORKFLOW,
  SPEEDBENCH_AL_WORKFLOW,
  STAGE_WORKFLOW,
};

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
    [REUSE_WORKFLOW, workflowYaml(header('Answers a /reuse-sweep-run comment.'), reuseWorkflow(o, SWEEP_WORKFLOW))],
    [SIGNOFF_WORKFLOW, workflowYaml(header('Verifies a CODEOWNER sign-off comment.'), signoffWorkflow(o))],
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
  ].map(([file, text]) => [`.github/workflows/${file}`, text] as [string, string]);
}
