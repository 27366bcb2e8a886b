import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { defaultMasterConfigs, formatProblem } from '../catalog/index.js';
import {
  ChangelogError,
  DEFAULT_CHANGELOG,
  addEntry,
  changelogMatrix,
  changelogMatrixJson,
  checkChangelog,
  dirSnapshot,
  gitSnapshot,
  mergeChangelog,
  DEFAULT_REPOSITORY,
  prLink,
} from '../changelog/index.js';
import type { CheckReport, MetadataOnly, Snapshot } from '../changelog/index.js';
import { descriptiveSides } from '../review/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { requireDirectory } from './error.js';
import { changeOptOut } from './opt-out.js';
import { POSITIVE_INT, numberArg, formatOption } from './options.js';
import { pathOption } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

interface SideOptions {
  base?: string;
  baseDir?: string;
  head?: string;
  headDir?: string;
  changelogFile: string;
  configFiles?: string[];
  runnerConfig?: string;
}

const prNumber = numberArg({ ...POSITIVE_INT, expected: 'a pull request number' });

function withSides(command: Command): Command {
  return command
    .option('--base <ref>', 'base revision: a git ref of this repository (read with git show, no checkout)')
    .addOption(pathOption('--base-dir <dir>', 'base revision: a directory holding configs/ and perf-changelog.yaml', 'catalog'))
    .option('--head <ref>', 'head revision: a git ref')
    .addOption(pathOption('--head-dir <dir>', 'head revision: a directory (default: the working tree, .)', 'catalog'))
    .addOption(
      pathOption('--changelog-file <path>', 'the changelog, relative to the repository root', 'repository').default(
        DEFAULT_CHANGELOG,
      ),
    )
    .addOption(
      pathOption('--config-files <files...>', 'master configs (default: configs/*-master.yaml of each revision)', 'repository'),
    )
    .addOption(pathOption('--runner-config <path>', 'runners file', 'repository').default('configs/runners.yaml'));
}

function sides(opts: SideOptions): { base: Snapshot; head: Snapshot } {
  if (opts.base && opts.baseDir) throw new ChangelogError('give either --base or --base-dir, not both');
  if (opts.head && opts.headDir) throw new ChangelogError('give either --head or --head-dir, not both');
  if (!opts.base && !opts.baseDir)
    throw new ChangelogError('the base revision is missing: give --base <ref> (e.g. origin/main) or --base-dir <dir>');
  const base = opts.base ? gitSnapshot(opts.base) : dirSnapshot(requireDirectory(opts.baseDir!, '--base-dir'));
  const head = opts.head
    ? gitSnapshot(opts.head)
    : dirSnapshot(opts.headDir === undefined ? '.' : requireDirectory(opts.headDir, '--head-dir'));
  return { base, head };
}

/** A key edited in fields that describe its rows only. */
const metadataLine = (m: MetadataOnly): string =>
  `${m.key}: metadata only (${m.fields.join(', ')}): its rows measure what they did, no sweep needed`;

function formatCheck(report: CheckReport, format: 'text' | 'json' | 'markdown', file: string): string {
  if (format === 'json') return `${JSON.stringify({ ...report, fixed: undefined }, null, 2)}\n`;
  const errors = report.problems.filter((p) => p.severity === 'error');
  const summary = `${report.additions} appended ${report.additions === 1 ? 'entry' : 'entries'}, ${report.corrections} pr-link correction${report.corrections === 1 ? '' : 's'}, ${report.changedConfigs.length} changed config${report.changedConfigs.length === 1 ? '' : 's'}`;
  if (format === 'markdown') {
    const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n\s*/g, '<br>');
    const lines = [
      `### ${file} check: ${report.ok ? '✓ clean' : `✗ ${errors.length} problem${errors.length === 1 ? '' : 's'}`}`,
      '',
      summary,
      ...report.metadataOnly.map((m) => `\n${metadataLine(m)}`),
    ];
    if (report.problems.length > 0) {
      lines.push('', '| where | problem | fix |', '|---|---|---|');
      for (const p of report.problems) {
        const subject = [p.key, p.path].filter(Boolean).join(' › ');
        lines.push(
          `| \`${p.file}:${p.line}\` | ${cell(`${subject ? `${subject}: ` : ''}${p.message}`)} | ${cell(p.hint ?? '')} |`,
        );
      }
    }
    return `${lines.join('\n')}\n`;
  }
  const lines = report.problems.map(formatProblem);
  lines.push(...report.metadataOnly.map(metadataLine));
  if (lines.length > 0) lines.push('');
  lines.push(report.ok ? `✓ ${file}: ${summary}` : `✗ ${errors.length} problem${errors.length === 1 ? '' : 's'} (${summary})`);
  return `${lines.join('\n')}\n`;
}

export function changelogCommand(): Command {
  const changelog = new Command('changelog').description(
    'the perf-changelog.yaml gate: check a change, build its sweep, write entries right',
  );
  addCheckCommand(changelog);
  addMatrixCommand(changelog);
  addAddCommand(changelog);
  addMergeCommand(changelog);
  return changelog;
}

function addCheckCommand(changelog: Command): void {
  withSides(changelog.command('check'))
    .description('check a change of perf-changelog.yaml (file, history, sweep and pairing rules); exit 1 with findings')
    .option('--pr <number>', 'the pull request number (without it, the change is judged as on main)', prNumber)
    .option('--repository <owner/name>', 'the repository whose pull requests entries link to', DEFAULT_REPOSITORY)
    .option('--fix', 'repair blank-line separators, trailing whitespace and misplaced new entries in the head file')
    .addOption(
      pathOption(
        '--pr-body <file>',
        'the pull request description (a "no-sweep: <reason>" line opts out of the sweep); - reads stdin',
      ),
    )
    .addOption(formatOption(['text', 'json', 'markdown']))
    .action(
      async (
        opts: SideOptions & {
          pr?: number;
          repository: string;
          fix?: boolean;
          prBody?: string;
          format: 'text' | 'json' | 'markdown';
        },
      ) => {
        const { base, head } = sides(opts);
        const options = {
          ...opts,
          changelogFile: opts.changelogFile,
          noSweep: await changeOptOut(opts.prBody, opts.head),
          descriptive: descriptiveSides(base, head, opts),
        };
        let report = await checkChangelog(base, head, options);
        if (opts.fix && report.fixed) {
          if (opts.head)
            throw new ChangelogError(
              '--fix rewrites a file: give the head as a directory (--head-dir, default the working tree)',
            );
          writeFileAtomic(join(opts.headDir ?? '.', opts.changelogFile), report.fixed);
          process.stderr.write(`fixed ${join(opts.headDir ?? '.', opts.changelogFile)}\n`);
          report = await checkChangelog(base, head, options);
        }
        process.stdout.write(formatCheck(report, opts.format, opts.changelogFile));
        process.exitCode = report.ok ? ExitCode.OK : ExitCode.FAILED;
      },
    );
}

function addMatrixCommand(changelog: Command): void {
  withSides(changelog.command('matrix'))
    .description('the sweep the appended entries trigger (the reference process_changelog.py output)')
    .option('--trim-conc', 'one concurrency per recipe (single-node: the lowest; multinode: [min])')
    .option('--all-evals', "expand every entry's eval selection")
    .option('--evals-only', 'suppress throughput for every entry')
    .option('--base-label <label>', 'base_ref written into changelog_metadata (default: the ref or directory)')
    .option('--head-label <label>', 'head_ref written into changelog_metadata')
    .addOption(formatOption(['json'], 'the matrix as JSON (the reference prints only that)'))
    .action(
      async (
        opts: SideOptions & {
          trimConc?: boolean;
          allEvals?: boolean;
          evalsOnly?: boolean;
          baseLabel?: string;
          headLabel?: string;
        },
      ) => {
        const { base, head } = sides(opts);
        const matrix = await changelogMatrix(base, head, opts);
        process.stdout.write(`${changelogMatrixJson(matrix)}\n`);
      },
    );
}

function addAddCommand(changelog: Command): void {
  changelog
    .command('add')
    .description('append a correctly formatted entry (refuses config keys that do not exist)')
    .requiredOption('--key <keys...>', 'config keys (or * globs) to sweep')
    .requiredOption('--description <lines...>', 'what changed and why, one argument per line')
    .option('--pr <number>', 'the pull request number (default: the XXX placeholder)', prNumber)
    .option('--repository <owner/name>', 'the repository whose pull requests entries link to', DEFAULT_REPOSITORY)
    .option('--append-only', 'add concurrency points to existing curves without re-running them')
    .option('--evals-only', 'run the evals only')
    .option('--all-evals', 'run every eval of the keys')
    .option('--eval-min-prefill-ep <n>', 'drop multinode eval rows with a smaller prefill ep', numberArg(POSITIVE_INT))
    .addOption(
      new Option('--scenario-type <types...>', 'restrict to these scenarios').choices(['fixed-seq-len', 'agentic-coding']),
    )
    .addOption(pathOption('--file <path>', 'the changelog to append to', 'catalog').default(DEFAULT_CHANGELOG))
    .addOption(
      pathOption(
        '--config-files <files...>',
        'master configs the keys must exist in (default: configs/*-master.yaml)',
        'catalog',
      ),
    )
    .action(
      async (opts: Record<string, unknown> & { key: string[]; description: string[]; file: string; configFiles?: string[] }) => {
        const entry = {
          'config-keys': opts.key,
          description: opts.description,
          'pr-link': opts.pr === undefined ? 'XXX' : prLink(opts.pr as number, opts.repository as string),
          'evals-only': opts.evalsOnly ? true : undefined,
          'all-evals': opts.allEvals ? true : undefined,
          'append-only': opts.appendOnly ? true : undefined,
          'eval-min-prefill-ep': opts.evalMinPrefillEp,
          'scenario-type': opts.scenarioType,
        };
        const block = await addEntry(entry, opts.file, opts.configFiles ?? defaultMasterConfigs());
        process.stdout.write(`appended to ${opts.file}:\n\n${block}`);
      },
    );
}

function addMergeCommand(changelog: Command): void {
  changelog
    .command('merge')
    .description("resolve a perf-changelog.yaml merge conflict: main's bytes, then the PR's new entries")
    .addOption(pathOption('--base-file <file>', 'the merge base version (git stage 1)').makeOptionMandatory())
    .addOption(
      pathOption('--ours <file>', "the pull request's version (git stage 2 when merging main into the PR)").makeOptionMandatory(),
    )
    .addOption(pathOption('--theirs <file>', "main's version (git stage 3)").makeOptionMandatory())
    .requiredOption('--pr <number>', 'the pull request number: its new entries link to it', prNumber)
    .option('--repository <owner/name>', 'the repository whose pull requests entries link to', DEFAULT_REPOSITORY)
    .addOption(pathOption('-o, --output <file>', 'write the result here (default: standard output)'))
    .action(async (opts: { baseFile: string; ours: string; theirs: string; pr: number; repository: string; output?: string }) => {
      const [base, ours, theirs] = await Promise.all([readFile(opts.baseFile), readFile(opts.ours), readFile(opts.theirs)]);
      const merged = await mergeChangelog(base, ours, theirs, opts.pr, opts.repository);
      if (opts.output) writeFileAtomic(opts.output, merged);
      else process.stdout.write(merged);
    });
}
