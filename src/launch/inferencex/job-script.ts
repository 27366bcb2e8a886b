import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { MultiNodeRow } from '../../matrix/index.js';
import type { PlannedPoint } from '../../plan/launches.js';
import { resultFilenameOf } from '../../results/index.js';
import { modelPath, multiNodeWorkflowEnv } from '../../clusters/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import { simulationVariables } from './point.js';
import { basics } from './script-record.js';
import { makeWorkspace, readCalls, recordScript, settingsOf, standinVariables, workspaceOutputs } from './workspace.js';
import type { JobScriptPlan } from '../../plan/inferencex/job-script-plan.js';
import { enrootUri } from '../../plan/inferencex/launchers.js';
import type { RunVariation } from '../../sim/index.js';

/**
 * A multi-node row whose launcher runs a script of the checkout that submits its own Slurm job
 * (frameworks without srt-slurm recipes; each launcher's rule is in launchers.ts): AMD's
 * `<model>_<precision>_mi355x_<fw>.sh` → `amd_utils/submit.sh` → `sbatch job.slurm` (a container per
 * node with the prefill and decode servers, the router and the benchmark), the llm-d wrapper on
 * GB200 (likewise), TileRT on B200 (`salloc`, then its steps in the foreground). Frontier does what
 * the launcher does: runs the script in a copy of the checkout with the multi-node workflow's
 * environment and the launcher's exports, follows the job, and takes each concurrency's result
 * from what the job wrote. On a simulating cluster the stand-ins play the containers, the servers
 * and the client, each node on a loopback address of its own (standins.ts).
 */

const exec = promisify(execFile);

/** A launch's job script, set up to run: its workspace (a copy of the checkout) and environment. */
export interface JobScriptRun {
  work: string;
  standin: string;
  /** The workflow's variables and the launcher's exports. */
  contract: Record<string, string>;
  /** Everything the script's environment adds to its executor's. */
  env: Record<string, string>;
  /** BENCHMARK_LOGS_DIR: where the job writes its logs and results. */
  logs: string;
  /** Images the launcher imports into squash files before it runs the script (importImages). */
  images: { image: string; squash: string }[];
}

/**
 * Set the launch up in `work`. To run, the checkout is copied, not linked: the job's nodes mount
 * it in their containers, where links into the checkout would lead nowhere; a dry run, which
 * submits nothing, links it. `variation`: the plan's run-to-run variation, for the stand-ins' sims.
 */
export function setUpJobScript(
  plan: JobScriptPlan,
  row: MultiNodeRow,
  cluster: ClusterProfile,
  work: string,
  frontier: string[],
  mode: 'run' | 'record' = 'run',
  variation?: RunVariation,
): JobScriptRun {
  if (mode === 'record') makeWorkspace(work, plan.tree);
  else {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    for (const entry of readdirSync(plan.tree.root))
      if (entry !== '.git') cpSync(join(plan.tree.root, entry), join(work, entry), { recursive: true });
  }
  const standin = join(work, '.frontier');
  const stand = plan.simulated || mode === 'record';
  // On a simulating cluster the model's folder is a stand-in too: its tokenizer files, no weights.
  const model = stand
    ? join(work, '.models', row.model.split('/').pop()!)
    : modelPath(cluster, row['model-prefix'], row.precision)!;
  if (stand) {
    mkdirSync(model, { recursive: true });
    for (const f of ['tokenizer_config.json', 'chat_template.jinja']) writeFileSync(join(model, f), '');
  }
  const site = {
    account: cluster.account ?? process.env.USER ?? 'root',
    partition: cluster.partition ?? '',
    modelPath: model,
    workspace: work,
    squashDir: cluster.container.squashDir ?? join(work, '.squash'),
  };
  const contract: Record<string, string> = {
    // RESULT_FILENAME: the row's, as the run names its points (planRun's runner is the cluster).
    ...multiNodeWorkflowEnv(row, { resultFilename: resultFilenameOf(row, cluster.name), runnerName: plan.runnerName }),
    // The sweep runs evals apart; lm-eval inside the job is not run here.
    RUN_EVAL: 'false',
    EVAL_ONLY: 'false',
    ...plan.rule.exports(row, site),
    GITHUB_WORKSPACE: work,
  };
  const variables = stand ? standinVariables({ bin: join(standin, 'bin'), dir: standin, mode, frontier }) : {};
  const env = {
    // A runner's shell has USER, which the scripts use (squeue -u "$USER").
    USER: process.env.USER ?? userInfo().username,
    ...contract,
    ...(plan.simulated ? simulationVariables(cluster, row, plan.hardware, variation) : {}),
    ...variables,
    // Login shells (the job's `bash -lc`) reset PATH: the stand-ins' home puts them back.
    ...(stand ? { HOME: variables.FRONTIER_STANDIN_HOME! } : {}),
  };
  return {
    work,
    standin,
    contract,
    env,
    logs: contract.BENCHMARK_LOGS_DIR ?? join(work, 'benchmark_logs'),
    images: plan.rule.images?.(row, site) ?? [],
  };
}

/**
 * The launcher's `import_squash` (launch_gb200-nv.sh): under a lock on the file, the image is
 * imported with `enroot import` into a temporary file, checked with `unsquashfs -l` and moved into
 * place, unless the file already is a squash. $1 the file, $2 enroot's URI of the image.
 */
const IMPORT_SQUASH = `set -uo pipefail
squash=$1 uri=$2 tmp="$1.tmp.$$"
mkdir -p "$(dirname "$squash")" || exit 1
exec 9>"$squash.lock"
flock -w 1800 9 || { echo "Failed to acquire lock for $squash" >&2; exit 1; }
if unsquashfs -l "$squash" >/dev/null 2>&1; then
  echo "Squash file already exists and is valid, skipping import: $squash"
  exit 0
fi
runtime=$(mktemp -d "\${TMPDIR:-/tmp}/enroot-import.XXXXXX") || exit 1
trap 'rm -rf -- "$runtime"' EXIT
export ENROOT_RUNTIME_PATH="$runtime"
rm -f "$squash" "$squash".tmp.*
if ! enroot import -o "$tmp" "$uri"; then
  rm -f "$tmp"
  echo "Error: enroot import failed for $uri" >&2
  exit 1
fi
if ! unsquashfs -l "$tmp" >/dev/null 2>&1; then
  rm -f "$tmp"
  echo "Error: enroot import produced an invalid squash file: $tmp" >&2
  exit 1
fi
mv -f "$tmp" "$squash"
`;

/**
 * Import the images the launcher imports before the script (JobScriptRule.images), as it does:
 * with the script's environment, so on a simulating cluster enroot and unsquashfs are the
 * stand-ins'. Returns what the imports printed; throws with it when one fails.
 */
export async function importImages(run: JobScriptRun, env: NodeJS.ProcessEnv): Promise<string> {
  let output = '';
  for (const { image, squash } of run.images) {
    const uri = enrootUri(image);
    try {
      const out = await exec('bash', ['-c', IMPORT_SQUASH, 'import_squash', squash, uri], {
        cwd: run.work,
        env,
        encoding: 'utf8',
      });
      output += `${out.stdout}${out.stderr}`;
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; message: string };
      throw new Error(
        `importing ${image} into ${squash} (${uri}), as the launcher does before the script: ${`${err.stdout ?? ''}${err.stderr ?? ''}`.trim() || err.message}`,
      );
    }
  }
  return output;
}

/** The job id the script printed: its last line of output, a number. */
export function printedJobId(stdout: string): string | undefined {
  const last = stdout.trim().split('\n').pop()?.trim() ?? '';
  return /^\d+$/.test(last) ? last : undefined;
}

/**
 * Each point's result among what the job wrote (the newest job's first, as the launcher takes
 * them), matched on concurrency and, where the file names them, GPUs.
 */
export function jobScriptResults(
  run: JobScriptRun,
  plan: JobScriptPlan,
  row: MultiNodeRow,
  points: readonly PlannedPoint[],
): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of plan.rule.results.dirs(row, { logs: run.logs, workspace: run.work }))
    for (const f of readdirSync(dir)) {
      const m = plan.rule.results.file.exec(f);
      if (!m) continue;
      const conc = Number(m[1]);
      const candidates = points.filter((p) => p.conc === conc && !found.has(p.resultFilename));
      const point = candidates.find((p) => p.multinodeSuffix?.endsWith(`_conc${conc}_${m[2]}`)) ?? candidates[0];
      if (point) found.set(point.resultFilename, join(dir, f));
    }
  return found;
}

/** What the client's stand-in said of a result's validity, if it ran. */
export function validityOf(run: JobScriptRun, resultFile: string): { valid: boolean; problems: string[] } | undefined {
  const file = join(run.standin, `${basename(resultFile, '.json')}.validity.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { valid: boolean; problems: string[] }) : undefined;
}

/** The processes the stand-ins saw start (a simulating cluster), with the node each ran on. */
export function jobScriptProcesses(
  run: JobScriptRun,
): { node: string; kind: string; argv: string[]; env: Record<string, string> }[] {
  const given = { ...process.env, ...run.env };
  return readCalls(run.standin)
    .filter((c) => !['noop', 'other', 'gpu', 'image'].includes(c.kind))
    .map((c) => ({
      node: c.env.FRONTIER_NODE_NAME ?? c.env.SLURMD_NODENAME ?? 'submit host',
      kind: c.kind,
      argv: c.argv,
      env: settingsOf(c.env, given, run.contract),
    }));
}

/**
 * Keep what the job wrote in its workspace (its logs: `benchmark_logs/`, TileRT's `tilert_*.log`…)
 * and what started in `logDir`, then remove the workspace.
 */
export function keepJobScriptLogs(run: JobScriptRun, plan: JobScriptPlan, logDir: string): void {
  mkdirSync(logDir, { recursive: true });
  for (const f of workspaceOutputs(run.work, plan.tree))
    if (!f.startsWith('.')) cpSync(join(run.work, f), join(logDir, f), { recursive: true });
  if (existsSync(run.standin))
    writeFileSync(join(logDir, 'processes.json'), `${JSON.stringify({ processes: jobScriptProcesses(run) }, null, 2)}\n`);
  rmSync(run.work, { recursive: true, force: true });
}

/** What a dry run shows of a job script: the job it submits, recorded by running it against stand-ins. */
export interface RecordedJobScript {
  script: string;
  runner: string;
  contract: Record<string, string>;
  /** The submission (`sbatch …` and the environment the job gets). */
  jobs: { argv: string[]; env: Record<string, string> }[];
  problem?: string;
}

export async function recordJobScript(
  plan: JobScriptPlan,
  row: MultiNodeRow,
  cluster: ClusterProfile,
  work: string,
  frontier: string[],
  variation?: RunVariation,
): Promise<RecordedJobScript> {
  const run = setUpJobScript(plan, row, cluster, work, frontier, 'record', variation);
  const env = { ...basics(), ...run.env };
  const { output } = await recordScript(['bash', plan.script], env, 30_000, work);
  const jobs = readCalls(run.standin)
    .filter((c) => c.kind === 'job')
    .map((c) => ({ argv: c.argv, env: settingsOf(c.env, env, run.contract) }));
  rmSync(work, { recursive: true, force: true });
  return {
    script: plan.script,
    runner: plan.runnerName,
    contract: run.contract,
    jobs,
    ...(jobs.length === 0
      ? { problem: `the script submitted no job; the end of its output:\n${output.trimEnd().split('\n').slice(-15).join('\n')}` }
      : {}),
  };
}
