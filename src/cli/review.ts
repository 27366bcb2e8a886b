import { Command } from 'commander';
import { formatProblem } from '../catalog/index.js';
import { DEFAULT_CHANGELOG, dirSnapshot, gitSnapshot } from '../changelog/index.js';
import { changeOptOut } from './opt-out.js';
import { requireDirectory } from './error.js';
import { POSITIVE_INT, parseNumber, formatOption } from './options.js';
import { UserError } from '../util/user-error.js';
import type { Snapshot } from '../changelog/index.js';
import { formatPlan, planRecipeFiles } from '../recipes/index.js';
import {
  RULES,
  firstParentCommits,
  formatBacktestLine,
  formatBacktestMarkdown,
  formatBacktestSummary,
  formatLint,
  formatReview,
  formatRules,
  lint,
  review,
  reviewEach,
} from '../review/index.js';
import type { CommitReview, ReportFormat } from '../review/index.js';
import { pathOption, pathArgument } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

interface TreeFlags {
  recipesDir?: string;
  toolchainDir?: string;
  changelogFile: string;
  configFiles?: string[];
  runnerConfig?: string;
}

function withTreeOptions(command: Command): Command {
  return command
    .addOption(
      pathOption(
        '--recipes-dir <dir>',
        'recipes folder in the tree (default: benchmarks/multi_node/srt-slurm-recipes)',
        'repository',
      ),
    )
    .addOption(pathOption('--toolchain-dir <dir>', 'an srt-slurm checkout, to check CONFIG_FILEs that are not in the tree'))
    .addOption(
      pathOption('--changelog-file <path>', 'the changelog, relative to the repository root', 'repository').default(
        DEFAULT_CHANGELOG,
      ),
    )
    .addOption(pathOption('--config-files <files...>', 'master configs (default: configs/*-master.yaml)', 'repository'))
    .addOption(pathOption('--runner-config <path>', 'runners file', 'repository').default('configs/runners.yaml'));
}

/** A revision given as a git ref or a directory (exactly one of the two). */
function side(name: string, ref: string | undefined, dir: string | undefined, fallbackDir?: string): Snapshot {
  if (ref && dir) throw new UserError(`give either --${name} or --${name}-dir, not both`);
  if (ref) return gitSnapshot(ref);
  if (dir) return dirSnapshot(requireDirectory(dir, `--${name}-dir`));
  if (fallbackDir) return dirSnapshot(fallbackDir);
  throw new UserError(`the ${name} revision is missing: give --${name} <ref> (e.g. origin/main) or --${name}-dir <dir>`);
}

export function recipeCommand(): Command {
  const recipe = new Command('recipe').description('srt-slurm recipes: the dry-run plan srtctl would submit');
  recipe
    .command('plan')
    .description('nodes, per-node GPU map, totals and findings of each recipe (every variant of an override file)')
    .addArgument(
      pathArgument('<files...>', 'recipe files, optionally FILE:selector (override_<name>, zip_override_<group>[<i>])'),
    )
    .addOption(formatOption())
    .action(async (files: string[], opts: { format: 'text' | 'json' }) => {
      const planned = await planRecipeFiles(files);
      const failed = planned.some((p) => !p.plan || p.problems.some((q) => q.severity === 'error'));
      if (opts.format === 'json') {
        process.stdout.write(`${JSON.stringify(planned, null, 2)}\n`);
      } else {
        const blocks = planned.map((p) => {
          const label = p.selector ? `${p.file}:${p.selector}` : p.file;
          const body = p.plan ? formatPlan({ ...p.plan, findings: [] }, label) : `${label}: not a valid recipe`;
          return [body, ...p.problems.map((q) => formatProblem(q).replace(/^/gm, '  '))].join('\n');
        });
        process.stdout.write(`${blocks.join('\n\n')}\n`);
      }
      process.exitCode = failed ? ExitCode.FAILED : ExitCode.OK;
    });
  return recipe;
}

export function rulesCommand(): Command {
  return new Command('rules')
    .description('list the review rules (id, severity, where they run, what they check), or explain one')
    .argument('[id]', 'a rule id, e.g. recipe/dynamo-install-disabled')
    .addOption(formatOption(['text', 'json', 'markdown']))
    .action((id: string | undefined, opts: { format: 'text' | 'json' | 'markdown' }) => {
      const rules = id === undefined ? RULES : RULES.filter((r) => r.id === id);
      if (rules.length === 0) throw new UserError(`no rule ${id}; \`frontier rules\` lists them`);
      process.stdout.write(formatRules(rules, opts.format));
    });
}

export function reviewCommand(): Command {
  return withTreeOptions(new Command('review'))
    .description(
      'review a change: what it changes, the sweep it runs, and every finding (exit 1 on an error the change introduces); or, with --each/--last, every commit of a history',
    )
    .option('--base <ref>', 'base revision: a git ref (read with git, no checkout)')
    .addOption(pathOption('--base-dir <dir>', 'base revision: a directory in the InferenceX layout', 'catalog'))
    .option('--head <ref>', 'head revision: a git ref (its commit message may opt out of the sweep: [skip-sweep])')
    .addOption(pathOption('--head-dir <dir>', 'head revision: a directory (default: the working tree, .)', 'catalog'))
    .option('--since <ref>', 'an earlier reviewed commit of this change: only what changed after it decides')
    .addOption(pathOption('--since-dir <dir>', 'the same, as a directory', 'catalog'))
    .option('--pr <number>', 'the pull request number (for the changelog pr-link rule)', (v) =>
      parseNumber('--pr', v, { ...POSITIVE_INT, expected: 'a pull request number' }),
    )
    .addOption(
      pathOption(
        '--pr-body <file>',
        'the pull request description (a "no-sweep: <reason>" line opts out of the sweep); - reads stdin',
      ),
    )
    .option('--each <range>', 'review every first-parent commit of A..B (a git range) against its parent, one line each')
    .option('--last <n>', 'review the last n first-parent commits of --head (default HEAD), one line each', (v) =>
      parseNumber('--last', v, { ...POSITIVE_INT, expected: 'a number of commits' }),
    )
    .addOption(pathOption('--repo <dir>', 'the git checkout --each/--last read', 'catalog').default('.'))
    .addOption(formatOption(['text', 'markdown', 'json']))
    .action(
      async (
        opts: TreeFlags & {
          base?: string;
          baseDir?: string;
          head?: string;
          headDir?: string;
          since?: string;
          sinceDir?: string;
          pr?: number;
          prBody?: string;
          each?: string;
          last?: number;
          repo: string;
          format: ReportFormat;
        },
      ) => {
        if (opts.each !== undefined || opts.last !== undefined) {
          await backtest(opts);
          return;
        }
        const base = side('base', opts.base, opts.baseDir);
        const head = side('head', opts.head, opts.headDir, '.');
        const since = opts.since || opts.sinceDir ? side('since', opts.since, opts.sinceDir) : undefined;
        const noSweep = await changeOptOut(opts.prBody, opts.head);
        const report = await review(base, head, { ...treeOptions(opts), pr: opts.pr, since, noSweep });
        process.stdout.write(formatReview(report, opts.format));
        process.exitCode = report.ok ? ExitCode.OK : ExitCode.FAILED;
      },
    );
}

async function backtest(
  opts: TreeFlags & { each?: string; last?: number; head?: string; repo: string; format: ReportFormat },
): Promise<void> {
  if (opts.each !== undefined && opts.last !== undefined)
    throw new UserError('give either --each <range> or --last <n>, not both');
  const repo = requireDirectory(opts.repo, '--repo');
  const commits = await firstParentCommits(
    repo,
    opts.each !== undefined ? { range: opts.each } : { last: opts.last!, ref: opts.head },
  );
  if (commits.length === 0)
    throw new UserError(
      `no commits to review in ${opts.each ?? `the last ${opts.last}`} (first-parent, root commits have no base)`,
    );
  const reviews: CommitReview[] = [];
  for await (const r of reviewEach(repo, commits, treeOptions(opts))) {
    reviews.push(r);
    if (opts.format === 'text') process.stdout.write(`${formatBacktestLine(r)}\n`);
  }
  if (opts.format === 'text') process.stdout.write(`\n${formatBacktestSummary(reviews)}\n`);
  else if (opts.format === 'markdown') process.stdout.write(formatBacktestMarkdown(reviews));
  else process.stdout.write(`${JSON.stringify({ summary: formatBacktestSummary(reviews), commits: reviews }, null, 2)}\n`);
  process.exitCode = reviews.every((r) => r.ok) ? ExitCode.OK : ExitCode.FAILED;
}

export function lintCommand(): Command {
  return withTreeOptions(new Command('lint'))
    .description('run every rule that needs no base over a whole tree (configs against all recipes); exit 1 on errors')
    .addArgument(pathArgument('[dir]', 'the tree (InferenceX layout)', 'catalog').default('.'))
    .option('--ref <ref>', 'lint a git revision instead of a directory')
    .addOption(formatOption(['text', 'markdown', 'json']))
    .action(async (dir: string, opts: TreeFlags & { ref?: string; format: ReportFormat }) => {
      requireDirectory(dir, opts.ref ? 'the repository' : 'the tree');
      const report = await lint(opts.ref ? gitSnapshot(opts.ref, dir) : dirSnapshot(dir), treeOptions(opts));
      process.stdout.write(formatLint(report, opts.format));
      process.exitCode = report.ok ? ExitCode.OK : ExitCode.FAILED;
    });
}

const treeOptions = (opts: TreeFlags): TreeFlags => ({
  recipesDir: opts.recipesDir,
  toolchainDir: opts.toolchainDir === undefined ? undefined : requireDirectory(opts.toolchainDir, '--toolchain-dir'),
  changelogFile: opts.changelogFile,
  configFiles: opts.configFiles,
  runnerConfig: opts.runnerConfig,
});
