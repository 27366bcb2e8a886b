/**
 * The fleet health workflow: daily (and on dispatch), the repository's self-hosted runners are
 * listed with `gh api` and `frontier clusters health` decides what needs attention (labels with no
 * online runner, offline runners, nodes whose launches keep failing in the store). The digest goes
 * to the step summary every time; the webhook payload is posted only when something needs attention
 * and a webhook is configured, so a quiet fleet stays quiet; the job fails when something needs
 * attention, so the run shows red without a webhook too.
 */
import { frontierEnv, setupSteps } from './common.js';
import type { WorkflowOptions } from './common.js';

export const FLEET_HEALTH_WORKFLOW = 'frontier-fleet-health.yml';
/** A token that may list self-hosted runners (Administration: read): the workflow's GITHUB_TOKEN cannot. */
export const RUNNERS_TOKEN_SECRET = 'RUNNERS_PAT';
/** An incoming webhook URL (Slack or compatible); without it nothing is posted. */
export const HEALTH_WEBHOOK_SECRET = 'FRONTIER_HEALTH_WEBHOOK';

export function fleetHealthWorkflow(o: WorkflowOptions): Record<string, unknown> {
  return {
    name: 'Frontier fleet health',
    on: { schedule: [{ cron: '13 14 * * *' }], workflow_dispatch: {} },
    permissions: { contents: 'read' },
    env: frontierEnv(o),
    jobs: {
      health: {
        'runs-on': 'ubuntu-latest',
        env: { WEBHOOK_URL: `\${{ secrets.${HEALTH_WEBHOOK_SECRET} }}` },
        steps: [
          ...setupSteps(o, { history: false }),
          {
            name: 'List the self-hosted runners',
            env: { GH_TOKEN: `\${{ secrets.${RUNNERS_TOKEN_SECRET} }}` },
            run: 'gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/actions/runners?per_page=100" > runners.json',
          },
          {
            name: 'Check the fleet',
            id: 'health',
            env: { FRONTIER_DB: `\${{ secrets.${o.dbSecret} }}` },
            run: [
              'frontier clusters health --runners runners.json --format markdown --payload payload.json \\',
              '  --run-url "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID" > health.md',
            ].join('\n'),
          },
          {
            name: 'Summary',
            // The digest was made (it sets attention) whether or not the fleet is healthy.
            if: "!cancelled() && steps.health.outputs.attention != ''",
            run: 'cat health.md >> "$GITHUB_STEP_SUMMARY"',
          },
          {
            name: 'Post to the webhook',
            if: "!cancelled() && steps.health.outputs.attention == 'true' && env.WEBHOOK_URL != ''",
            run: 'curl --fail-with-body --silent --show-error -X POST -H "Content-Type: application/json" --data @payload.json "$WEBHOOK_URL"',
          },
        ],
      },
    },
  };
}
