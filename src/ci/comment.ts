/**
 * The sweep's summary comment on its pull request: what ran, the canary, the success rate, the
 * comparison with the official results, the eval verdicts and links to the dashboard. A hidden
 * marker lets a later run find and update the same comment instead of adding another.
 */
import type { Comparison, EvalRow } from '../contract/index.js';
import { configLabel } from '../contract/index.js';
import { comparisonMarkdown } from '../store/index.js';
import { pyFixed } from '../pycompat/index.js';
import type { RanRow } from './ran.js';
import { overallRate } from './success-rate.js';
import type { RunStats, WorkflowJob } from './success-rate.js';

export const COMMENT_MARKER = '<!-- frontier-sweep-summary -->';

/** GitHub refuses a comment body over 65,536 characters; the comparison table gives way first. */
export const COMMENT_LIMIT = 65_000;

export interface CommentInput {
  runId: string;
  pullRequest?: { number: number; headSha: string } | undefined;
  ran?: { source: 'run directory' | 'matrix'; rows: RanRow[] } | undefined;
  /** The run's jobs, when recorded: the canary is the `canary / …` ones. */
  jobs?: readonly WorkflowJob[] | undefined;
  runStats?: { source: string; stats: RunStats } | undefined;
  comparison: Comparison;
  evals: readonly EvalRow[];
  /** The dashboard's address, without a trailing slash. */
  dashboardUrl?: string | undefined;
}

export type Verdict = 'pass' | 'fail' | 'no threshold';

export interface EvalVerdict {
  config: string;
  task: string;
  conc: number;
  score: number;
  score_name: string;
  threshold: number | null;
  verdict: Verdict;
}

export interface DashboardLink {
  title: string;
  url: string;
}

export interface CommentSummary {
  run_id: string;
  pull_request: { number: number; head_sha: string } | null;
  ran: { source: string; rows: RanRow[] } | null;
  canary: { jobs: WorkflowJob[]; passed: boolean } | null;
  success_rate: { source: string; n_success: number; total: number; pct: number | null; by_hardware: RunStats } | null;
  /** The comparison with the official results: points per verdict, and how the verdicts were reached. */
  comparison: {
    points: number;
    compared: number;
    unmatched: number;
    regressions: number;
    verdicts: Comparison['verdicts'];
    method: Comparison['method'];
  };
  evals: EvalVerdict[];
  links: DashboardLink[];
}

export function evalVerdicts(rows: readonly EvalRow[]): EvalVerdict[] {
  return rows.map((r) => ({
    config: configLabel(r),
    task: r.task,
    conc: r.conc,
    score: r.score,
    score_name: r.score_name,
    threshold: r.threshold,
    verdict: r.passed === null ? 'no threshold' : r.passed ? 'pass' : 'fail',
  }));
}

/** The run page, and per model and sequence lengths of its points, the inference chart with the run drawn over the official results. */
export function dashboardLinks(base: string, runId: string, comparison: Comparison): DashboardLink[] {
  const root = base.replace(/\/+$/, '');
  const links: DashboardLink[] = [{ title: `run ${runId}`, url: `${root}/runs/${encodeURIComponent(runId)}` }];
  const seen = new Set<string>();
  for (const p of comparison.points) {
    const model = p.config.model_prefix;
    const seq = `${p.isl}x${p.osl}`;
    if (seen.has(`${model} ${seq}`)) continue;
    seen.add(`${model} ${seq}`);
    const q = new URLSearchParams({ model, seq, run: runId });
    links.push({
      title: `${model} ${p.isl}/${p.osl}: this run over the official results`,
      url: `${root}/inference?${q.toString()}`,
    });
  }
  return links;
}

export function commentSummary(input: CommentInput): CommentSummary {
  const canaryJobs = (input.jobs ?? []).filter((j) => /^canary\s*\//i.test(j.name));
  const rate = input.runStats ? overallRate(input.runStats.stats) : undefined;
  const c = input.comparison;
  return {
    run_id: input.runId,
    pull_request: input.pullRequest ? { number: input.pullRequest.number, head_sha: input.pullRequest.headSha } : null,
    ran: input.ran ?? null,
    canary: canaryJobs.length > 0 ? { jobs: canaryJobs, passed: canaryJobs.every((j) => j.conclusion === 'success') } : null,
    success_rate:
      input.runStats && rate
        ? {
            source: input.runStats.source,
            n_success: rate.n_success,
            total: rate.total,
            pct: rate.pct ?? null,
            by_hardware: input.runStats.stats,
          }
        : null,
    comparison: {
      points: c.points.length,
      compared: c.points.length - c.unmatched,
      unmatched: c.unmatched,
      regressions: c.regressions,
      verdicts: c.verdicts,
      method: c.method,
    },
    evals: evalVerdicts(input.evals),
    links: input.dashboardUrl ? dashboardLinks(input.dashboardUrl, input.runId, c) : [],
  };
}

const pct = (n: number, total: number): string => (total > 0 ? `${pyFixed((n / total) * 100, 1)}%` : '–');
const cell = (s: string): string => s.replace(/\|/g, '\\|');
const VERDICT_MARK: Record<Verdict, string> = { pass: '✅ pass', fail: '❌ fail', 'no threshold': '– no threshold' };

function ranSection(s: CommentSummary): string[] {
  const lines = ['### What ran', ''];
  if (!s.ran) return [...lines, '_No run directory or matrix was given._', ''];
  const fromRun = s.ran.source === 'run directory';
  lines.push(`From the ${s.ran.source}: ${s.ran.rows.length} config${s.ran.rows.length === 1 ? '' : 's'}.`, '');
  lines.push(
    fromRun
      ? '| hardware | config | concurrencies | eval | points ok | status |'
      : '| hardware | config | concurrencies | eval |',
  );
  lines.push(fromRun ? '|---|---|---|---|---:|---|' : '|---|---|---|---|');
  for (const r of s.ran.rows) {
    const base = `| ${cell(r.hardware)} | ${cell(r.config)} | ${r.concs.join(', ')} | ${r.eval ? 'yes' : ''} |`;
    lines.push(fromRun ? `${base} ${r.ok ?? 0}/${r.points ?? 0} | ${r.status ?? ''} |` : base);
  }
  lines.push('');
  if (s.canary) {
    const mark = s.canary.passed ? '✅ passed' : '❌ failed';
    lines.push(
      `**Canary:** ${mark} (${s.canary.jobs.map((j) => `\`${j.name}\`: ${j.conclusion ?? 'not finished'}`).join('; ')})`,
      '',
    );
  }
  return lines;
}

function successSection(s: CommentSummary): string[] {
  const lines = ['### Success rate', ''];
  const r = s.success_rate;
  if (!r)
    return [...lines, '_No job outcomes: give the workflow run’s jobs, a run directory, or ingest its run_stats.json._', ''];
  lines.push(`**${r.n_success} of ${r.total} jobs succeeded (${pct(r.n_success, r.total)})**, from ${r.source}.`, '');
  const ran = Object.entries(r.by_hardware).filter(([, v]) => v.total > 0);
  if (ran.length > 0) {
    lines.push('| hardware | succeeded | jobs | rate |', '|---|---:|---:|---:|');
    for (const [hw, v] of ran) lines.push(`| ${cell(hw)} | ${v.n_success} | ${v.total} | ${pct(v.n_success, v.total)} |`);
    lines.push('');
  }
  return lines;
}

function evalSection(s: CommentSummary): string[] {
  const lines = ['### Evals', ''];
  if (s.evals.length === 0) return [...lines, '_This run stored no eval results._', ''];
  const failed = s.evals.filter((e) => e.verdict === 'fail').length;
  lines.push(`${s.evals.length - failed} of ${s.evals.length} passed${failed > 0 ? `; **${failed} failed**` : ''}.`, '');
  lines.push('| verdict | config | task | conc | score | threshold |', '|---|---|---|---:|---:|---:|');
  for (const e of s.evals)
    lines.push(
      `| ${VERDICT_MARK[e.verdict]} | ${cell(e.config)} | ${e.task} | ${e.conc} | ${pyFixed(e.score, 4)} (${e.score_name}) | ${e.threshold === null ? '–' : String(e.threshold)} |`,
    );
  return [...lines, ''];
}

function linkSection(s: CommentSummary): string[] {
  if (s.links.length === 0) return [];
  return ['### Dashboard', '', ...s.links.map((l) => `- [${l.title}](${l.url})`), ''];
}

/** The comparison, its heading one level down; its table cut when the comment would run over GitHub's limit. */
function comparisonSection(c: Comparison, budget: number): string[] {
  const lines = comparisonMarkdown(c).trimEnd().split('\n');
  if (lines[0]?.startsWith('## ')) lines[0] = `#${lines[0]}`;
  let size = lines.reduce((n, l) => n + l.length + 1, 0);
  let cut = 0;
  while (size > budget && lines.length > 6) {
    size -= lines.pop()!.length + 1;
    cut++;
  }
  if (cut > 0)
    lines.push(
      '',
      `_${cut} more row${cut === 1 ? '' : 's'} left out to fit a comment: see the dashboard or \`frontier compare\`._`,
    );
  return [...lines, ''];
}

export function commentMarkdown(s: CommentSummary, comparison: Comparison): string {
  const head = [COMMENT_MARKER, `## Frontier sweep: run ${s.run_id}`, ''];
  if (s.pull_request) head.push(`Pull request #${s.pull_request.number} at \`${s.pull_request.head_sha.slice(0, 12)}\`.`, '');
  const rest = [...ranSection(s), ...successSection(s)];
  const tail = [...evalSection(s), ...linkSection(s)];
  const used = [...head, ...rest, ...tail].reduce((n, l) => n + l.length + 1, 0);
  return `${[...head, ...rest, ...comparisonSection(comparison, COMMENT_LIMIT - used - 200), ...tail].join('\n').trimEnd()}\n`;
}
