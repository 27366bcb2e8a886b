import { asksForSyntheticAcceptance } from '../specdec/synthetic.js';
import type { GoldenFile } from '../specdec/golden.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { SAFE_NAME } from '../catalog/index.js';
import { changelogRows } from '../changelog/index.js';
import type { ChangelogMatrix } from '../changelog/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine, renderLaunchScript, shellQuote } from '../engines/index.js';
import type { EngineAdapter, Launch } from '../engines/index.js';
import {
  isInferencexTree,
  leaders,
  loadRecipeBook,
  openTree,
  recordJobScript,
  recordPoint,
  resolveRoles,
  roleNames,
  srtctlApply,
} from '../launch/inferencex/index.js';
import type { InferencexTree, RecipeBook, RecipePlan, RecordedJobScript, RecordedScript } from '../launch/inferencex/index.js';
import type { AgenticSettings, PreparedGroup } from '../launch/index.js';
import { requirePowerFromEnv } from '../results/index.js';
import { isAgenticRow } from '../matrix/index.js';
import type { MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import type { PlannedPoint } from '../plan/index.js';
import {
  RunDir,
  agenticPointOf,
  consoleReporter,
  replayArgsOf,
  jobFor,
  engineLabel,
  goldenFor,
  prepareGroup,
  run,
  runGroupLocally,
  slurmExecutor,
  summaryTable,
  waitReady,
} from '../launch/index.js';
import { logsKeyOf, placeWorkers, planRun } from '../plan/index.js';
import type { EvalSettings } from '../launch/index.js';
import { evalSettingsFor } from '../launch/index.js';
import { findCluster, loadClusterProfiles } from '../clusters/index.js';
import type { ClusterProfile } from '../clusters/index.js';
import { fnmatchRegExp } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { requireDirectory } from './error.js';
import { agenticSettings, withAgenticOptions } from './run-agentic.js';
import type { AgenticFlags } from './run-agentic.js';
import { POSITIVE_INT, parseNumber, formatOption } from './options.js';
import { UserError } from '../util/user-error.js';
import { pathOption, shownPath, userPath } from './paths.js';

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
}

/** A matrix file (`-`: stdin): the JSON array `frontier matrix` prints. */
/** A changelog sweep (`changelog matrix`, `ci plan`'s sweep files): its job lists by kind and shape. */
function isChangelogSweep(v: unknown): v is ChangelogMatrix {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'single_node' in v && 'multi_node' in v;
}

export function readMatrix(file: string): { rows: MatrixRow[]; text: string } {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new UserError(`--matrix ${file}: ${(e as Error).message}`);
  }
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (e) {
    throw new UserError(`--matrix ${file}: not JSON (${(e as Error).message}); pass what \`frontier matrix\` prints`);
  }
  if (isChangelogSweep(rows)) rows = changelogRows(rows);
  if (!Array.isArray(rows))
    throw new UserError(
      `--matrix ${file}: expected a JSON array of matrix rows (frontier matrix) or a sweep (frontier changelog matrix, ci plan)`,
    );
  rows.forEach((row, i) => {
    const r = row as Record<string, unknown>;
    const missing = ['image', 'model', 'model-prefix', 'precision', 'framework', 'runner', 'conc'].filter(
      (k) => r?.[k] === undefined,
    );
    if (typeof row !== 'object' || row === null || missing.length > 0)
      throw new UserError(`--matrix ${file}: row ${i} is not a matrix row (missing ${missing.join(', ') || 'everything'})`);
    // These name the row's files in the run directory (RESULT_FILENAME): a '/' or '..' would write outside it.
    for (const key of ['model-prefix', 'precision', 'framework'])
      if (typeof r[key] !== 'string' || !SAFE_NAME.test(r[key]))
        throw new UserError(
          `--matrix ${file}: row ${i}: ${key} ${JSON.stringify(r[key])} cannot be part of a file name: use letters, digits, '.', '_' and '-', starting with a letter or digit`,
        );
  });
  return { rows: rows as MatrixRow[], text };
}

/** `--filter field=glob`: rows whose field matches (every filter must). */
export function filterRows(rows: readonly MatrixRow[], filters: readonly string[]): MatrixRow[] {
  const tests = filters.map((f) => {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new UserError(`--filter ${f}: expected FIELD=GLOB, e.g. framework=sim or conc=4`);
    const field = f.slice(0, eq);
    const re = fnmatchRegExp(f.slice(eq + 1));
    return (row: MatrixRow): boolean => {
      const v = (row as unknown as Record<string, unknown>)[field];
      const values = Array.isArray(v) ? v : [v];
      return values.some((x) => x !== undefined && re.test(String(x)));
    };
  });
  return rows.filter((r) => tests.every((t) => t(r)));
}

function gitCommit(): string | null {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The command that starts this very program: sim engines and job scripts run it. */
const selfCommand = (): string[] => [process.execPath, resolve(process.argv[1]!)];

const stamp = (): string => new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');

/** A launch rendered by an adapter: its processes as they will start. */
/** An agentic point's replay, as a local run starts it (in process). */
function replayDryRunArgs(
  prepared: PreparedGroup,
  p: PlannedPoint,
  agentic: AgenticSettings,
  out: string,
  launch: Launch,
): string[] {
  const d = prepared.deployment;
  const a = agenticPointOf(p, agentic, launch, {
    model: d.servedModelName,
    maxModelLen: d.maxModelLen,
    artifacts: new RunDir(out).agenticArtifacts(p.resultFilename),
  });
  return replayArgsOf(a, agentic.tracesFile);
}

function adapterProcesses(
  prepared: PreparedGroup & { adapter: EngineAdapter },
  cluster: ClusterProfile,
  basePort: number,
): { text: string; processes: DryRunProcess[]; launch: Launch } {
  let port = basePort;
  const hosts =
    cluster.scheduler === 'slurm'
      ? Array.from({ length: prepared.nodes }, (_, i) => `\${NODES[${i}]}`)
      : Array<string>(prepared.nodes).fill('127.0.0.1');
  const placement = placeWorkers(prepared.deployment.layout, cluster.gpusPerNode, hosts);
  const launch = prepared.adapter.launch(prepared.deployment, placement, { next: () => port++ });
  return {
    launch,
    text: renderLaunchScript(launch, prepared.planned.label),
    processes: launch.processes.map((p) => ({
      name: p.name,
      role: p.role,
      host: p.host,
      gpus: p.gpus,
      argv: p.command,
      env: { ...(p.gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: p.gpus.join(',') } : {}), ...p.env },
    })),
  };
}

interface DryRunProcess {
  name?: string;
  role?: string;
  host?: string;
  gpus?: number[];
  argv: string[];
  env: Record<string, string>;
}

interface DryRunLaunch {
  group: string;
  label: string;
  /** The runner label of its rows. */
  runner: string;
  concs: number[];
  status: 'ready' | 'skipped' | 'cannot run';
  reasons?: string[];
  gpus?: number;
  nodes?: number;
  engine?: string;
  /** An InferenceX row: the script, the runner it stands on, and per point what the script starts. */
  script?: {
    path: string;
    runner: string;
    points: { conc: number; resultFilename: string; env: Record<string, string>; processes: DryRunProcess[]; problem?: string }[];
  };
  processes?: DryRunProcess[];
  /** A multi-node row of an InferenceX checkout run by its job script: the job it submits (sbatch's argv and environment). */
  jobScript?: {
    path: string;
    runner: string;
    env: Record<string, string>;
    jobs: { argv: string[]; env: Record<string, string> }[];
    problem?: string;
  };
  /** A multi-node row of an InferenceX checkout: its srt-slurm recipe, every process as srtctl starts it. */
  recipe?: {
    configFile: string;
    /** The recipe in the checkout (absent: srtctl's checkout has it). */
    path?: string;
    selector?: string;
    name?: string;
    nodes?: number;
    processes: DryRunRecipeProcess[];
    /** On a cluster that runs recipes with srtctl: the command that submits it. */
    submit?: string[];
  };
}

interface DryRunRecipeProcess {
  name: string;
  role: string;
  index: number;
  /** Allocation nodes the process spans (its srun), and its GPUs on each. */
  nodes: number[];
  host: string;
  gpus: number[];
  argv: string[];
  env: Record<string, string>;
}

/** A recipe launch's processes, placeholders filled in: node N is `${NODES[N]}` in a Slurm job, 127.0.0.1 locally. */
function recipeProcesses(plan: RecipePlan, cluster: ClusterProfile, logDir: string): DryRunRecipeProcess[] {
  const host = (n: number): string => (cluster.scheduler === 'slurm' ? `\${NODES[${n}]}` : '127.0.0.1');
  const names = roleNames(plan.rendered);
  return resolveRoles(plan.rendered.roles, { host, logDir, uuid: '{uuid}' }).map((x, i) => ({
    name: names[i]!,
    role: x.role,
    index: x.index,
    nodes: x.nodes,
    host: host(x.nodes[0]!),
    gpus: x.gpus,
    argv: x.argv,
    env: x.env,
  }));
}

async function dryRun(
  rows: readonly MatrixRow[],
  cluster: ClusterProfile,
  out: string,
  basePort: number,
  tree: InferencexTree | undefined,
  recipes: RecipeBook | undefined,
  golden: readonly GoldenFile[] | undefined,
  agentic: AgenticSettings | undefined,
): Promise<{ launches: DryRunLaunch[]; text: string }> {
  const lines: string[] = [`cluster ${cluster.name} (${cluster.scheduler}${cluster.simulate ? ', simulated engines' : ''})`];
  const launches: DryRunLaunch[] = [];
  const work = mkdtempSync(join(tmpdir(), 'frontier-dry-run-'));
  const groups = planRun(rows, cluster.name).map((g) => ({
    g,
    ...prepareGroup(g, cluster, selfCommand(), undefined, tree, recipes, golden),
  }));
  // Scripts are recorded a few at a time, ahead of the report that waits for each in order.
  const recordings = new Map<string, Promise<RecordedScript>>();
  const pool = limiter(Math.max(2, availableParallelism()));
  for (const { g, prepared } of groups) {
    const plan = prepared?.script;
    if (plan)
      for (const p of g.points)
        recordings.set(
          `${g.id} ${p.resultFilename}`,
          pool(() =>
            recordPoint(
              plan,
              p.row as SingleNodeRow,
              p.resultFilename,
              cluster,
              join(work, g.id, p.resultFilename),
              selfCommand(),
            ),
          ),
        );
  }
  const jobRecordings = new Map<string, Promise<RecordedJobScript>>();
  for (const { g, prepared } of groups) {
    const plan = prepared?.jobScript;
    if (plan)
      jobRecordings.set(
        g.id,
        pool(() => recordJobScript(plan, g.rows[0] as MultiNodeRow, cluster, join(work, g.id), selfCommand())),
      );
  }
  try {
    for (const { g, prepared, problems } of groups) {
      const concs = g.points.map((p) => p.conc);
      lines.push('', `${g.id}: ${g.label} · conc ${concs.join(', ')}`);
      const launch: DryRunLaunch = { group: g.id, label: g.label, runner: g.rows[0]!.runner, concs, status: 'ready' };
      launches.push(launch);
      if (!prepared) {
        Object.assign(launch, { status: 'cannot run', reasons: problems });
        lines.push(...problems.map((p) => `  cannot run: ${p}`));
        continue;
      }
      Object.assign(launch, { gpus: prepared.gpus, nodes: prepared.nodes, engine: engineLabel(prepared, cluster) });
      if (prepared.script) {
        const plan = prepared.script;
        launch.script = { path: plan.script, runner: plan.runnerName, points: [] };
        lines.push(
          `  ${prepared.gpus} GPUs on 1 node; ${plan.script} (as runners/launch_${plan.launcher}.sh runs it on ${plan.runnerName})`,
        );
        // Each point runs the script once; what it starts, recorded by running it against stand-ins.
        for (const p of g.points) {
          const recorded = await recordings.get(`${g.id} ${p.resultFilename}`)!;
          launch.script.points.push({
            conc: p.conc,
            resultFilename: p.resultFilename,
            env: recorded.contract,
            processes: recorded.processes.map((x) => ({ argv: x.argv, env: x.env })),
            ...(recorded.problem ? { problem: recorded.problem } : {}),
          });
          lines.push(`  conc ${p.conc}:`);
          if (recorded.problem) lines.push(...recorded.problem.split('\n').map((l) => `    ! ${l}`));
          for (const x of recorded.processes) {
            const own = Object.fromEntries(
              Object.entries(x.env).filter(([k]) => !(k in recorded.contract) || recorded.contract[k] !== x.env[k]),
            );
            lines.push(`    | ${commandLine({ name: '', role: 'server', host: '', gpus: [], command: x.argv, env: own })}`);
          }
        }
        continue;
      }
      if (prepared.jobScript) {
        const plan = prepared.jobScript;
        const recorded = await jobRecordings.get(g.id)!;
        launch.jobScript = {
          path: plan.script,
          runner: plan.runnerName,
          env: recorded.contract,
          jobs: recorded.jobs,
          ...(recorded.problem ? { problem: recorded.problem } : {}),
        };
        lines.push(
          `  ${prepared.gpus} GPUs on ${prepared.nodes} nodes; ${plan.script} (as runners/launch_${plan.launcher}.sh runs it on ${plan.runnerName}), which ${plan.rule.job === 'printed' ? 'submits its own Slurm job' : 'allocates its nodes and runs its steps itself'}:`,
        );
        if (recorded.problem) lines.push(...recorded.problem.split('\n').map((l) => `    ! ${l}`));
        for (const j of recorded.jobs) {
          const own = Object.fromEntries(
            Object.entries(j.env).filter(([k]) => !(k in recorded.contract) || recorded.contract[k] !== j.env[k]),
          );
          lines.push(`    | ${commandLine({ name: '', role: 'server', host: '', gpus: [], command: j.argv, env: own })}`);
        }
        lines.push('  (the job starts its processes on its nodes; a run records them in processes.json)');
        continue;
      }
      if (prepared.recipe || prepared.srtctl) {
        const plan = prepared.recipe ?? prepared.srtctl!.recipe;
        const configFile = prepared.recipe?.configFile ?? prepared.srtctl!.configFile;
        const processes = plan ? recipeProcesses(plan, cluster, new RunDir(out).serverLogs(logsKeyOf(g))) : [];
        launch.recipe = {
          configFile,
          ...(plan
            ? {
                path: plan.path,
                ...(plan.selector !== undefined ? { selector: plan.selector } : {}),
                name: plan.rendered.name,
                nodes: plan.rendered.nodes,
              }
            : {}),
          processes,
        };
        lines.push(
          plan
            ? `  ${prepared.gpus} GPUs on ${prepared.nodes} node(s); recipe ${plan.path}${plan.selector ? `:${plan.selector}` : ''} (${plan.rendered.name}), as srtctl renders it`
            : `  ${prepared.gpus} GPUs; recipe ${configFile}, from srtctl's checkout (not in this one: its processes are srtctl's to render)`,
        );
        if (prepared.srtctl) {
          const submit = srtctlApply(configFile, g.rows[0] as MultiNodeRow, cluster.srtctl!);
          launch.recipe.submit = submit;
          lines.push(`  submitted by srtctl, in ${cluster.srtctl!.root}: ${submit.join(' ')}`);
        }
        const lead = plan ? leaders(plan.rendered) : [];
        processes.forEach((x, i) => {
          lines.push(
            `  ${x.name} (${x.role}${lead[i] ? '' : ', joins its endpoint'}) on node${x.nodes.length > 1 ? 's' : ''} ${x.nodes.join(',')}${x.gpus.length > 0 ? `, GPUs ${x.gpus.join(',')}` : ''}:`,
          );
          lines.push(`    | ${commandLine({ name: '', role: 'server', host: '', gpus: [], command: x.argv, env: x.env })}`);
        });
        continue;
      }
      lines.push(`  ${prepared.gpus} GPUs on ${prepared.nodes} node(s); engine ${prepared.deployment.framework}`);
      const rendered = adapterProcesses(prepared, cluster, basePort);
      launch.processes = rendered.processes;
      const script =
        cluster.scheduler === 'slurm'
          ? jobFor(prepared, g.points, new RunDir(out), cluster, selfCommand(), basePort, undefined, agentic).script
          : rendered.text;
      lines.push(...script.split('\n').map((l) => `  | ${l}`));
      if (cluster.scheduler !== 'slurm' && agentic)
        for (const p of g.points.filter((x) => isAgenticRow(x.row)))
          lines.push(
            `  replay at conc ${p.conc}: frontier ${replayDryRunArgs(prepared, p, agentic, out, rendered.launch).map(shellQuote).join(' ')}`,
          );
    }
  } finally {
    await Promise.allSettled([...recordings.values(), ...jobRecordings.values()]);
    rmSync(work, { recursive: true, force: true });
  }
  return { launches, text: `${lines.join('\n')}\n` };
}

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
      '--require-power',
      'a point whose measured GPU power is not valid is invalid, its results still written (default: $REQUIRE_POWER, as InferenceX)',
    )
    .option('--power-interval <ms>', 'how often the GPU monitor samples board power (InferenceX: once a second)', '1000')
    .option('--canary', 'run the lowest concurrency of the matrix first; stop if it fails')
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
      const cluster =
        flags.cluster !== undefined ? findCluster(profiles, { name: flags.cluster }) : clusterForRunners(profiles, runners);
      const basePort = parseNumber('--base-port', flags.basePort, {
        integer: true,
        min: 1,
        max: 65000,
        expected: 'a port number (1–65000)',
      });
      const out = resolve(userPath(flags.out ?? `runs/${stamp()}`));
      const tree = inferencexTree(flags.inferencex);
      const golden = rows.some(asksForSyntheticAcceptance) ? await goldenFor(tree) : undefined;
      const recipes = tree ? await loadRecipeBook(tree, rows, golden) : undefined;
      const note = (line: string): boolean => process.stderr.write(`${line}\n`);
      if (flags.dryRun) {
        const agentic = await agenticSettings(flags, rows, out, false, note);
        const plan = await dryRun(rows, cluster, out, basePort, tree, recipes, golden, agentic);
        process.stdout.write(
          flags.format === 'json'
            ? `${JSON.stringify({ cluster: cluster.name, launches: plan.launches }, null, 2)}\n`
            : plan.text,
        );
        return;
      }
      const controller = new AbortController();
      let signals = 0;
      const onSignal = (signal: NodeJS.Signals): void => {
        signals++;
        if (signals > 1) process.exit(130);
        process.stderr.write(`\n${signal}: stopping the engines (again to quit at once)\n`);
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const evals =
        flags.evals && rows.some((r) => r['run-eval'])
          ? await evalSettings(flags, rows, out, cluster.simulate === true)
          : undefined;
      process.stderr.write(`run directory: ${shownPath(out)}\ncluster: ${cluster.name}\n`);
      const agentic = await agenticSettings(flags, rows, out, true, note);
      try {
        const { manifest } = await run({
          rows,
          matrix: { file: flags.matrix === '-' ? '(stdin)' : resolve(flags.matrix), text: matrix.text },
          cluster,
          out,
          executor: cluster.scheduler === 'slurm' ? slurmExecutor({ frontierCommand: selfCommand(), basePort }) : runGroupLocally,
          frontierVersion: typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev',
          frontierCommand: selfCommand(),
          commit: gitCommit(),
          failFast: flags.failFast,
          requirePower: flags.requirePower ?? requirePowerFromEnv(process.env),
          ...(flags.defer.length > 0
            ? { defer: { rows: new Set(filterRows(rows, flags.defer)), reason: flags.deferReason } }
            : {}),
          powerIntervalMs: parseNumber('--power-interval', flags.powerInterval, { min: 1, expected: 'milliseconds (≥ 1)' }),
          canary: flags.canary,
          resume: flags.resume,
          reporter: consoleReporter((s) => process.stderr.write(s), process.stderr.isTTY === true),
          signal: controller.signal,
          evals,
          ...(agentic ? { agentic } : {}),
          ...(tree ? { inferencex: tree } : {}),
          ...(recipes ? { recipes } : {}),
        });
        process.stdout.write(`\n${summaryTable(manifest)}\nrun directory: ${shownPath(out)}\n`);
        process.exitCode =
          manifest.status === 'completed' || manifest.status === 'partial' ? 0 : manifest.status === 'interrupted' ? 130 : 1;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

async function evalSettings(flags: RunFlags, rows: readonly MatrixRow[], out: string, simulate: boolean): Promise<EvalSettings> {
  try {
    return await evalSettingsFor(rows, {
      dataDir: flags.evalData ?? flags.evalDataset,
      answersFile: join(out, 'eval-answer-keys.jsonl'),
      simulate,
      limit: flags.evalLimit === undefined ? undefined : parseNumber('--eval-limit', flags.evalLimit, POSITIVE_INT),
      thresholdsFile: flags.evalThresholds === undefined ? undefined : resolve(flags.evalThresholds),
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${e.message} (or run with --no-evals)`, { hint: e.hint });
    throw e;
  }
}

function clusterForRunners(profiles: readonly ClusterProfile[], runners: string[]): ClusterProfile {
  const chosen = new Map<string, ClusterProfile>();
  for (const runner of runners) {
    const c = findCluster(profiles, { runner });
    chosen.set(c.name, c);
  }
  if (chosen.size > 1)
    throw new UserError(
      `the rows run on ${chosen.size} clusters (${[...chosen.keys()].join(', ')}): run each with --cluster NAME and --filter runner=…`,
    );
  return [...chosen.values()][0]!;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Run at most `n` of the given tasks at a time. */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

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
      const alive = (pid: string): boolean => {
        try {
          process.kill(Number(pid), 0);
          return true;
        } catch {
          return false;
        }
      };
      await waitReady(
        urls.map((u) => {
          const at = u.indexOf('@', u.indexOf('//') + 2);
          return at < 0 ? { url: u } : { url: u.slice(0, at), contains: u.slice(at + 1) };
        }),
        {
          attempts: Number(o.attempts),
          intervalMs: Number(o.interval) * 1000,
          failed: () => {
            const gone = o.watchPid.filter((p) => !alive(p));
            return gone.length > 0 ? `process ${gone.join(', ')} exited before the engine was ready` : undefined;
          },
        },
      );
      process.stdout.write(`ready: ${urls.join(' ')}\n`);
    });
}
