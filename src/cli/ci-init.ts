/** `frontier ci init`: write the GitHub Actions workflows of a catalog repository. */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { HEALTH_WEBHOOK_SECRET, RUNNERS_TOKEN_SECRET, workflowFiles } from '../ci/workflows/index.js';
import { writeFilesAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { requireDirectory } from './error.js';
import { pathOption } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

declare const FRONTIER_VERSION: string;
const VERSION = typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev';

interface InitOptions {
  dir: string;
  package?: string;
  node: string;
  dbSecret: string;
  dashboardUrl: string;
  mainBranch: string;
  force?: boolean;
  check?: boolean;
}

export function ciInitCommand(): Command {
  return new Command('init')
    .description(
      'write .github/workflows/ for a catalog repository: the sweep, the benchmark job, sweeps of external PRs, reuse, sign-off, recipe reminders, staging (/stage-results), profiling, golden-AL collection, the daily fleet health, the scheduled store dump and ingest recovery',
    )
    .addOption(pathOption('--dir <dir>', 'the repository', 'catalog').default('.'))
    .option('--package <spec>', `what runners install with npm install --global (default frontier@${VERSION})`)
    .option('--node <version>', 'the Node.js version on the runners', '20')
    .option('--db-secret <name>', 'the repository secret holding the store (a postgres:// URL)', 'FRONTIER_DB')
    .option('--dashboard-url <url>', 'the dashboard, linked from the PR comment', '')
    .option('--main-branch <name>', 'the branch official results come from', 'main')
    .option('--force', 'replace workflow files that differ')
    .option('--check', 'write nothing; exit 1 when a file is missing or differs (for CI)')
    .action((o: InitOptions) => {
      const root = requireDirectory(resolve(o.dir), '--dir');
      const files = workflowFiles(
        {
          frontierPackage: o.package ?? `frontier@${VERSION}`,
          nodeVersion: o.node,
          dbSecret: o.dbSecret,
          dashboardUrl: o.dashboardUrl,
          mainBranch: o.mainBranch,
        },
        VERSION,
      ).map(([path, text]) => ({ path, full: join(root, path), text }));
      const state = (f: { full: string; text: string }): 'new' | 'same' | 'differs' =>
        !existsSync(f.full) ? 'new' : readFileSync(f.full, 'utf8') === f.text ? 'same' : 'differs';
      const states = files.map((f) => ({ ...f, state: state(f) }));
      if (o.check) {
        const stale = states.filter((f) => f.state !== 'same');
        for (const f of stale) process.stdout.write(`${f.path}: ${f.state === 'new' ? 'missing' : 'differs'}\n`);
        if (stale.length === 0) process.stdout.write('workflows up to date\n');
        process.exitCode = stale.length === 0 ? ExitCode.OK : ExitCode.FAILED;
        return;
      }
      const differing = states.filter((f) => f.state === 'differs');
      if (differing.length > 0 && !o.force)
        throw new UserError(`${differing.map((f) => f.path).join(', ')}: already there and different; nothing written`, {
          hint: 'pass --force to replace them (git diff shows what changes)',
        });
      const writes = states.filter((f) => f.state !== 'same');
      writeFilesAtomic(
        writes.map((f) => [f.full, f.text] as const),
        { mkdir: true },
      );
      for (const f of states)
        process.stdout.write(`${f.path}: ${{ new: 'written', same: 'unchanged', differs: 'replaced' }[f.state]}\n`);
      process.stdout.write(
        `next: add the repository secret ${o.dbSecret} (the store), label runners with the names configs/runners.yaml uses, and commit .github/workflows/\n` +
          `fleet health: add ${RUNNERS_TOKEN_SECRET} (a token that may list self-hosted runners) and, to be told on a webhook, ${HEALTH_WEBHOOK_SECRET}\n`,
      );
    });
}
