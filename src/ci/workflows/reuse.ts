/**
 * `/reuse-sweep-run`: recording what the GitHub API says about the pull request(s) an event
 * concerns, so that `frontier ci reuse decide` decides offline; and the workflow that answers
 * the comment when it is posted.
 */
import { frontierEnv, setupSteps } from './common.js';
import type { Step, WorkflowOptions } from './common.js';

export const REUSE_WORKFLOW = 'frontier-reuse.yml';

/** Record the API answers `ci reuse decide --github github` reads (see docs/ci.md, "Recorded GitHub answers"). */
export function recordGithubStep(sweepWorkflow: string, condition?: string): Step {
  return {
    name: 'Record the pull request, its comments, commits and sweep runs',
    ...(condition ? { if: condition } : {}),
    env: { GH_TOKEN: '${{ github.token }}' },
    run: [
      'mkdir -p github',
      'api() { gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/$1"; }',
      'if [ "$GITHUB_EVENT_NAME" = push ]; then',
      '  api "commits/$GITHUB_SHA/pulls" > github/pulls.json',
      "  prs=$(jq -r '.[][].number' github/pulls.json)",
      'else',
      '  prs=$(jq -r \'.pull_request.number // .issue.number // empty\' "$GITHUB_EVENT_PATH")',
      'fi',
      'for n in $prs; do',
      '  gh api "repos/$GITHUB_REPOSITORY/pulls/$n" > "github/pr-$n.json"',
      '  api "issues/$n/comments?per_page=100" > "github/comments-$n.json"',
      '  api "pulls/$n/commits?per_page=100" > "github/commits-$n.json"',
      // The branch name is the PR author's: encoded, so `&`, `#` or a space cannot change the query.
      '  branch=$(jq -r \'.head.ref|@uri\' "github/pr-$n.json")',
      `  gh api "repos/$GITHUB_REPOSITORY/actions/workflows/${sweepWorkflow}/runs?event=pull_request&status=completed&per_page=100&branch=$branch" > github/runs.json`,
      "  for run in $(jq -r '.workflow_runs[:20][].id' github/runs.json); do",
      '    api "actions/runs/$run/artifacts?per_page=100" > "github/artifacts-$run.json"',
      '  done',
      'done',
    ].join('\n'),
  };
}

/** The plan job's reuse steps: the gate on a push to the PR branch, the source run on the merge. */
export function reuseLookupSteps(sweepWorkflow: string): Step[] {
  return [
    recordGithubStep(sweepWorkflow, "github.event_name != 'workflow_dispatch'"),
    {
      name: 'Reuse',
      id: 'reuse',
      if: "github.event_name != 'workflow_dispatch'",
      run: `frontier ci reuse decide --github github --workflow-id ${sweepWorkflow}`,
    },
  ];
}

/** Answers a `/reuse-sweep-run` comment at once: will it be honoured at merge, and with which run. */
export function reuseWorkflow(o: WorkflowOptions, sweepWorkflow: string): Record<string, unknown> {
  return {
    name: 'Frontier reuse request',
    on: { issue_comment: { types: ['created', 'edited'] } },
    env: frontierEnv(o),
    jobs: {
      answer: {
        if: "github.event.issue.pull_request && contains(github.event.comment.body, '/reuse-sweep-run')",
        'runs-on': 'ubuntu-latest',
        permissions: { contents: 'read', actions: 'read', 'pull-requests': 'write', issues: 'write' },
        steps: [
          ...setupSteps(o),
          recordGithubStep(sweepWorkflow),
          {
            name: 'Decide',
            run: `frontier ci reuse decide --github github --workflow-id ${sweepWorkflow} > answer.md || true`,
          },
          {
            name: 'Answer',
            env: { GH_TOKEN: '${{ github.token }}', PR: '${{ github.event.issue.number }}' },
            run: 'gh pr comment "$PR" --body-file answer.md',
          },
        ],
      },
    },
  };
}
