/**
 * `frontier ci …`: the pull-request machinery's decisions, one subcommand each (src/cli/ci-*.ts,
 * sharing src/cli/ci-step.ts). Each reads the GitHub event payload, decides with a pure function
 * of src/ci/, and prints the decision as text or JSON, appending its step outputs to
 * GITHUB_OUTPUT inside Actions.
 */
import { Command } from 'commander';
import { ciCommentCommands } from './ci-comment.js';
import { ciExternalCommand } from './ci-external.js';
import { ciInitCommand } from './ci-init.js';
import { ciPlanCommand } from './ci-plan.js';
import { ciPriorityCommand } from './ci-priority.js';
import { ciRemindCommand } from './ci-remind.js';
import { reuseCommand } from './ci-reuse.js';
import { ciSignoffCommand } from './ci-signoff.js';
import { ciStageCommand } from './ci-stage.js';

export function ciCommand(): Command {
  const ci = new Command('ci').description(
    'the pull-request machinery: what a GitHub event runs, approving external PRs, canary, queue priority, reuse, sign-off, staging, the PR comment, workflows',
  );
  ci.addCommand(ciPlanCommand());
  ci.addCommand(ciExternalCommand());
  ci.addCommand(ciPriorityCommand());
  ci.addCommand(reuseCommand());
  ci.addCommand(ciSignoffCommand());
  ci.addCommand(ciRemindCommand());
  ci.addCommand(ciStageCommand());
  for (const c of ciCommentCommands()) ci.addCommand(c);
  ci.addCommand(ciInitCommand());
  return ci;
}
