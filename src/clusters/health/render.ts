/**
 * The fleet health digest, printed: markdown (an issue or PR comment, a workflow's step summary),
 * plain text (a terminal), and a webhook payload. The payload is Slack's message format,
 * `{ text, blocks }` (an incoming webhook posts it as it is; `text` is the notification line and
 * what clients without blocks show), which Mattermost and Rocket.Chat incoming webhooks read too.
 */
import { textTable } from '../../util/text-table.js';
import { headline, windowText } from './digest.js';
import type { FailingNode, FleetHealth, LabelHealth, RunnerHealth } from './digest.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n\s*/g, ' ');
const list = (xs: readonly string[]): string => (xs.length === 0 ? '—' : xs.join(', '));
const when = (iso: string): string => iso.slice(0, 16).replace('T', ' ');
const title = (h: FleetHealth): string => `Fleet health: ${h.attention ? 'needs attention' : 'healthy'}`;
const nodesHeading = (h: FleetHealth): string =>
  `Nodes whose launches keep failing (${h.nodes.minFailures} failure${h.nodes.minFailures === 1 ? '' : 's'} or more${windowText(h.nodes)})`;
const notChecked = 'launch failures not checked: no store given (--db or $FRONTIER_DB)';

/** A label's state in words: down, some offline, all busy, or fine. */
function labelNote(l: LabelHealth): string {
  if (l.runners.length === 0) return 'no runner registered';
  if (l.down) return 'no online runner';
  if (l.offline > 0) return 'some offline';
  return l.busy === l.online ? 'all busy' : 'ok';
}

const labelRow = (l: LabelHealth): string[] => [
  l.label,
  String(l.online),
  String(l.busy),
  String(l.offline),
  String(l.unregistered.length),
  list(l.clusters),
  labelNote(l),
];
const LABEL_HEADER = ['label', 'online', 'busy', 'offline', 'not registered', 'clusters', 'state'];
const nodeRow = (n: FailingNode): string[] => [
  n.cluster,
  n.node,
  String(n.failures),
  String(n.attempts),
  when(n.last_failure_at),
  n.last_failure_run,
  n.last_failure_reason.slice(0, 100),
];
const NODE_HEADER = ['cluster', 'node', 'failures', 'attempts', 'last failure', 'run', 'reason'];

function mdTable(header: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map((_, i) => (right.includes(i) ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

export function healthMarkdown(h: FleetHealth): string {
  const out = [`## ${h.attention ? ':warning:' : ':white_check_mark:'} ${title(h)}`, ''];
  if (h.attention) out.push(...h.findings.map((f, i) => (i === 0 ? `- **${f}**` : `- ${f}`)));
  else out.push(headline(h));
  const where = [h.repository, `${when(h.at)} UTC`, h.runUrl && `[workflow run](${h.runUrl})`].filter(Boolean);
  out.push('', `<sub>${where.join(' · ')}</sub>`, '', '### Runner labels', '');
  if (h.labels.length === 0) out.push('runners.yaml names no label.');
  else
    out.push(
      ...mdTable(
        LABEL_HEADER,
        h.labels.map((l) => {
          const row = labelRow(l);
          return l.down ? [`**${row[0]}**`, ...row.slice(1, -1), `**${row.at(-1)}**`] : row;
        }),
        [1, 2, 3, 4],
      ),
    );
  if (h.offline.length > 0)
    out.push(
      '',
      `### Offline runners (${h.offline.length})`,
      '',
      ...mdTable(
        ['runner', 'OS', 'runners.yaml labels', 'GitHub labels'],
        h.offline.map((r) => [`\`${r.name}\``, r.os, list(r.labels), list(r.githubLabels)]),
      ),
    );
  const unregistered = h.labels.filter((l) => l.unregistered.length > 0);
  if (unregistered.length > 0)
    out.push(
      '',
      '### Named in runners.yaml, not registered with GitHub',
      '',
      ...mdTable(
        ['label', 'runners'],
        unregistered.map((l) => [l.label, l.unregistered.map((n) => `\`${n}\``).join(', ')]),
      ),
    );
  if (h.unknown.length > 0)
    out.push(
      '',
      `### Runners no label of runners.yaml names (${h.unknown.length})`,
      '',
      ...mdTable(
        ['runner', 'state', 'GitHub labels'],
        h.unknown.map((r) => [`\`${r.name}\``, r.state, list(r.githubLabels)]),
      ),
    );
  out.push('', `### ${nodesHeading(h)}`, '');
  if (h.nodes.store === undefined) out.push(`_${notChecked}._`);
  else if (h.nodes.failing.length === 0) out.push(`None in ${h.nodes.store}.`);
  else out.push(...mdTable(NODE_HEADER, h.nodes.failing.map(nodeRow), [2, 3]));
  return `${out.join('\n')}\n`;
}

export function healthText(h: FleetHealth): string {
  const out = [`${title(h)}: ${headline(h)}`, ''];
  if (h.labels.length > 0)
    out.push(...textTable([LABEL_HEADER, ...h.labels.map(labelRow)], { align: ['left', 'right', 'right', 'right', 'right'] }));
  if (h.offline.length > 0) {
    out.push('', 'offline runners:');
    for (const r of h.offline) out.push(`  ${r.name} (${r.os || 'unknown OS'}): ${list(r.labels)}`);
  }
  const unregistered = h.labels.filter((l) => l.unregistered.length > 0);
  if (unregistered.length > 0) {
    out.push('', 'named in runners.yaml, not registered with GitHub:');
    for (const l of unregistered) out.push(`  ${l.label}: ${l.unregistered.join(', ')}`);
  }
  if (h.unknown.length > 0) {
    out.push('', 'runners no label of runners.yaml names:');
    for (const r of h.unknown) out.push(`  ${r.name} (${r.state}): ${list(r.githubLabels)}`);
  }
  out.push('', `${nodesHeading(h)}:`);
  if (h.nodes.store === undefined) out.push(`  ${notChecked}`);
  else if (h.nodes.failing.length === 0) out.push(`  none in ${h.nodes.store}`);
  else
    out.push(
      ...textTable([NODE_HEADER, ...h.nodes.failing.map(nodeRow)], { align: ['left', 'left', 'right', 'right'] }).map(
        (l) => `  ${l}`,
      ),
    );
  return `${out.join('\n')}\n`;
}

/** Slack's mrkdwn reserves &, < and >. */
const mrkdwn = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A section's lines, kept under Slack's 3000 characters for a text object: the rest is counted. */
const SECTION_LIMIT = 2900;
function section(heading: string, lines: readonly string[]): Record<string, unknown> {
  let text = `*${heading}*`;
  for (const [i, line] of lines.entries()) {
    const more = `\n… and ${lines.length - i} more (see the step summary)`;
    if (text.length + line.length + 1 + more.length > SECTION_LIMIT) {
      text += more;
      break;
    }
    text += `\n${line}`;
  }
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

const runnerLine = (r: RunnerHealth): string =>
  `• \`${mrkdwn(r.name)}\`${r.os ? ` (${mrkdwn(r.os)})` : ''}: ${mrkdwn(list(r.labels.length > 0 ? r.labels : r.githubLabels))}`;
const nodeLine = (n: FailingNode): string =>
  `• \`${mrkdwn(n.cluster)}/${mrkdwn(n.node)}\`: ${n.failures} failures in ${n.attempts} attempts, last ${when(n.last_failure_at)}: ${mrkdwn(n.last_failure_reason.slice(0, 160))}`;

/** The webhook payload (Slack's `{ text, blocks }`). */
export function healthSlack(h: FleetHealth): { text: string; blocks: Record<string, unknown>[] } {
  const where = [h.repository && mrkdwn(h.repository), `${when(h.at)} UTC`, h.runUrl && `<${h.runUrl}|workflow run>`].filter(
    Boolean,
  );
  const text = `${h.attention ? ':warning:' : ':white_check_mark:'} ${title(h)}${h.repository ? ` (${mrkdwn(h.repository)})` : ''}: ${mrkdwn(headline(h))}`;
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: title(h) } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: h.attention ? h.findings.map((f) => `• ${mrkdwn(f)}`).join('\n') : mrkdwn(headline(h)) },
    },
  ];
  const down = h.labels.filter((l) => l.down);
  if (down.length > 0)
    blocks.push(
      section(
        'Labels with no online runner',
        down.map(
          (l) => `• \`${mrkdwn(l.label)}\`${l.clusters.length > 0 ? ` (${mrkdwn(l.clusters.join(', '))})` : ''}: ${labelNote(l)}`,
        ),
      ),
    );
  if (h.offline.length > 0) blocks.push(section('Offline runners', h.offline.map(runnerLine)));
  if (h.unknown.length > 0) blocks.push(section('Runners no label of runners.yaml names', h.unknown.map(runnerLine)));
  if (h.nodes.failing.length > 0) blocks.push(section(nodesHeading(h), h.nodes.failing.map(nodeLine)));
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: where.join(' · ') }] });
  return { text, blocks };
}
