/**
 * The trusted external sweep: InferenceX's trusted-external-sweep.yml. A control plane only: it
 * runs on `pull_request_target` (this repository's workflow file, its token) and never checks
 * out, installs or runs anything of the pull request's. It records the labeller's permission and
 * the pull request with `gh api`, lets `frontier ci external` decide, dispatches the sweep
 * workflow on the default branch with the approved revision as inputs, and comments.
 */
import { SWEEP_LABELS } from '../labels.js';
import { frontierEnv, installSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const EXTERNAL_WORKFLOW = 'frontier-external-sweep.yml';

export function externalSweepWorkflow(o: WorkflowOptions, sweepWorkflow: string): Record<string, unknown> {
  return {
    name: 'Frontier external sweep',
    'run-name':
      'Frontier external sweep - PR #${{ github.event.pull_request.number }} @ ${{ github.event.pull_request.head.sha }}',
    on: { pull_request_target: { branches: [o.mainBranch], types: ['labeled'] } },
    permissions: { actions: 'write', contents: 'read', 'pull-requests': 'write' },
    env: frontierEnv(o),
    jobs: {
      dispatch: {
        // A fork's pull request and a sweep label; `ci external` checks both again, on the recorded answers.
        if: `github.event.pull_request.head.repo.full_name != github.repository && contains(fromJSON('${JSON.stringify(SWEEP_LABELS)}'), github.event.label.name)`,
        'runs-on': 'ubuntu-latest',
        permissions: { actions: 'write', contents: 'read', 'pull-requests': 'write', issues: 'write' },
        env: { GH_TOKEN: '${{ github.token }}', PR: '${{ github.event.pull_request.number }}' },
        steps: [
          ...installSteps(o),
          {
            name: 'Record the labeller’s permission and the pull request',
            run: [
              'labeller=$(jq -r .sender.login "$GITHUB_EVENT_PATH")',
              'gh api "repos/$GITHUB_REPOSITORY/collaborators/$labeller/permission" > permission.json',
              'gh api "repos/$GITHUB_REPOSITORY/pulls/$PR" > pull.json',
            ].join('\n'),
          },
          {
            name: 'Authorize',
            id: 'authorize',
            run: `frontier ci external --permission permission.json --pull pull.json --workflow-id ${sweepWorkflow} --dispatch-file dispatch.json --comment-file comment.md`,
          },
          {
            name: 'Dispatch the sweep',
            id: 'dispatch',
            if: "steps.authorize.outputs.approved == 'true'",
            run: `gh api -X POST "repos/$GITHUB_REPOSITORY/actions/workflows/${sweepWorkflow}/dispatches" --input dispatch.json`,
          },
          {
            name: 'Comment on the pull request',
            // A refusal's reason, or the dispatch once it went out.
            if: "always() && steps.authorize.outputs.comment-file != '' && (steps.authorize.outputs.approved != 'true' || steps.dispatch.outcome == 'success')",
            run: 'gh pr comment "$PR" --body-file comment.md',
          },
        ],
      },
    },
  };
}
