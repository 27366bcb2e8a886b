import { isDeepStrictEqual } from 'node:util';
import { plainKind } from '../catalog/yaml/index.js';
import type { ChangelogEntry } from './entry.js';
import { prLink } from './entry.js';
import { checkHistory, entryBlocks } from './history.js';
import { parseChangelog } from './parse.js';
import type { ParsedChangelog } from './parse.js';
import { ChangelogError } from './plan.js';

/** One entry as the file writes it: two-space indents, double-quoted descriptions, optional fields after pr-link. */
export function formatEntry(entry: ChangelogEntry): string {
  const lines = ['- config-keys:', ...entry['config-keys'].map((k) => `    - ${scalar(k)}`)];
  if (entry['scenario-type']) lines.push('  scenario-type:', ...entry['scenario-type'].map((s) => `    - ${s}`));
  lines.push('  description:', ...entry.description.map((d) => `    - ${JSON.stringify(d)}`));
  lines.push(`  pr-link: ${scalar(entry['pr-link'])}`);
  for (const flag of ['evals-only', 'all-evals', 'append-only'] as const) if (entry[flag]) lines.push(`  ${flag}: true`);
  if (entry['eval-min-prefill-ep'] !== undefined) lines.push(`  eval-min-prefill-ep: ${entry['eval-min-prefill-ep']}`);
  return `${lines.join('\n')}\n`;
}

/** A string written plain when YAML reads it back unchanged, double-quoted otherwise. */
function scalar(s: string): string {
  return /^[A-Za-z0-9][\w.*?/:#-]*$/.test(s) && plainKind(s) === 'str' && !/: |:$| #/.test(s) ? s : JSON.stringify(s);
}

/** The file with one entry appended after exactly one blank line, ending in one newline. */
export function appendEntry(raw: Buffer, block: string): Buffer {
  let text = raw.toString('utf8');
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  const separator = text === '' || text.endsWith('\n\n') ? '' : '\n';
  return Buffer.from(text + separator + block);
}

/** Entry identity without its pr-link (the same contribution, linked or not). */
const signature = (entry: Record<string, unknown>): Record<string, unknown> => {
  const { 'pr-link': _, ...rest } = entry;
  return rest;
};

async function parsed(raw: Buffer, label: string): Promise<ParsedChangelog> {
  const result = await parseChangelog(raw, label);
  if (result.problems.length > 0)
    throw new ChangelogError(`${label}: ${result.problems[0]!.message} (line ${result.problems[0]!.line})`);
  return result;
}

/**
 * Resolve a merge conflict in perf-changelog.yaml as the reference documents it: never a 3-way
 * merge; take main's bytes as they are and re-append the pull request's own new entries at the
 * end (those main does not already have), their pr-link set to this pull request. A PR that
 * only corrects historical pr-links gets those corrections applied to main's bytes.
 */
export async function mergeChangelog(
  baseRaw: Buffer,
  prRaw: Buffer,
  mainRaw: Buffer,
  pr: number,
  repository?: string,
): Promise<Buffer> {
  const [base, ours, main] = await Promise.all([
    parsed(baseRaw, 'merge base'),
    parsed(prRaw, 'pull request side'),
    parsed(mainRaw, 'main side'),
  ]);
  const history = checkHistory(base, ours, pr, repository);
  if (history.problems.length > 0) {
    const p = history.problems[0]!;
    throw new ChangelogError(`the pull request's changelog breaks its history (line ${p.line}): ${p.message}`);
  }
  const link = prLink(pr, repository);
  if (history.additions > 0) {
    const blocks = entryBlocks(ours);
    const contributions = ours.entries
      .map((entry, i) => ({ entry, i }))
      .slice(base.entries.length)
      .filter(({ entry }) => !main.entries.some((m) => isDeepStrictEqual(signature(m), signature(entry))))
      .map(({ i }) => setLink(blocks[i]!, link));
    if (contributions.length === 0) throw new ChangelogError('the PR has no changelog contribution remaining after merging main');
    return appendBlocks(mainRaw, contributions);
  }
  if (history.corrections > 0) {
    let text = mainRaw.toString('utf8');
    const spans = entrySpans(text);
    let applied = 0;
    // Replace from the end so earlier offsets stay valid; main's other bytes stay exactly as they are.
    for (let i = base.entries.length - 1; i >= 0; i--) {
      const wanted = String(ours.entries[i]!['pr-link'] ?? '');
      if (wanted === String(base.entries[i]!['pr-link'] ?? '')) continue;
      const current = main.entries[i];
      if (!current) throw new ChangelogError(`main is missing corrected entry ${i + 1}`);
      if (!isDeepStrictEqual(signature(current), signature(base.entries[i]!))) {
        throw new ChangelogError(`main changed corrected entry ${i + 1}; resolve it by hand`);
      }
      const mainLink = String(current['pr-link'] ?? '');
      if (mainLink === wanted) continue;
      if (mainLink !== String(base.entries[i]!['pr-link'] ?? ''))
        throw new ChangelogError(`main has a conflicting pr-link for entry ${i + 1}`);
      const { start, end } = spans[i]!;
      text = text.slice(0, start) + setLink(text.slice(start, end), wanted) + text.slice(end);
      applied++;
    }
    if (applied === 0) throw new ChangelogError("the PR's pr-link corrections are already present on main");
    return Buffer.from(text);
  }
  throw new ChangelogError('the PR has no appended entry or pr-link correction to preserve');
}

function appendBlocks(raw: Buffer, blocks: string[]): Buffer {
  return blocks.reduce((file, block) => appendEntry(file, block), raw);
}

// The pr-link line, with the continuation lines of a value that wraps onto the next line.
const PR_LINK_LINE = /^ {2}pr-link:.*(?:\n {3,}\S.*)*$/m;

function setLink(block: string, link: string): string {
  if (!PR_LINK_LINE.test(block)) throw new ChangelogError('could not locate the pr-link line of a changelog entry');
  return block.replace(PR_LINK_LINE, `  pr-link: ${link}`);
}

/** Where each entry's text starts and ends (the next entry's start, or the end of the file). */
function entrySpans(text: string): { start: number; end: number }[] {
  const starts = [...text.matchAll(/^- config-keys:/gm)].map((m) => m.index);
  return starts.map((start, k) => ({ start, end: starts[k + 1] ?? text.length }));
}
