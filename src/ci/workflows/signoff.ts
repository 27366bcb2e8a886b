/** The sign-off workflow: a CODEOWNER's checklist comment, verified by `frontier ci signoff`, answered with the verdict. */
import { frontierEnv, setupSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const SIGNOFF_WORKFLOW = 'frontier-signoff.yml';

export function signoffWorkflow(o: WorkflowOptions): Record<string, unknown> {
  return {
    name: 'Frontier sign-off',
    on: { issue_comment: { types: ['created', 'edited'] } },
    env: frontierEnv(o),
    jobs: {
      verify: {
        if: "github.event.issue.pull_request && contains(github.event.comment.body, 'As a PR reviewer and CODEOWNER')",
        'runs-on': 'ubuntu-latest',
        permissions: { contents: 'read', 'pull-requests': 'write', issues: 'write' },
        env: {
          GH_TOKEN: '${{ github.token }}',
          PR: '${{ github.event.issue.number }}',
          FRONTIER_DB: `\${{ secrets.${o.dbSecret} }}`,
        },
        steps: [
          ...setupSteps(o),
          {
            name: 'Record the pull request',
            run: [
              'gh api "repos/$GITHUB_REPOSITORY/pulls/$PR" > pr.json',
              'gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/pulls/$PR/commits?per_page=100" > commits.json',
              'gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/issues/$PR/comments?per_page=100" > comments.json',
              'git fetch --quiet origin "pull/$PR/head"',
            ].join('\n'),
          },
          {
            name: 'Verify',
            id: 'verify',
            run: [
              'frontier ci signoff --pr pr.json --commits commits.json --comments comments.json \\',
              '  --base "origin/$(jq -r .base.ref pr.json)" --head "$(jq -r .head.sha pr.json)" \\',
              // CODEOWNERS and the checklist: the default branch's, whichever branch the PR targets.
              '  --trusted "origin/$(jq -r .base.repo.default_branch pr.json)" --comment-file verdict.md',
            ].join('\n'),
          },
          {
            name: 'Answer',
            if: "always() && steps.verify.outputs.verdict != 'skip' && steps.verify.outputs.comment-file != ''",
            run: 'gh pr comment "$PR" --body-file verdict.md',
          },
        ],
      },
    },
  };
}
