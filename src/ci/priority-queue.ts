/** The queue order of a prioritized matrix, for people: highest score first, with why each job scored what it did. */
import { pyStr } from '../pycompat/builtins.js';
import { textTable } from '../util/text-table.js';
import { compareDecimal, decimalText } from '../pycompat/decimal.js';
import type { PriorityContext, ScoredJob } from './priority.js';

/** The jobs highest score first; equal scores keep their matrix order. */
export function queueOrder(jobs: readonly ScoredJob[]): ScoredJob[] {
  return [...jobs].sort((a, b) => compareDecimal(b.explanation.score, a.explanation.score));
}

/** `+0.75`, `-1`: an adjustment as written in the policy, with its sign. */
const signed = (text: string): string => (text.startsWith('-') ? text : `+${text}`);

/** The adjustments that applied, base first: "base 1.0, push +2.0, fp4 +0.75", or the patchwork pin. */
export function whyText(job: ScoredJob): string {
  const { terms, patchwork } = job.explanation;
  if (patchwork !== undefined) return `patchwork: ${patchwork} pins the score`;
  return terms
    .map((t, i) => (i === 0 ? `${t.reason} ${decimalText(t.amount)}` : `${t.reason} ${signed(decimalText(t.amount))}`))
    .join(', ');
}

const conc = (value: unknown): string =>
  Array.isArray(value) ? value.map((v) => pyStr(v)).join(',') : value === undefined ? '' : pyStr(value);

/** The job's name in the table: its experiment name (a job without one is known by where it sits). */
const jobName = (job: ScoredJob): string =>
  typeof job.job['exp-name'] === 'string' && job.job['exp-name'] !== '' ? job.job['exp-name'] : '-';

const listed = (names: ReadonlySet<string> | undefined, none: string): string =>
  names === undefined ? none : names.size === 0 ? '[]' : [...names].sort().join(', ');

/** The queue order as a table, under a line saying what the scores were computed from. */
export function queueOrderText(jobs: readonly ScoredJob[], context: PriorityContext): string {
  const head =
    `${jobs.length} job${jobs.length === 1 ? '' : 's'}, highest priority first ` +
    `(event: ${context.eventName || 'none'}; labels: ${context.labels.size === 0 ? 'none' : listed(context.labels, 'none')}; criteria: ${listed(context.criteria, 'none (job fields)')})`;
  if (jobs.length === 0) return `${head}\n`;
  const rows = [
    ['score', 'job', 'where', 'runner', 'conc', 'why'],
    ...queueOrder(jobs).map((j) => [j.priority, jobName(j), j.path.join('/'), pyStr(j.job.runner), conc(j.job.conc), whyText(j)]),
  ];
  const lines = [head, ...textTable(rows, { align: ['right'] })];
  const skip = jobs.find((j) => j.skipQueuePr !== undefined);
  if (skip)
    lines.push(
      `skip-queue: pull request #${skip.skipQueuePr} asked to skip the queue; every job carries skip-queue-pr ${skip.skipQueuePr}`,
    );
  return `${lines.join('\n')}\n`;
}
