// Recorded gh api answers about sweep runs, for the recovery tests: a push to main whose ingest
// failed after its sweep succeeded, and a merge run that published a pull-request run's results.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS } from '../store/helpers.js';

export type Json = Record<string, unknown>;

export const REPO_NAME = 'acme/bench';
/** The fixture's changelog metadata is for this commit: the run that measured it. */
export const HEAD = '23a75971e5e16feaf8c990ea215197d8a01e40a1';
export const MERGE_SHA = 'f'.repeat(40);
export const SOURCE_SHA = 'c'.repeat(40);

export const run = (id: number, o: Json = {}): Json => ({
  id,
  event: 'push',
  status: 'completed',
  conclusion: 'failure',
  path: '.github/workflows/frontier-sweep.yml',
  head_branch: 'main',
  head_sha: HEAD,
  run_attempt: 1,
  html_url: `https://github.com/${REPO_NAME}/actions/runs/${id}`,
  repository: { full_name: REPO_NAME },
  ...o,
});

export const RESULTS_STEPS = [
  'Check out',
  'Set up Node.js',
  'Install Frontier',
  'The sweep',
  'The jobs’ results',
  'The jobs of this run',
  'Collect',
  'The reused run’s results',
  'Keep results_bmk',
  'Ingest',
  'Summarise',
  'Comment on the pull request',
];

/** The jobs of a sweep run as GitHub lists them (`--paginate --slurp`): plan, canary, two rows, results. */
export function jobs(o: { reused?: boolean; failedRow?: boolean; failedStep?: string } = {}): unknown {
  const swept = o.reused ? 'skipped' : 'success';
  const stepConclusion = (name: string): string => {
    if (name === o.failedStep) return 'failure';
    if (name === 'Ingest') return 'failure';
    if (['Summarise', 'Comment on the pull request'].includes(name)) return 'skipped';
    if (name === 'The reused run’s results') return o.reused ? 'success' : 'skipped';
    if (['The jobs’ results', 'Collect', 'Keep results_bmk'].includes(name)) return o.reused ? 'skipped' : 'success';
    return 'success';
  };
  return [
    {
      total_count: 5,
      jobs: [
        { name: 'plan', status: 'completed', conclusion: 'success', steps: [] },
        { name: 'canary / llama 1024 h100 conc 1', status: 'completed', conclusion: swept },
        { name: 'sweep (0) / llama h100 conc 2', status: 'completed', conclusion: o.failedRow ? 'failure' : swept },
        { name: 'sweep (1) / llama h100 conc 4', status: 'completed', conclusion: swept },
        {
          name: 'results',
          status: 'completed',
          conclusion: 'failure',
          steps: RESULTS_STEPS.map((name, i) => ({ name, status: 'completed', conclusion: stepConclusion(name), number: i + 1 })),
        },
      ],
    },
  ];
}

export const artifacts = (runId: number, names: string[], expired: string[] = []): unknown => [
  {
    total_count: names.length,
    artifacts: names.map((name) => ({ name, expired: expired.includes(name), workflow_run: { id: runId } })),
  },
];

/** A directory of recorded gh api answers (file name → JSON). */
export function recorded(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-recover-gh-'));
  for (const [name, value] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(value, null, 2));
  return dir;
}

export const FAILED_INGEST = {
  'runs-7001.json': run(7001),
  'jobs-7001.json': jobs(),
  'artifacts-7001.json': artifacts(7001, [
    'frontier-sweep',
    'results_bmk',
    'eval_results_all',
    'run-stats',
    'changelog-metadata',
  ]),
};

export const REUSED = {
  'runs-8001.json': run(8001, { head_sha: MERGE_SHA }),
  'jobs-8001.json': jobs({ reused: true }),
  'artifacts-8001.json': artifacts(8001, ['frontier-sweep']),
  'pulls.json': [[{ number: 42 }]],
  'pr-42.json': { number: 42, merged_at: '2026-05-13T00:01:00Z', labels: [], head: { sha: SOURCE_SHA, ref: 'feature' } },
  'commits-42.json': [[{ sha: 'a'.repeat(40) }, { sha: SOURCE_SHA }]],
  'runs-6001.json': run(6001, { event: 'pull_request', conclusion: 'success', head_branch: 'feature', head_sha: SOURCE_SHA }),
  'artifacts-6001.json': artifacts(6001, [
    'frontier-sweep',
    'results_bmk',
    'eval_results_all',
    'run-stats',
    'changelog-metadata',
  ]),
};

/** The merge run's changelog metadata (its frontier-sweep artifact): the fixture's entries, for the merge commit. */
export function mergeChangelog(headRef = MERGE_SHA): string {
  const meta = JSON.parse(readFileSync(join(ARTIFACTS, 'changelog-metadata/changelog_metadata.json'), 'utf8')) as Json;
  const dir = mkdtempSync(join(tmpdir(), 'frontier-recover-merge-'));
  writeFileSync(join(dir, 'changelog_metadata.json'), JSON.stringify({ ...meta, head_ref: headRef }));
  return join(dir, 'changelog_metadata.json');
}
