/**
 * A sweep's success rate per hardware, as InferenceX's `utils/calc_success_rate.py` counts it: every
 * job of the workflow run (all attempts) whose name carries a hardware label counts once, a
 * skipped one not at all, and a job succeeds when its conclusion is `success`. The result is the
 * `run_stats.json` the reference writes (and `frontier ingest` reads), byte for byte.
 */
import { isPlainMapping } from '../catalog/index.js';
import { byCodePoint, pyFixed } from '../pycompat/index.js';
import { UserError } from '../util/user-error.js';
import { jsonDocuments } from '../util/json-file.js';

export type RunStats = Record<string, { n_success: number; total: number }>;

/** One job of a workflow run, as GitHub's "list jobs for a workflow run" answers it. */
export interface WorkflowJob {
  name: string;
  /** success, failure, cancelled, skipped, timed_out, neutral, action_required, or null while it runs. */
  conclusion: string | null;
  /** Its steps in order, when the listing has them. */
  steps?: { name: string; conclusion: string | null }[];
}

const CLUSTER_LABEL_PREFIX = 'cluster:';

export const normalizeHardwareLabel = (label: string): string =>
  label.startsWith(CLUSTER_LABEL_PREFIX) ? label.slice(CLUSTER_LABEL_PREFIX.length) : label;

/**
 * The hardware buckets of a parsed runners.yaml: its `cluster:` labels without the prefix, sorted;
 * with no cluster label, the keys of its `hardware` section. A file without `labels` is a labels
 * mapping itself (the older layout).
 */
export function hardwareLabels(runners: unknown): string[] {
  const doc = isPlainMapping(runners) ? runners : {};
  const labels = 'labels' in doc ? doc.labels : doc;
  let keys = Object.keys(isPlainMapping(labels) ? labels : {}).filter((l) => l.startsWith(CLUSTER_LABEL_PREFIX));
  if (keys.length === 0) keys = Object.keys(isPlainMapping(doc.hardware) ? doc.hardware : {});
  return keys.map(normalizeHardwareLabel).sort(byCodePoint);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

export type HardwarePatterns = ReadonlyMap<string, readonly RegExp[]>;

/** Per hardware bucket: its label and its `cluster:` label, each standing alone (not inside a longer name). */
export function hardwareMatchPatterns(labels: readonly string[]): HardwarePatterns {
  return new Map(
    labels.map((hw) => [
      hw,
      [hw, `${CLUSTER_LABEL_PREFIX}${hw}`].map((l) => new RegExp(`(?<![a-z0-9])${escapeRegExp(l)}(?![a-z0-9])`)),
    ]),
  );
}

/** The first bucket (in label order) whose label the job's name carries, lowercased; undefined when none does. */
export function hardwareOfJob(jobName: string, patterns: HardwarePatterns): string | undefined {
  const lower = jobName.toLowerCase();
  for (const [hw, res] of patterns) if (res.some((re) => re.test(lower))) return hw;
  return undefined;
}

/**
 * Frontier's rows (and so its benchmark jobs' names) carry a runner label (`h100`) where InferenceX's
 * carry a node (`h100-lab_0`), so a name may match no bucket. A runner label stands for the bucket
 * whose `cluster:` label lists every one of its nodes, when exactly one does; a label spread over
 * clusters stands for none. Label → bucket, from a parsed runners.yaml. The reference counts no such
 * job, so this is opt-in (`--runner-labels`, which Frontier's generated sweep passes).
 */
export function runnerLabelBuckets(runners: unknown): Map<string, string> {
  const doc = isPlainMapping(runners) ? runners : {};
  const raw = 'labels' in doc ? doc.labels : doc;
  const labels = isPlainMapping(raw) ? raw : {};
  const nodes = (l: string): string[] => (Array.isArray(labels[l]) ? (labels[l] as unknown[]).map(String) : []);
  const clusters = Object.keys(labels).filter((l) => l.startsWith(CLUSTER_LABEL_PREFIX));
  const buckets = new Map<string, string>();
  for (const label of Object.keys(labels)
    .filter((l) => !l.startsWith(CLUSTER_LABEL_PREFIX))
    .sort(byCodePoint)) {
    const own = nodes(label);
    const holding = clusters.filter((c) => own.length > 0 && own.every((n) => nodes(c).includes(n)));
    if (holding.length === 1) buckets.set(label, normalizeHardwareLabel(holding[0]!));
  }
  return buckets;
}

/**
 * Per bucket (every one of `labels`, zeros included): the jobs that succeeded and those that counted.
 * A job whose name carries no bucket counts for its runner label's (`runnerBuckets`), if any.
 */
export function successRates(
  jobs: readonly WorkflowJob[],
  labels: readonly string[],
  runnerBuckets: ReadonlyMap<string, string> = new Map(),
): RunStats {
  const patterns = hardwareMatchPatterns(labels);
  const byRunner = hardwareMatchPatterns([...runnerBuckets.keys()]);
  const stats: RunStats = Object.fromEntries(labels.map((hw) => [hw, { n_success: 0, total: 0 }]));
  for (const job of jobs) {
    const runner = hardwareOfJob(job.name, byRunner);
    const hw = hardwareOfJob(job.name, patterns) ?? (runner === undefined ? undefined : runnerBuckets.get(runner));
    if (hw === undefined || job.conclusion === 'skipped') continue;
    stats[hw]!.total++;
    if (job.conclusion === 'success') stats[hw]!.n_success++;
  }
  return stats;
}

/** The points of a Frontier run manifest that the success rate reads (src/launch/run-dir.ts). */
export interface ManifestForStats {
  cluster: { name: string };
  points: readonly { row: number; status: string }[];
}

/**
 * A local run's stats in the same shape: one bucket, the cluster that ran it; a job is a matrix
 * row (with all its concurrencies), a success when every point of it is ok; deferred points (frontier run --defer) do not count yet.
 */
export function manifestRunStats(m: ManifestForStats): RunStats {
  const jobs = new Map<number, boolean>();
  for (const p of m.points) if (p.status !== 'deferred') jobs.set(p.row, (jobs.get(p.row) ?? true) && p.status === 'ok');
  const ok = [...jobs.values()].filter(Boolean).length;
  return jobs.size > 0 ? { [m.cluster.name]: { n_success: ok, total: jobs.size } } : {};
}

/** `run_stats.json` as the reference's `json.dump(stats, f, indent=2)` writes it (no final newline). */
export const runStatsJson = (stats: RunStats): string => JSON.stringify(stats, null, 2);

/** Every bucket's jobs together: the rate a PR comment headlines (undefined when no job counted). */
export function overallRate(stats: RunStats): { n_success: number; total: number; pct: number | undefined } {
  let n = 0;
  let total = 0;
  for (const s of Object.values(stats)) {
    n += s.n_success;
    total += s.total;
  }
  return { n_success: n, total, pct: total > 0 ? (n / total) * 100 : undefined };
}

/** The reference's printed table: buckets that ran a job, by name, with the rate to two decimals. */
export function successRateTable(stats: RunStats): string {
  const pad = (v: string | number, n: number): string => String(v).padEnd(n);
  const rule = '='.repeat(60);
  const lines = [
    '',
    rule,
    'Hardware Success Rates',
    rule,
    `${pad('Hardware', 20)} ${pad('Success', 10)} ${pad('Total', 10)} ${pad('Rate', 10)}`,
  ];
  lines.push('-'.repeat(60));
  for (const [hw, s] of Object.entries(stats).sort(([a], [b]) => byCodePoint(a, b))) {
    if (s.total > 0)
      lines.push(
        `${pad(hw, 20)} ${pad(s.n_success, 10)} ${pad(s.total, 10)} ${pad(pyFixed((s.n_success / s.total) * 100, 2), 10)}%`,
      );
  }
  lines.push(rule);
  return `${lines.join('\n')}\n`;
}

type Json = Record<string, unknown>;

/**
 * The jobs of a recorded "list jobs for a workflow run" answer: one page (`{jobs: […]}`), pages
 * one after another or as an array (`gh api --paginate [--slurp]`), or a bare array of jobs.
 */
export function parseWorkflowJobs(text: string, source = 'the jobs file'): WorkflowJob[] {
  const docs = jsonDocuments(text, source);
  const pages = docs.flatMap((d) => (Array.isArray(d) && d.every((p) => isPlainMapping(p) && 'jobs' in p) ? d : [d]));
  const jobs: WorkflowJob[] = [];
  for (const page of pages) {
    const list = Array.isArray(page) ? page : isPlainMapping(page) ? (page as Json).jobs : undefined;
    if (!Array.isArray(list))
      throw new UserError(`${source}: expected GitHub's jobs listing ({"jobs": [...]}) or an array of jobs`, {
        hint: 'record it with: gh api --paginate --slurp "repos/OWNER/REPO/actions/runs/RUN_ID/jobs?filter=all&per_page=100"',
      });
    list.forEach((j, i) => {
      const job = isPlainMapping(j) ? (j as Json) : {};
      if (typeof job.name !== 'string')
        throw new UserError(`${source}: job ${i} has no "name"`, { hint: 'each job is an object with "name" and "conclusion"' });
      const conclusion = (x: Json): string | null => (typeof x.conclusion === 'string' ? x.conclusion : null);
      jobs.push({
        name: job.name,
        conclusion: conclusion(job),
        ...(Array.isArray(job.steps)
          ? {
              steps: job.steps
                .map((st) => (isPlainMapping(st) ? (st as Json) : {}))
                .map((st) => ({ name: typeof st.name === 'string' ? st.name : '', conclusion: conclusion(st) })),
            }
          : {}),
      });
    });
  }
  return jobs;
}
