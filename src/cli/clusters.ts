import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { dirSnapshot } from '../changelog/index.js';
import { importClusters } from '../clusters/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { loadTree } from '../review/index.js';
import { UserError } from '../util/user-error.js';
import { requireDirectory } from './error.js';
import { pathOption, pathArgument } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

export function clustersCommand(): Command {
  const clusters = new Command('clusters').description('cluster profiles (clusters/*.yaml)');
  clusters
    .command('import')
    .description(
      "write the srt-slurm routing of an InferenceX checkout's launchers (runners/launch_*.sh), and their lists of bad nodes (node_excludes.yaml), as declarative clusters/<launcher>.yaml profiles",
    )
    .addArgument(
      pathArgument('[dir]', 'the InferenceX checkout (its runners/ and configs/), or its runners/ folder', 'catalog').default(
        '.',
      ),
    )
    .addOption(
      pathOption('--out <dir>', 'where to write the profiles (default: clusters/ of the checkout); - prints them', 'catalog'),
    )
    .option(
      '--resolve',
      'pin branches, tags and short shas to the commit they are on now (git ls-remote; needs the repositories)',
    )
    .option('--force', 'overwrite profiles that exist')
    .action(async (dir: string, opts: { out?: string; resolve?: boolean; force?: boolean }) => {
      const root = requireDirectory(dir.replace(/\/?runners\/?$/, '') || '.', 'the checkout');
      if (!existsSync(join(root, 'runners'))) throw new UserError(`${root} has no runners/ folder: give the InferenceX checkout`);
      const tree = await loadTree(dirSnapshot(root));
      const profiles = await importClusters(tree, { resolve: opts.resolve, date: new Date().toISOString().slice(0, 10) });
      if (profiles.length === 0)
        throw new UserError(
          `no launcher in ${join(root, 'runners')} clones srt-slurm or keeps a list of bad nodes: nothing to import`,
        );
      const out = opts.out ?? join(root, 'clusters');
      if (out !== '-') {
        const existing = profiles.filter((p) => existsSync(join(out, p.file)));
        if (existing.length > 0 && !opts.force)
          throw new UserError(`${existing.map((p) => join(out, p.file)).join(', ')} exist: pass --force to overwrite`);
        mkdirSync(out, { recursive: true });
      }
      const report: string[] = [];
      for (const p of profiles) {
        if (out === '-') process.stdout.write(`# --- ${p.file}\n${p.text}`);
        else writeFileAtomic(join(out, p.file), p.text, { mkdir: true });
        const unpinned = p.rules.filter((r) => r.unpinned).length;
        report.push(
          `${out === '-' ? p.file : join(out, p.file)}: ${p.rules.length} routing rule${p.rules.length === 1 ? '' : 's'} from ${p.launcher.path}` +
            (unpinned > 0 ? `, ${unpinned} not pinned to a commit (--resolve pins them)` : '') +
            (p.skipped.length > 0 ? `, ${p.skipped.length} branch${p.skipped.length === 1 ? '' : 'es'} left out` : '') +
            (p.excludes
              ? `, ${p.excludes.rules.length} node exclusion rule${p.excludes.rules.length === 1 ? '' : 's'} from ${p.excludes.file}`
              : ''),
        );
        for (const s of p.skipped) report.push(`  left out: ${s}`);
        for (const d of p.disagreements) report.push(`  differs from the launcher: ${d}`);
      }
      process.stderr.write(`${report.join('\n')}\n`);
      process.exitCode = profiles.some((p) => p.disagreements.length > 0) ? ExitCode.FAILED : ExitCode.OK;
    });
  return clusters;
}
