/**
 * Recovering a failed ingest, dispatched by hand (InferenceX's recover-reused-ingest.yml, and the
 * failed-ingest case of its recover_failed_ingest.py): record what the GitHub API says about the
 * run(s), download their result artifacts, and let `frontier ingest --recover` check and ingest.
 * Nothing is measured again; the job needs no GPU runner and no write permission on the repository.
 */
import { frontierEnv, setupSteps } from './common.js';
import type { WorkflowOptions } from './common.js';
import { SWEEP_NAMES, SWEEP_WORKFLOW } from './sweep.js';

export const RECOVER_WORKFLOW = 'frontier-recover-ingest.yml';

/** The result artifacts a sweep run keeps (and a reused run's merge downloads). */
const RESULT_PATTERNS = ['results_bmk', 'eval_results_all', 'run-stats', 'changelog-metadata', 'bmk_agentic_*', 'agentic_*'];

export function recoverWorkflow(o: WorkflowOptions): Record<string, unknown> {
  const input = (description: string) => ({ description, required: false, type: 'string', default: '' });
  return {
    name: 'Frontier recover ingest',
    'run-name': 'Frontier recover ingest - run ${{ inputs.merge-run-id || inputs.run-id }}',
    on: {
      workflow_dispatch: {
        inputs: {
          'run-id': input('a failed ingest: the sweep run whose sweep succeeded and whose ingest failed'),
          'source-run-id': input('a reused run: the pull-request sweep run whose results were published'),
          'merge-run-id': input('a reused run: the push to main that published them (its changelog metadata is kept)'),
          'dry-run': {
            description: 'check everything and print what would be ingested; write nothing',
            required: false,
            type: 'boolean',
            default: false,
          },
        },
      },
    },
    permissions: { contents: 'read', actions: 'read', 'pull-requests': 'read' },
    env: frontierEnv(o),
    jobs: {
      recover: {
        'runs-on': 'ubuntu-latest',
        env: {
          FRONTIER_DB: `\${{ secrets.${o.dbSecret} }}`,
          GH_TOKEN: '${{ github.token }}',
          RUN: '${{ inputs.merge-run-id || inputs.run-id }}',
          SOURCE_RUN: '${{ inputs.source-run-id }}',
          DRY_RUN: '${{ inputs.dry-run }}',
        },
        steps: [
          ...setupSteps(o, { history: false }),
          {
            name: 'Record the runs, their jobs and artifacts',
            env: { RUN_ID: '${{ inputs.run-id }}', MERGE_RUN_ID: '${{ inputs.merge-run-id }}' },
            run: [
              'case "${RUN_ID:+r}${SOURCE_RUN:+s}${MERGE_RUN_ID:+m}" in',
              '  r | sm) ;;',
              '  *) echo "::error::give run-id (a failed ingest), or source-run-id and merge-run-id (a reused run)"; exit 1 ;;',
              'esac',
              'mkdir -p github',
              'api() { gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/$1"; }',
              'for id in "$RUN" ${SOURCE_RUN:+"$SOURCE_RUN"}; do',
              '  gh api "repos/$GITHUB_REPOSITORY/actions/runs/$id" > "github/runs-$id.json"',
              '  api "actions/runs/$id/artifacts?per_page=100" > "github/artifacts-$id.json"',
              'done',
              'api "actions/runs/$RUN/jobs?per_page=100" > "github/jobs-$RUN.json"',
              'if [ -n "$SOURCE_RUN" ]; then',
              '  sha=$(jq -r .head_sha "github/runs-$RUN.json")',
              '  api "commits/$sha/pulls" > github/pulls.json',
              "  for n in $(jq -r '.[][].number' github/pulls.json); do",
              '    gh api "repos/$GITHUB_REPOSITORY/pulls/$n" > "github/pr-$n.json"',
              '    api "pulls/$n/commits?per_page=100" > "github/commits-$n.json"',
              '  done',
              'fi',
            ].join('\n'),
          },
          {
            name: 'Download the results',
            run: [
              `gh run download "\${SOURCE_RUN:-$RUN}" --repo "$GITHUB_REPOSITORY" --dir results ${RESULT_PATTERNS.map((p) => `--pattern '${p}'`).join(' ')}`,
              'if [ -n "$SOURCE_RUN" ]; then',
              `  gh run download "$RUN" --repo "$GITHUB_REPOSITORY" --dir merge --name ${SWEEP_NAMES.sweepArtifact}`,
              'fi',
            ].join('\n'),
          },
          {
            name: 'Recover',
            run: [
              `args=(--run-id "$RUN" --github github --repo "$GITHUB_REPOSITORY" --workflow-id ${SWEEP_WORKFLOW} --main-branch ${o.mainBranch})`,
              'if [ -n "$SOURCE_RUN" ]; then args+=(--source-run "$SOURCE_RUN" --changelog merge/changelog_metadata.json); fi',
              'if [ "$DRY_RUN" = true ]; then args+=(--dry-run); fi',
              'frontier ingest results --recover "${args[@]}" > recovery.txt || { cat recovery.txt; exit 1; }',
              'cat recovery.txt',
              'cat recovery.txt >> "$GITHUB_STEP_SUMMARY"',
            ].join('\n'),
          },
        ],
      },
    },
  };
}
