/**
 * `/stage-results [RUN_ID]`: the workflow that answers the comment. One job records what the
 * GitHub API says (the commenter's permission, the pull request, its commits and sweep runs),
 * `frontier ci stage` decides, the run's result artifacts are downloaded and ingested with
 * `--stage PR` (kept apart from the record), and the outcome is commented on the pull request.
 * No step checks out or runs the pull request's code: the artifacts are data, checked by ingest.
 */
import { frontierEnv } from './common.js';
import type { Step, WorkflowOptions } from './common.js';

export const STAGE_WORKFLOW = 'frontier-stage-results.yml';

/** The sweep's result artifacts a staging ingests (as the sweep's results job uploads them). */
const STAGED_ARTIFACTS = ['results_bmk', 'eval_results_all', 'run-stats', 'changelog-metadata'];

/** Record the API answers `ci stage --github github` reads (see docs/ci.md, "Staging results"). */
function recordStep(sweepWorkflow: string): Step {
  return {
    name: 'Record the commenter’s permission, the pull request, its commits and sweep runs',
    env: { PR: '${{ github.event.issue.number }}', COMMENTER: '${{ github.event.comment.user.login }}' },
    run: [
      'mkdir -p github',
      'api() { gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/$1"; }',
      'gh api "repos/$GITHUB_REPOSITORY/collaborators/$COMMENTER/permission" > github/permission.json',
      'gh api "repos/$GITHUB_REPOSITORY/pulls/$PR" > github/pr.json',
      'api "pulls/$PR/commits?per_page=100" > github/commits.json',
      // The branch name is the PR author's: encoded, so `&`, `#` or a space cannot change the query.
      "branch=$(jq -r '.head.ref|@uri' github/pr.json)",
      `gh api "repos/$GITHUB_REPOSITORY/actions/workflows/${sweepWorkflow}/runs?event=pull_request&status=completed&per_page=100&branch=$branch" > github/runs.json`,
      // A run named in the comment is looked up by id: it may be older than the branch's listing.
      "named=$(jq -r '.comment.body' \"$GITHUB_EVENT_PATH\" | sed -nE '1s/^[[:space:]]*\\/stage-results[[:space:]]+([0-9]+)[[:space:]]*$/\\1/p')",
      'if [ -n "$named" ]; then gh api "repos/$GITHUB_REPOSITORY/actions/runs/$named" > "github/runs-$named.json" || rm -f "github/runs-$named.json"; fi',
      "for run in $named $(jq -r '.workflow_runs[:20][].id' github/runs.json); do",
      '  [ -f "github/artifacts-$run.json" ] || api "actions/runs/$run/artifacts?per_page=100" > "github/artifacts-$run.json" || rm -f "github/artifacts-$run.json"',
      'done',
    ].join('\n'),
  };
}

export function stageWorkflow(o: WorkflowOptions, sweepWorkflow: string): Record<string, unknown> {
  const staging = "steps.decide.outputs.stage == 'true'";
  const decide = `frontier ci stage --github github --workflow-id ${sweepWorkflow}`;
  return {
    name: 'Frontier stage results',
    'run-name': 'Stage results for PR #${{ github.event.issue.number }}',
    on: { issue_comment: { types: ['created'] } },
    permissions: {},
    concurrency: { group: 'frontier-stage-results-${{ github.event.issue.number }}', 'cancel-in-progress': false },
    env: frontierEnv(o),
    jobs: {
      stage: {
        if: "github.event.issue.pull_request && startsWith(github.event.comment.body, '/stage-results')",
        'runs-on': 'ubuntu-latest',
        permissions: { actions: 'read', contents: 'read', 'pull-requests': 'write', issues: 'write' },
        env: {
          FRONTIER_DB: `\${{ secrets.${o.dbSecret} }}`,
          GH_TOKEN: '${{ github.token }}',
          ...(o.dashboardUrl ? { FRONTIER_DASHBOARD_URL: o.dashboardUrl } : {}),
        },
        // No checkout: nothing of the repository, let alone the pull request's code, is needed.
        steps: [
          { name: 'Set up Node.js', uses: 'actions/setup-node@v4', with: { 'node-version': o.nodeVersion } },
          { name: 'Install Frontier', run: 'npm install --global "$FRONTIER_PACKAGE"' },
          recordStep(sweepWorkflow),
          { name: 'Decide', id: 'decide', run: `${decide} --comment-file answer.md` },
          {
            name: 'Download the run’s results',
            if: staging,
            env: { RUN: '${{ steps.decide.outputs.run-id }}' },
            run: `gh run download "$RUN" --repo "$GITHUB_REPOSITORY" --dir results ${STAGED_ARTIFACTS.map((n) => `--name ${n}`).join(' ')}`,
          },
          {
            name: 'Stage',
            if: staging,
            env: {
              RUN: '${{ steps.decide.outputs.run-id }}',
              ATTEMPT: '${{ steps.decide.outputs.run-attempt }}',
              RUN_URL: '${{ steps.decide.outputs.run-url }}',
              HEAD_SHA: '${{ steps.decide.outputs.head-sha }}',
              BRANCH: '${{ steps.decide.outputs.branch }}',
              PR: '${{ steps.decide.outputs.pr }}',
              STAGED_BY: '${{ steps.decide.outputs.staged-by }}',
            },
            run: [
              'frontier ingest results --run-id "$RUN" --attempt "$ATTEMPT" --url "$RUN_URL" --commit "$HEAD_SHA" --branch "$BRANCH" \\',
              '  --stage "$PR" --staged-by "$STAGED_BY" --format json > ingested.json',
            ].join('\n'),
          },
          { name: 'Report', if: staging, run: `${decide} --ingested ingested.json --comment-file answer.md` },
          { name: 'Report the failure', if: `failure() && ${staging}`, run: `${decide} --failed --comment-file answer.md` },
          {
            name: 'Answer on the pull request',
            if: 'always()',
            env: { PR: '${{ github.event.issue.number }}' },
            run: 'if [ -s answer.md ]; then gh pr comment "$PR" --body-file answer.md; fi',
          },
        ],
      },
    },
  };
}
