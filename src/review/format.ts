import { formatProblem } from '../catalog/index.js';
import { textTable } from '../util/text-table.js';
import type { CommitReview } from './backtest.js';
import type { Rule, RuleFinding } from './rule.js';
import type { LintReport, ReviewReport, ReviewedFinding } from './run.js';
import type { KeySweep } from './sweep.js';

export type ReportFormat = 'text' | 'markdown' | 'json';

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

function tally(findings: readonly RuleFinding[]): string {
  const errors = findings.filter((f) => f.severity === 'error').length;
  return `${plural(errors, 'error')}, ${plural(findings.length - errors, 'warning')}`;
}

/** Findings per rule, most frequent first: `recipe/config-file-unverifiable ×216`. */
function byRule(findings: readonly RuleFinding[]): string[] {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([rule, n]) => `${rule} ×${n}`);
}

const findingText = (f: RuleFinding, hint = true): string =>
  formatProblem({ ...f, message: `${f.message}  [${f.rule}]`, hint: hint ? f.hint : undefined });

/** "7 rows, all ISL 8192 / OSL 1024" or "12 rows: ISL 1024 / OSL 1024 ×4, ISL 8192 / OSL 1024 ×8". */
function sweepLine(s: KeySweep): string {
  if (s.error) return `${s.key}: cannot generate: ${s.error}`;
  const scenarios = Object.entries(s.scenarios);
  const evals = s.evalRows > 0 ? `; ${plural(s.evalRows, 'eval row')}` : '';
  if (s.rows === 0) return `${s.key}: evals only${evals}`;
  const where = scenarios.length === 1 ? `all ${scenarios[0]![0]}` : scenarios.map(([label, n]) => `${label} ×${n}`).join(', ');
  return `${s.key}: ${plural(s.rows, 'row')} (${plural(s.points, 'point')}), ${where}${evals}`;
}

function changeLines(report: ReviewReport): string[] {
  const { keys, recipes, changelog, launchers } = report.change;
  const list = (sign: string, items: string[]): string[] => items.map((i) => `    ${sign} ${i}`);
  const metadata = new Map(report.metadataOnly.map((m) => [m.key, m.fields]));
  const edited = keys.edited.map((k) =>
    metadata.has(k) ? `${k} (metadata only: ${metadata.get(k)!.join(', ')}; no sweep needed)` : k,
  );
  return [
    `config keys: ${keys.added.length} added, ${keys.edited.length} edited, ${keys.removed.length} removed`,
    ...list('+', keys.added),
    ...list('~', edited),
    ...list('-', keys.removed),
    `recipes: ${recipes.added.length} added, ${recipes.changed.length} changed, ${recipes.removed.length} removed`,
    ...list('+', recipes.added),
    ...list('~', recipes.changed),
    ...list('-', recipes.removed),
    ...(launchers.changed.length > 0
      ? [`launchers: ${plural(launchers.routes.length, 'new or edited srt-slurm clone')} in ${launchers.changed.join(', ')}`]
      : []),
    `${changelog.file}: ${changelog.changed ? plural(report.appendedEntries, 'appended entry', 'appended entries') : 'unchanged'}`,
  ];
}

function verdict(report: ReviewReport): string {
  const own = report.findings.filter((f) => f.status === 'new');
  const errors = own.filter((f) => f.severity === 'error').length;
  const others = report.findings.length - own.length;
  const rest = others > 0 ? ` (${plural(others, 'other finding')} not on this change)` : '';
  if (!report.ok) return `✗ ${plural(errors, 'error')} on this change${rest}`;
  return own.length === 0
    ? `✓ no findings on this change${rest}`
    : `✓ no errors on this change, ${plural(own.length, 'warning')}${rest}`;
}

interface Section {
  title: string;
  findings: ReviewedFinding[];
}

function sections(report: ReviewReport): { own: Section; earlier: Section; preexisting: Section } {
  const where = (status: ReviewedFinding['status']): ReviewedFinding[] => report.findings.filter((f) => f.status === status);
  return {
    own: {
      title: report.since ? `Findings on what changed since ${report.since}` : 'Findings on this change',
      findings: where('new'),
    },
    earlier: { title: `Findings on earlier commits of this change (reviewed at ${report.since})`, findings: where('earlier') },
    preexisting: { title: 'Pre-existing findings (on what this change does not touch)', findings: where('pre-existing') },
  };
}

export function formatReview(report: ReviewReport, format: ReportFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (format === 'markdown') return reviewMarkdown(report);
  const out = [`Review of ${report.head} against ${report.base}`, '', 'Change', ...changeLines(report).map((l) => `  ${l}`), ''];
  if (report.sweep.length > 0) {
    out.push('Sweep (what the appended entries run)');
    for (const s of report.sweep) {
      out.push(`  ${sweepLine(s)}`);
      for (const r of s.runs) out.push(`      ${r.run}  conc ${r.conc.join(', ')}`);
    }
    out.push('');
  }
  const { own, earlier, preexisting } = sections(report);
  out.push(`${own.title}: ${own.findings.length === 0 ? 'none' : tally(own.findings)}`);
  for (const f of own.findings) out.push(indent(findingText(f)));
  for (const { title, findings } of [earlier, preexisting]) {
    if (findings.length === 0) continue;
    out.push('', `${title}: ${tally(findings)} (${byRule(findings).join(', ')})`);
    for (const f of findings) out.push(indent(findingText(f, false)));
  }
  out.push('', verdict(report));
  return `${out.join('\n')}\n`;
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n\s*/g, '<br>');

function findingTable(findings: readonly RuleFinding[]): string[] {
  const rows = findings.map((f) => {
    const subject = [f.key, f.path].filter(Boolean).join(' › ');
    const where = f.line > 0 ? `${f.file}:${f.line}` : f.file;
    const icon = f.severity === 'error' ? '✗' : '⚠';
    return `| ${icon} | \`${where}\` | \`${f.rule}\` | ${cell(`${subject ? `${subject}: ` : ''}${f.message}`)} | ${cell(f.hint ?? '')} |`;
  });
  return ['|  | where | rule | problem | fix |', '|---|---|---|---|---|', ...rows];
}

function reviewMarkdown(report: ReviewReport): string {
  const out = [
    `## Frontier review: ${verdict(report)}`,
    '',
    `\`${report.head}\` against \`${report.base}\``,
    '',
    '### Change',
    '',
  ];
  out.push(...changeLines(report).map((l) => (l.startsWith('    ') ? `  - \`${l.trim()}\`` : `- ${l}`)), '');
  if (report.sweep.length > 0) {
    out.push('### Sweep', '');
    for (const s of report.sweep) {
      out.push(`- **${sweepLine(s).replace(/^([^:]+):/, '$1**:')}`);
      for (const r of s.runs) out.push(`  - \`${r.run}\`: conc ${r.conc.join(', ')}`);
    }
    out.push('');
  }
  const { own, earlier, preexisting } = sections(report);
  out.push(`### ${own.title}`, '', own.findings.length === 0 ? 'None.' : findingTable(own.findings).join('\n'), '');
  for (const { title, findings } of [earlier, preexisting]) {
    if (findings.length === 0) continue;
    out.push(`<details><summary>${title}: ${tally(findings)}</summary>`, '', ...findingTable(findings), '', '</details>', '');
  }
  return `${out.join('\n')}`;
}

export function formatLint(report: LintReport, format: ReportFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  const summary = `${report.tree}: ${plural(report.keys, 'config key')}, ${plural(report.recipes, 'recipe')}: ${tally(report.findings)}`;
  const rules = report.findings.length > 0 ? ` (${byRule(report.findings).join(', ')})` : '';
  if (format === 'markdown') {
    const table = report.findings.length > 0 ? [...findingTable(report.findings), ''] : [];
    return [`## Frontier lint: ${report.ok ? '✓' : '✗'} ${summary}`, '', ...table].join('\n');
  }
  const lines = report.findings.map((f) => findingText(f));
  if (lines.length > 0) lines.push('');
  lines.push(`${report.ok ? '✓' : '✗'} ${summary}${rules}`);
  return `${lines.join('\n')}\n`;
}

export function formatRules(rules: readonly Rule[], format: 'text' | 'json' | 'markdown'): string {
  if (format === 'markdown') {
    const rows = rules.map(
      (r) =>
        `| \`${r.id}\` | ${r.severity} | ${r.scope === 'change' ? 'review' : 'lint, review'} | ${cell(r.description)} | ${cell(r.explanation)} |`,
    );
    return `${['| rule | severity | runs in | what it checks | why, and the fix |', '|---|---|---|---|---|', ...rows].join('\n')}\n`;
  }
  if (format === 'json') {
    return `${JSON.stringify(
      rules.map(({ id, severity, scope, description, explanation }) => ({ id, severity, scope, description, explanation })),
      null,
      2,
    )}\n`;
  }
  if (rules.length === 1) {
    const [r] = rules;
    return `${r!.id}  (${r!.severity}, ${r!.scope === 'change' ? 'review only' : 'lint and review'})\n\n${r!.description}.\n\n${wrap(r!.explanation, 96)}\n`;
  }
  const lines = textTable(
    rules.map((r) => [r.id, r.severity, r.scope === 'change' ? 'review' : 'lint', r.description]),
    { minWidths: [0, 7, 7] },
  );
  return `${lines.join('\n')}\n\n${plural(rules.length, 'rule')}; \`frontier rules <id>\` explains one. "review" rules need the base of a change.\n`;
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** One line of `review --each`: verdict, commit, time, the rules its own findings come from, subject. */
export function formatBacktestLine(r: CommitReview): string {
  const errors = r.findings.filter((f) => f.severity === 'error');
  const warnings = r.findings.filter((f) => f.severity === 'warning');
  const rules = [
    ...byRule(errors),
    ...(warnings.length > 0 ? [`warnings: ${byRule(warnings).join(', ')}`] : []),
    ...(r.noSweep ? [`no sweep (${r.noSweep.reason})`] : []),
  ];
  const subject = r.subject.length > 72 ? `${r.subject.slice(0, 71)}…` : r.subject;
  return `${r.ok ? '✓' : '✗'} ${r.commit} ${r.seconds.toFixed(1).padStart(5)}s  ${rules.length > 0 ? `${rules.join('; ')}  ` : ''}${subject}`;
}

export function formatBacktestSummary(reviews: readonly CommitReview[]): string {
  const failed = reviews.filter((r) => !r.ok);
  const rules = byRule(failed.flatMap((r) => r.findings.filter((f) => f.severity === 'error')));
  const seconds = reviews.reduce((sum, r) => sum + r.seconds, 0);
  return `${plural(reviews.length, 'commit')} in ${seconds.toFixed(1)} s: ${reviews.length - failed.length} pass, ${failed.length} fail${rules.length > 0 ? ` (${rules.join(', ')})` : ''}`;
}

export function formatBacktestMarkdown(reviews: readonly CommitReview[]): string {
  const rows = reviews.map((r) => {
    const rules = [...new Set(r.findings.map((f) => `\`${f.rule}\``))].join(', ');
    return `| ${r.ok ? '✓' : '✗'} | \`${r.commit}\` | ${r.seconds.toFixed(1)} s | ${rules} | ${cell(r.subject)} |`;
  });
  return [
    `## Frontier review, commit by commit: ${formatBacktestSummary(reviews)}`,
    '',
    '|  | commit | time | rules | subject |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
