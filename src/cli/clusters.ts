import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { ProblemsError, loadRunners } from '../catalog/index.js';
import { dirSnapshot } from '../changelog/index.js';
import { writeGithubOutput } from '../ci/output.js';
import {
  RUNNERS_LISTING_HINT,
  fleetHealth,
  healthMarkdown,
  healthSlack,
  healthText,
  importClusters,
  loadClusterProfiles,
  parseRunnersListing,
} from '../clusters/index.js';
import type { FleetHealthInput } from '../clusters/index.js';
import { isStoreLocation } from '../store/location-kind.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { readTextFile } from '../util/json-file.js';
import { loadTree } from '../review/index.js';
import { UserError } from '../util/user-error.js';
import { requireDirectory } from './error.js';
import { POSITIVE_INT, formatOption, parseNumber } from './options.js';
import { pathOption, pathArgument, userPath } from './paths.js';
import { dbOption, openDb } from './store-location.js';
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
  clusters.addCommand(healthCommand());
  return clusters;
}

/** How long back `clusters health` looks for launch failures by default: a week, for a daily digest. */
export const HEALTH_SINCE_DAYS = 7;

interface HealthOptions {
  runners: string;
  runnerConfig: string;
  clusters: string;
  db?: string;
  since: number;
  minFailures: number;
  repo?: string;
  runUrl?: string;
  format: 'text' | 'markdown' | 'json' | 'slack';
  payload?: string;
}

/**
 * The store the digest reads: --db, else a non-empty $FRONTIER_DB, else ./frontier.db when there
 * is one; undefined when none is given and there is none (launch failures are then not checked).
 */
function healthStore(db: string | undefined): string | undefined {
  const given = db ?? (process.env.FRONTIER_DB || undefined);
  const location = userPath(given ?? 'frontier.db');
  if (isStoreLocation(location)) return location;
  if (given === undefined) return undefined;
  throw new UserError(
    `${db !== undefined ? '--db' : '$FRONTIER_DB'} ${given}: no store there (not a SQLite store file, not a postgres:// URL)`,
    {
      hint: 'name the store frontier ingest writes to, or give none to leave launch failures out of the digest',
    },
  );
}

function healthCommand(): Command {
  const positive = (flag: string) => (value: string) => parseNumber(flag, value, POSITIVE_INT);
  return new Command('health')
    .description(
      "the fleet's health: offline self-hosted runners (a recorded gh api listing), runner labels of runners.yaml with no online runner, nodes whose launches keep failing (the store); exit 1 when something needs attention",
    )
    .addOption(
      pathOption(
        '--runners <file>',
        'the recorded listing: gh api --paginate --slurp "repos/OWNER/REPO/actions/runners?per_page=100" > runners.json',
      ).makeOptionMandatory(),
    )
    .addOption(
      pathOption('--runner-config <path>', 'runners.yaml: label → runner names', 'catalog').default('configs/runners.yaml'),
    )
    .addOption(
      pathOption('--clusters <dir>', 'the cluster profiles: which clusters serve a label', 'catalog').default('clusters'),
    )
    .addOption(dbOption())
    .option('--since <days>', 'only launch attempts that ended in the last DAYS days', positive('--since'), HEALTH_SINCE_DAYS)
    .option('--min-failures <n>', 'a node needs attention at this many failed launches', positive('--min-failures'), 2)
    .option('--repo <owner/name>', 'the repository, named in the digest (default $GITHUB_REPOSITORY)')
    .option('--run-url <url>', 'a link to the workflow run, in the digest')
    .addOption(
      formatOption(
        ['text', 'markdown', 'json', 'slack'],
        'text, markdown (a step summary or comment), json (the digest), slack (the webhook payload)',
      ),
    )
    .addOption(pathOption('--payload <file>', 'also write the webhook payload (Slack-compatible JSON { text, blocks }) here'))
    .action(async (o: HealthOptions) => {
      const runners = parseRunnersListing(
        readTextFile(o.runners, { what: `--runners ${o.runners}`, hint: RUNNERS_LISTING_HINT }),
        o.runners,
      );
      const config = await loadRunners(o.runnerConfig);
      if (!config.value) throw new ProblemsError(config.problems);
      const profiles = await loadClusterProfiles(o.clusters);
      const location = healthStore(o.db);
      const at = new Date();
      let nodes: FleetHealthInput['nodes'] = { store: undefined, failing: [] };
      if (location !== undefined) {
        const { daysBefore, failingNodes } = await import('../store/index.js');
        const store = await openDb(location);
        try {
          nodes = {
            store: store.location,
            failing: await failingNodes(store, { minFailures: o.minFailures, since: daysBefore(at, o.since) }),
          };
        } finally {
          await store.close();
        }
      }
      const health = fleetHealth({
        runners,
        labels: config.value.labels,
        clusters: profiles,
        nodes,
        sinceDays: o.since,
        minFailures: o.minFailures,
        at,
        repository: o.repo ?? (process.env.GITHUB_REPOSITORY || undefined),
        runUrl: o.runUrl,
      });
      if (o.payload) writeFileAtomic(o.payload, `${JSON.stringify(healthSlack(health), null, 2)}\n`, { mkdir: true });
      const printed = {
        text: () => healthText(health),
        markdown: () => healthMarkdown(health),
        json: () => `${JSON.stringify(health, null, 2)}\n`,
        slack: () => `${JSON.stringify(healthSlack(health), null, 2)}\n`,
      }[o.format]();
      process.stdout.write(printed);
      writeGithubOutput({ attention: health.attention });
      process.exitCode = health.attention ? ExitCode.FAILED : ExitCode.OK;
    });
}
