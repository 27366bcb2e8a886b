import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { clusterForRunners, findCluster, loadClusterProfiles } from '../clusters/index.js';
import type { ClusterProfile, RepeatScope, RepeatSettings } from '../clusters/index.js';
import { filterRows, isInferencexTree, loadRecipeBook, openTree, planLaunch, planRun, readMatrix } from '../plan/index.js';
import type { InferencexTree } from '../plan/index.js';
import {
  consoleReporter,
  dryRun,
  dryRunText,
  evalSettingsFor,
  goldenFor,
  localExecutor,
  run,
  slurmExecutor,
  summaryTable,
  waitReady,
} from '../launch/index.js';
import type { EvalSettings } from '../launch/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { requirePowerFromEnv } from '../results/index.js';
import { asksForSyntheticAcceptance } from '../specdec/synthetic.js';
import { ExitCode } from '../util/exit-codes.js';
import { processAlive } from '../util/process-alive.js';
import { UserError } from '../util/user-error.js';
import { requireDirectory } from './error.js';
import { RECOMMENDED_RUN_VARIATION, RUN_VARIATION_LIMIT } from '../sim/run-variation.js';
import { POSITIVE_INT, formatOption, numberArg, parseNumber } from './options.js';
import { pathOption, shownPath, userPath } from './paths.js';
import { agenticSettings, withAgenticOptions } from './run-agentic.js';
import type { AgenticFlags } from './run-agentic.js';

declare const FRONTIER_VERSION: string;

interface RunFlags extends AgenticFlags {
  matrix: string;
  cluster?: string;
  clusters: string;
  filter: string[];
  defer: string[];
  deferReason: string;
  out?: string;
  failFast?: boolean;
  profile?: boolean;
  retries?: string;
  requirePower?: boolean;
  powerInterval: string;
  canary?: boolean;
  resume?: boolean;
  dryRun?: boolean;
  basePort: string;
  evals: boolean;
  evalData?: string;
  evalDataset?: string;
  evalLimit?: string;
  evalThresholds?: string;
  inferencex?: string | false;
  format: 'text' | 'json';
  repeats?: number;
  repeatScope?: RepeatScope;
  runVariation?: number;
}

/** How many times each point is measured: the flags, else the cluster profile's `repeats` and `repeat-scope`. */
const repeatsOf = (flags: RunFlags, cluster: ClusterProfile): RepeatSettings => ({
  count: flags.repeats ?? cluster.repeats.count,
  scope: flags.repeatScope ?? cluster.repeats.scope,
});

function gitCommit(): string | null {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The command that starts this very program: sim engines and job scripts run it. */
const selfCommand = (): string[] => [process.execPath, resolve(process.argv[1]!)];

const stamp = (): string => new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');

export function runCommand(): Command {
  return withAgenticOptions(new Command('run'))
    .description('run a sweep matrix: start each engine, wait until ready, bench every concurrency, keep the results')
    .addOption(
      pathOption('--matrix <file>', 'the rows to run: what `frontier matrix` prints (- for stdin)').makeOptionMandatory(),
    )
    .option('--cluster <name>', 'cluster profile (clusters/<name>.yaml); default: the one serving the rows’ runner')
    .addOption(pathOption('--clusters <dir>', 'where cluster profiles are', 'catalog').default('clusters'))
    .option('--filter <field=glob>', 'only rows whose field matches, e.g. framework=sim, conc=4 (repeatable)', collect, [])
    .option(
      '--defer <field=glob>',
      'record the rows whose field matches as deferred, not run now; --resume runs them (repeatable, as --filter)',
      collect,
      [],
    )
    .option('--defer-reason <text>', 'why the --defer rows wait, for the run, the store and the dashboard', 'deferred (--defer)')
    .addOption(pathOption('--out <dir>', 'run directory (default: runs/<date>-<time>)'))
    .option('--fail-fast', 'stop at the first launch or point that fails')
    .option(
      '--profile',
      "run each point under the engine's profiler (vLLM/SGLang /start_profile, /stop_profile) as InferenceX's profile.yml does, keeping its trace as server_logs_<RF>/profile_<RF>.trace.json.gz (single-node rows of an InferenceX checkout)",
    )
    .option(
      '--retries <n>',
      'try a launch that failed for infrastructure reasons (engine never healthy, node failure) up to n more times, its unfinished points only, on other nodes (default: the cluster profile’s retries: 1 on Slurm, 0 locally); an invalid point is never retried',
    )
    .option(
      '--require-power',
      'a point whose measured GPU power is not valid is invalid, its results still written (default: $REQUIRE_POWER, as InferenceX)',
    )
    .option('--power-interval <ms>', 'how often the GPU monitor samples board power (InferenceX: once a second)', '1000')
    .option('--canary', 'run the lowest concurrency of the matrix first; stop if it fails')
    .addOption(
      new Option(
        '--repeats <n>',
        'measure every point n times, each raw result kept (default: the cluster profile’s, else 1)',
      ).argParser(numberArg(POSITIVE_INT)),
    )
    .addOption(
      new Option(
        '--run-variation <cv>',
        `the simulated engine's launch-to-launch spread, a coefficient of variation (e.g. ${RECOMMENDED_RUN_VARIATION}; default: the cluster profile's sim: run-variation, else 0)`,
      ).argParser(
        numberArg({ min: 0, max: RUN_VARIATION_LIMIT, expected: `a coefficient of variation from 0 to ${RUN_VARIATION_LIMIT}` }),
      ),
    )
    .addOption(
      new Option('--repeat-scope <scope>', 'launch: each repeat a fresh engine launch; point: repeats share one launch').choices([
        'launch',
        'point',
      ]),
    )
    .option('--resume', 'continue the run in --out: skip the points it finished')
    .option('--dry-run', 'print the plan and each launch (or job) script; start nothing')
    .option('--base-port <n>', 'first port of a Slurm job’s engine processes', '8000')
    .addOption(
      pathOption(
        '--eval-data <dir>',
        'the datasets of the eval tasks rows ask for, laid out as the hub exports them (GSM8K: else $FRONTIER_GSM8K, else downloaded once)',
      ),
    )
    .addOption(pathOption('--eval-dataset <dir>', 'the same as --eval-data').hideHelp())
    .option('--eval-limit <n>', 'only the first N documents of each task (a quick check; the reference runs them all)')
    .addOption(
      pathOption(
        '--eval-thresholds <file>',
        'minimum scores per model and task, in InferenceX’s thresholds.yaml format (default: its thresholds)',
      ),
    )
    .option('--no-evals', 'do not run the evals of rows with run-eval')
    .addOption(
      pathOption(
        '--inferencex <dir>',
        'an InferenceX checkout: its single-node rows run its benchmark scripts (default: the current directory, when it is one)',
        'catalog',
      ),
    )
    .option('--no-inferencex', 'render every row with Frontier’s engine adapters, even in an InferenceX checkout')
    .addOption(formatOption(['text', 'json'], 'output of --dry-run'))
    .action(async (flags: RunFlags) => {
      const matrix = readMatrix(flags.matrix);
      const rows = filterRows(matrix.rows, flags.filter);
      if (rows.length === 0)
        throw new UserError(`--matrix ${flags.matrix}: no rows${flags.filter.length > 0 ? ' match the filters' : ''}`);
      const profiles = await loadClusterProfiles(flags.clusters);
      const runners = [...new Set(rows.map((r) => r.runner))];
      const profile =
        flags.cluster !== undefined ? findCluster(profiles, { name: flags.cluster }) : clusterForRunners(profiles, runners);
      const cluster =
        flags.runVariation === undefined ? profile : { ...profile, sim: { ...profile.sim, runVariation: flags.runVariation } };
      const basePort = parseNumber('--base-port', flags.basePort, {
        integer: true,
        min: 1,
        max: 65000,
        expected: 'a port number (1–65000)',
      });
      const retries =
        flags.retries === undefined
          ? undefined
          : parseNumber('--retries', flags.retries, { integer: true, min: 0, expected: 'a whole number ≥ 0' });
      const out = resolve(userPath(flags.out ?? `runs/${stamp()}`));
      const tree = inferencexTree(flags.inferencex);
      const golden = rows.some(asksForSyntheticAcceptance) ? await goldenFor(tree) : undefined;
      const recipes = tree ? await loadRecipeBook(tree, rows, golden) : undefined;
      const note = (line: string): boolean => process.stderr.write(`${line}\n`);
      if (flags.dryRun) {
        const agentic = await agenticSettings(flags, rows, out, false, note);
        const plans = planRun(rows, cluster.name, repeatsOf(flags, cluster)).map((launch) =>
          planLaunch(launch, { cluster, frontierCommand: selfCommand(), tree, recipes, golden, profile: flags.profile }),
        );
        const report = await dryRun(plans, { cluster, out, basePort, frontierCommand: selfCommand(), agentic });
        process.stdout.write(flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : dryRunText(report));
        return;
      }
      const controller = new AbortController();
      let signals = 0;
      const onSignal = (signal: NodeJS.Signals): void => {
        signals++;
        if (signals > 1) process.exit(ExitCode.INTERRUPTED);
        process.stderr.write(`\n${signal}: stopping the engines (again to quit at once)\n`);
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const evals = flags.evals && rows.some((r) => r['run-eval']) ? await evalSettings(flags, rows, out) : undefined;
      process.stderr.write(`run directory: ${shownPath(out)}\ncluster: ${cluster.name}\n`);
      const agentic = await agenticSettings(flags, rows, out, true, note);
      try {
        const { manifest } = await run({
          rows,
          matrix: { file: flags.matrix === '-' ? '(stdin)' : resolve(flags.matrix), text: matrix.text },
          cluster,
          out,
          executor: cluster.scheduler === 'slurm' ? slurmExecutor({ frontierCommand: selfCommand(), basePort }) : localExecutor,
          frontierVersion: typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev',
          frontierCommand: selfCommand(),
          commit: gitCommit(),
          failFast: flags.failFast,
          profile: flags.profile,
          ...(retries !== undefined ? { retries } : {}),
          requirePower: flags.requirePower ?? requirePowerFromEnv(process.env),
          ...(flags.defer.length > 0
            ? { defer: { rows: new Set(filterRows(rows, flags.defer)), reason: flags.deferReason } }
            : {}),
          powerIntervalMs: parseNumber('--power-interval', flags.powerInterval, { min: 1, expected: 'milliseconds (≥ 1)' }),
          canary: flags.canary,
          resume: flags.resume,
          repeats: repeatsOf(flags, cluster),
          reporter: consoleReporter((s) => process.stderr.write(s), process.stderr.isTTY === true),
          signal: controller.signal,
          evals,
          ...(agentic ? { agentic } : {}),
          ...(tree ? { inferencex: tree } : {}),
          ...(recipes ? { recipes } : {}),
        });
        process.stdout.write(`\n${summaryTable(manifest)}\nrun directory: ${shownPath(out)}\n`);
        process.exitCode =
          manifest.status === 'completed' || manifest.status === 'partial'
            ? ExitCode.OK
            : manifest.status === 'interrupted'
              ? ExitCode.INTERRUPTED
              : ExitCode.FAILED;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

async function evalSettings(flags: RunFlags, rows: readonly MatrixRow[], out: string): Promise<EvalSettings> {
  try {
    return await evalSettingsFor(rows, {
      dataDir: flags.evalData ?? flags.evalDataset,
      answersFile: join(out, 'eval-answer-keys.jsonl'),
      limit: flags.evalLimit === undefined ? undefined : parseNumber('--eval-limit', flags.evalLimit, POSITIVE_INT),
      thresholdsFile: flags.evalThresholds === undefined ? undefined : resolve(flags.evalThresholds),
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${e.message} (or run with --no-evals)`, { hint: e.hint });
    throw e;
  }
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The InferenceX checkout whose scripts run single-node rows: --inferencex, else the current directory if it is one. */
function inferencexTree(flag: string | false | undefined): InferencexTree | undefined {
  if (flag === false) return undefined;
  if (flag === undefined) return isInferencexTree(process.cwd()) ? openTree(process.cwd()) : undefined;
  return openTree(requireDirectory(flag, '--inferencex'));
}

export function probeCommand(): Command {
  return new Command('probe')
    .description('wait until every URL answers 200 (the readiness barrier of job scripts)')
    .argument('<urls...>', 'URLs to check; URL@TEXT also requires TEXT in the answer')
    .addOption(new Option('--attempts <n>', 'checks before giving up').default('120'))
    .addOption(new Option('--interval <s>', 'seconds between checks').default('5'))
    .option('--watch-pid <pid>', 'fail at once when this process has exited (repeatable)', collect, [])
    .action(async (urls: string[], o: { attempts: string; interval: string; watchPid: string[] }) => {
      await waitReady(
        urls.map((u) => {
          const at = u.indexOf('@', u.indexOf('//') + 2);
          return at < 0 ? { url: u } : { url: u.slice(0, at), contains: u.slice(at + 1) };
        }),
        {
          attempts: Number(o.attempts),
          intervalMs: Number(o.interval) * 1000,
          failed: () => {
            const gone = o.watchPid.filter((p) => !processAlive(Number(p)));
            return gone.length > 0 ? `process ${gone.join(', ')} exited before the engine was ready` : undefined;
          },
        },
      );
      process.stdout.write(`ready: ${urls.join(' ')}\n`);
    });
}
