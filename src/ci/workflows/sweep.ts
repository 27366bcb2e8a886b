/**
 * The sweep workflow: plan → canary → the job matrix → results (collect, success rate,
 * ingest, the PR comment). InferenceX's run-sweep.yml, with each decision a `frontier ci` step.
 */
import { RELEVANT_LABELS } from '../labels.js';
import { DOWNLOAD, UPLOAD, frontierEnv, setupSteps } from './common.js';
import type { Job, WorkflowOptions } from './common.js';
import { reuseLookupSteps } from './reuse.js';

export const SWEEP_WORKFLOW = 'frontier-sweep.yml';
export const BENCHMARK_WORKFLOW = 'frontier-benchmark.yml';

/** The names recovery (src/ci/recover.ts) finds in a sweep run's jobs listing and artifacts. */
export const SWEEP_NAMES = {
  /** The job that collects, keeps and ingests the results. */
  resultsJob: 'results',
  /** Its steps: the ingest, and the download of a reused run's results. */
  ingestStep: 'Ingest',
  reusedResultsStep: 'The reused run’s results',
  /** The plan job's artifact: the sweep and its changelog metadata (changelog_metadata.json). */
  sweepArtifact: 'frontier-sweep',
} as const;

/** The commit a dispatch asks to sweep ('' for any other event: the event's own). */
const DISPATCHED_REF = '${{ inputs.ref }}';

const PLAN_OUTPUTS = ['run', 'official', 'canary', 'fail-fast', 'canary-config', 'jobs', 'reuse-source-run', 'ingest-args'];

function planJob(o: WorkflowOptions): Job {
  return {
    'runs-on': 'ubuntu-latest',
    permissions: { contents: 'read', 'pull-requests': 'read', issues: 'read', actions: 'read' },
    outputs: Object.fromEntries(PLAN_OUTPUTS.map((k) => [k, `\${{ steps.plan.outputs.${k} }}`])),
    steps: [
      // A dispatch's `ref` (an approved external pull request's merge commit); otherwise the event's commit.
      ...setupSteps(o, { ref: DISPATCHED_REF }),
      ...reuseLookupSteps(SWEEP_WORKFLOW),
      {
        name: 'Plan the sweep',
        id: 'plan',
        env: {
          REUSE_AUTHORIZED: '${{ steps.reuse.outputs.skip-pr-sweep }}',
          REUSE_SOURCE_RUN: '${{ steps.reuse.outputs.reuse-source-run-id }}',
        },
        run: 'frontier ci plan --out sweep --reuse-authorized "$REUSE_AUTHORIZED" --reuse-source-run "$REUSE_SOURCE_RUN"',
      },
      {
        name: 'Keep the sweep',
        if: 'always()',
        uses: UPLOAD,
        with: { name: SWEEP_NAMES.sweepArtifact, path: 'sweep/', 'if-no-files-found': 'ignore' },
      },
    ],
  };
}

const benchmark = (config: string, artifact: string): Job => ({
  uses: `./.github/workflows/${BENCHMARK_WORKFLOW}`,
  secrets: 'inherit',
  with: { config, artifact, ref: DISPATCHED_REF },
});

/** The collected results, as InferenceX names its artifacts (so `ci reuse` and InferenceX's own tools read them). */
const RESULT_ARTIFACTS = [
  ['results_bmk', 'results/results_bmk/'],
  ['eval_results_all', 'results/eval_results_all/'],
  ['run-stats', 'results/run-stats/'],
  ['changelog-metadata', 'results/changelog-metadata/'],
] as const;

function resultsJob(o: WorkflowOptions): Job {
  return {
    needs: ['plan', 'canary', 'sweep'],
    if: "always() && (needs.plan.outputs.run == 'true' || needs.plan.outputs.reuse-source-run != '')",
    'runs-on': 'ubuntu-latest',
    permissions: { contents: 'read', actions: 'read', 'pull-requests': 'write', issues: 'write' },
    env: {
      FRONTIER_DB: `\${{ secrets.${o.dbSecret} }}`,
      GH_TOKEN: '${{ github.token }}',
      ...(o.dashboardUrl ? { FRONTIER_DASHBOARD_URL: o.dashboardUrl } : {}),
    },
    steps: [
      ...setupSteps(o),
      { name: 'The sweep', uses: DOWNLOAD, with: { name: SWEEP_NAMES.sweepArtifact, path: 'sweep' } },
      {
        name: 'The jobs’ results',
        if: "needs.plan.outputs.reuse-source-run == ''",
        uses: DOWNLOAD,
        with: { pattern: '{bmk,eval}_*', path: 'jobs', 'merge-multiple': true },
      },
      {
        name: 'The jobs of this run',
        run: 'gh api --paginate --slurp "repos/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID/jobs?filter=all&per_page=100" > jobs.json',
      },
      {
        name: 'Collect',
        if: "needs.plan.outputs.reuse-source-run == ''",
        run: [
          'mkdir -p jobs results/results_bmk results/eval_results_all results/run-stats results/changelog-metadata',
          'frontier results collect jobs --out results/results_bmk/agg_bmk.json',
          'frontier eval collect jobs --out results/eval_results_all/agg_eval_all.json',
          'frontier ci success-rate --jobs jobs.json --runner-labels --out results/run-stats/run_stats.json',
          'cp sweep/changelog_metadata.json results/changelog-metadata/ 2>/dev/null || true',
        ].join('\n'),
      },
      {
        name: SWEEP_NAMES.reusedResultsStep,
        if: "needs.plan.outputs.reuse-source-run != ''",
        env: { SOURCE_RUN: '${{ needs.plan.outputs.reuse-source-run }}' },
        run: [
          'gh run download "$SOURCE_RUN" --repo "$GITHUB_REPOSITORY" --dir results \\',
          `  ${RESULT_ARTIFACTS.map(([name]) => `--name ${name}`).join(' ')}`,
          'frontier ci reuse validate --artifacts-dir results --matrix sweep/sweep.json',
        ].join('\n'),
      },
      ...RESULT_ARTIFACTS.map(([name, path]) => ({
        name: `Keep ${name}`,
        if: "needs.plan.outputs.reuse-source-run == ''",
        uses: UPLOAD,
        with: { name, path, 'if-no-files-found': 'ignore' },
      })),
      {
        name: SWEEP_NAMES.ingestStep,
        // The plan's words (`--official`, `--source-run ID`) as separate arguments, never re-read as shell.
        // The commit measured: a dispatch's `ref` when it names one, else the event's.
        env: { INGEST_ARGS: '${{ needs.plan.outputs.ingest-args }}', MEASURED: '${{ inputs.ref || github.sha }}' },
        run: [
          'read -ra ingest_args <<< "$INGEST_ARGS"',
          'frontier ingest results --run-id "$GITHUB_RUN_ID" --attempt "$GITHUB_RUN_ATTEMPT" --url "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID" --commit "$MEASURED" "${ingest_args[@]}"',
        ].join('\n'),
      },
      {
        name: 'Summarise',
        run: 'frontier ci comment --run-id "$GITHUB_RUN_ID" --jobs jobs.json --runner-labels --matrix sweep/sweep.json --comment-file summary.md\ncat summary.md >> "$GITHUB_STEP_SUMMARY"',
      },
      {
        name: 'Comment on the pull request',
        if: "github.event_name == 'pull_request'",
        env: { PR: '${{ github.event.pull_request.number }}' },
        run: [
          '# One summary comment per pull request, updated in place (found by its marker).',
          'id=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$PR/comments" --jq \'.[] | select(.body | startswith("<!-- frontier-sweep-summary -->")) | .id\' | tail -n 1)',
          'if [ -n "$id" ]; then gh api -X PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F body=@summary.md >/dev/null',
          'else gh pr comment "$PR" --body-file summary.md; fi',
        ].join('\n'),
      },
    ],
  };
}

/**
 * A label event for a label that changes nothing gets a concurrency group of its own, so it cannot
 * cancel a sweep in progress; so does every dispatch (two approved external revisions dispatched
 * from the same main commit must not cancel each other).
 */
function concurrencyGroup(): string {
  return [
    "frontier-sweep-${{ github.event.pull_request.number || (github.event_name == 'workflow_dispatch' && github.run_id) || github.sha }}-${{",
    "  (github.event.action == 'labeled' || github.event.action == 'unlabeled') &&",
    `  !contains(fromJSON('${JSON.stringify(RELEVANT_LABELS)}'), github.event.label.name) &&`,
    "  github.run_id || 'active' }}",
  ].join('\n');
}

const text = (description: string, fallback?: string) => ({
  description,
  required: false,
  type: 'string',
  ...(fallback === undefined ? {} : { default: fallback }),
});
const flag = (description: string) => ({ description, required: false, type: 'boolean', default: false });

/**
 * A dispatch sweeps the rows of a `frontier matrix` command, or (what the trusted external sweep
 * sends, frontier-external-sweep.yml) the changelog entries of a range at a pinned commit; the
 * names are InferenceX's e2e-tests.yml inputs.
 */
export const DISPATCH_INPUTS = {
  'generate-cli-command': text(
    'frontier matrix arguments, e.g. test-config --config-files configs/nvidia-master.yaml --config-keys dsr1-fp8-b200-sglang (or give the changelog range below)',
    '',
  ),
  'test-name': text('a name for this run'),
  ref: text('the commit to check out and sweep (an approved external pull request’s merge commit)', ''),
  'changelog-base-ref': text('the changelog range’s base commit', ''),
  'changelog-head-ref': text('the changelog range’s head commit (the approved pull request head)', ''),
  'trim-conc': flag('changelog range: one concurrency per recipe'),
  'all-evals': flag('changelog range: every entry’s eval selection expanded'),
  'evals-only': flag('changelog range: evals only, no throughput'),
  'fail-fast': flag('the first failed job cancels the rest of the job matrix'),
  'agentx-fast': flag('agentic throughput jobs run their fast variant'),
  'pr-labels-json': text('the source pull request’s labels, as a JSON array (queue priority)', '[]'),
};

export function sweepWorkflow(o: WorkflowOptions): Record<string, unknown> {
  const paths = ['perf-changelog.yaml'];
  return {
    name: 'Frontier sweep',
    'run-name':
      'Frontier sweep - ${{ github.event.pull_request.title || github.event.head_commit.message || inputs.test-name || inputs.generate-cli-command }}',
    on: {
      push: { branches: [o.mainBranch], paths },
      pull_request: { branches: [o.mainBranch], types: ['ready_for_review', 'synchronize', 'labeled', 'unlabeled'], paths },
      workflow_dispatch: { inputs: DISPATCH_INPUTS },
    },
    concurrency: { group: concurrencyGroup(), 'cancel-in-progress': true },
    env: frontierEnv(o),
    jobs: {
      plan: planJob(o),
      canary: {
        needs: 'plan',
        if: "needs.plan.outputs.canary == 'true'",
        ...benchmark('${{ toJSON(fromJSON(needs.plan.outputs.canary-config)[0]) }}', 'canary'),
      },
      sweep: {
        needs: ['plan', 'canary'],
        // A failed canary stops the sweep; no canary (skipped) lets it start at once.
        if: "always() && needs.plan.outputs.run == 'true' && needs.plan.outputs.jobs != '[]' && (needs.canary.result == 'success' || needs.canary.result == 'skipped')",
        strategy: {
          'fail-fast': "${{ needs.plan.outputs.fail-fast == 'true' }}",
          'max-parallel': 64,
          matrix: { config: '${{ fromJSON(needs.plan.outputs.jobs) }}' },
        },
        ...benchmark('${{ toJSON(matrix.config) }}', 'sweep-${{ strategy.job-index }}'),
      },
      [SWEEP_NAMES.resultsJob]: resultsJob(o),
    },
  };
}

/** The reusable benchmark job: one matrix row on the runner it names, its results kept as an artifact. */
export function benchmarkWorkflow(o: WorkflowOptions): Record<string, unknown> {
  return {
    name: 'Frontier benchmark',
    on: {
      workflow_call: {
        inputs: {
          config: { description: 'one matrix row, as JSON', required: true, type: 'string' },
          artifact: { description: 'a name for this job’s results, unique in the run', required: true, type: 'string' },
          ref: { description: 'the commit to check out (empty: the event’s)', required: false, type: 'string', default: '' },
        },
      },
    },
    env: frontierEnv(o),
    jobs: {
      benchmark: {
        name: "${{ fromJSON(inputs.config)['exp-name'] }} ${{ fromJSON(inputs.config).runner }} conc ${{ toJSON(fromJSON(inputs.config).conc) }}",
        'runs-on': '${{ fromJSON(inputs.config).runner }}',
        'timeout-minutes': 480,
        steps: [
          ...setupSteps(o, { history: false, ref: '${{ inputs.ref }}' }),
          { name: 'The row', env: { CONFIG: '${{ inputs.config }}' }, run: 'printf \'[%s]\\n\' "$CONFIG" > row.json' },
          { name: 'Benchmark', run: 'frontier run --matrix row.json --out run' },
          // As InferenceX names them: bmk_* (the points' aggregates), eval_* (the evals), server_logs_*.
          ...(
            [
              ['bmk', 'run/bmk_*/agg_*.json'],
              ['eval', 'run/eval_*/'],
              ['server_logs', 'run/server_logs_*/'],
            ] as const
          ).map(([kind, path]) => ({
            name: `Keep ${kind.replace('_', ' ')}`,
            if: 'always()',
            uses: UPLOAD,
            with: { name: `${kind}_\${{ inputs.artifact }}`, path, 'if-no-files-found': 'ignore' },
          })),
        ],
      },
    },
  };
}
