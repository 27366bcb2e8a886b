/**
 * The recipe reminder (InferenceX's pr-recipe-reminder.yml): a pull request touching the recipes
 * gets one comment. On `pull_request_target`, so that a fork's pull request (whose `pull_request`
 * token cannot comment) is reminded too: a control plane, like the external sweep, that reads
 * the comments through the API and checks nothing out.
 */
import { REMINDER_ACTIONS } from '../remind.js';
import { frontierEnv, installSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const REMIND_WORKFLOW = 'frontier-recipe-reminder.yml';

export function remindWorkflow(o: WorkflowOptions): Record<string, unknown> {
  return {
    name: 'Frontier recipe reminder',
    on: {
      pull_request_target: {
        types: [...REMINDER_ACTIONS],
        paths: ['configs/**', 'benchmarks/**', 'perf-changelog.yaml'],
      },
    },
    permissions: { 'pull-requests': 'write', issues: 'write' },
    env: frontierEnv(o),
    jobs: {
      remind: {
        'runs-on': 'ubuntu-latest',
        env: { GH_TOKEN: '${{ github.token }}', PR: '${{ github.event.pull_request.number }}' },
        steps: [
          ...installSteps(o),
          {
            name: 'Record the comments',
            run: 'gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/issues/$PR/comments?per_page=100" > comments.json',
          },
          { name: 'Decide', id: 'remind', run: 'frontier ci remind --comments comments.json --comment-file reminder.md' },
          {
            name: 'Remind',
            if: "steps.remind.outputs.remind == 'true'",
            run: 'gh pr comment "$PR" --body-file reminder.md',
          },
        ],
      },
    },
  };
}
