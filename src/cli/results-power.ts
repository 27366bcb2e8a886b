/**
 * `frontier results power` and `frontier results power-agentic`: the reference's
 * `utils/aggregate_power.py` and `utils/agentic/aggregation/power_adapter.py` command lines (the
 * same flags, argparse messages and exit statuses: 2 for a usage error, 1 when REQUIRE_POWER asks
 * for valid power and it is not, else 0).
 */
import type { Command } from 'commander';
import { requirePowerFromEnv, runAggregatePowerFs, runAgenticPowerFs } from '../results/index.js';
import type { NodeBounds, StepRun } from '../results/index.js';
import { powerBoundsOf } from '../sim/index.js';
import { UserError } from '../util/user-error.js';
import { formatHelp, parseArgs } from './argparse.js';
import type { ParserSpec } from './argparse.js';
import { startedIn } from './paths.js';

interface PowerIo {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  setExitCode?: (code: number) => void;
}

const help = { flags: ['-h', '--help'], dest: 'help', kind: 'flag' as const, help: 'show this help message and exit' };

/** Frontier's options: the node sampled, whose bounds make a reading plausible (docs/power.md, "Plausibility"). */
const nodeArgs = [
  {
    flags: ['--gpu'],
    dest: 'gpu',
    kind: 'one' as const,
    help: "the node's GPU (catalog id or runner label; default RUNNER_TYPE): readings above its board power are refused",
  },
  {
    flags: ['--gpus-per-node'],
    dest: 'gpus_per_node',
    kind: 'one' as const,
    type: 'int' as const,
    help: "GPUs on the node (default: the catalog's for --gpu): GPU indices must be below it",
  },
];

/** The node bounds from `--gpu`/`--gpus-per-node`, RUNNER_TYPE, or the catalog's widest. */
function nodeOf(a: Record<string, unknown>, env: Record<string, string | undefined>): NodeBounds {
  const gpusPerNode = a.gpus_per_node as number | undefined;
  if (gpusPerNode !== undefined && gpusPerNode < 1) {
    throw new UserError(`--gpus-per-node ${gpusPerNode}: a node has at least one GPU; give the count its GPU tool lists`);
  }
  return powerBoundsOf((a.gpu as string | undefined) ?? (env.RUNNER_TYPE || undefined), gpusPerNode);
}

function powerSpec(): ParserSpec {
  return {
    prog: 'frontier results power',
    description: 'Validate and aggregate single-node GPU-board power into benchmark results.',
    args: [
      help,
      {
        flags: ['--csv'],
        dest: 'csv',
        kind: 'one',
        type: 'path',
        default: '/workspace/gpu_metrics.csv',
        help: 'Path to gpu_metrics.csv from start_gpu_monitor (default: /workspace/gpu_metrics.csv)',
      },
      {
        flags: ['--bench-result'],
        dest: 'bench_result',
        kind: 'one',
        type: 'path',
        required: true,
        help: 'Path to the raw benchmark_serving.py result JSON (provides bench window + token counts)',
      },
      {
        flags: ['--agg-result'],
        dest: 'agg_result',
        kind: 'one',
        type: 'path',
        required: true,
        help: 'Path to the agg_<run>.json output of process_result.py (will be patched in place)',
      },
      {
        flags: ['--expected-num-gpus'],
        dest: 'expected_num_gpus',
        kind: 'one',
        type: 'int',
        required: true,
        help: 'Expected single-node GPU count from TP * PP * PCP',
      },
      {
        flags: ['--validation-result'],
        dest: 'validation_result',
        kind: 'one',
        type: 'path',
        help: 'Path for the power validation sidecar',
      },
      {
        flags: ['--require-power'],
        dest: 'require_power',
        kind: 'flag',
        help: 'Fail when power telemetry is invalid (also enabled by REQUIRE_POWER=1)',
      },
      ...nodeArgs,
    ],
  };
}

function agenticSpec(): ParserSpec {
  return {
    prog: 'frontier results power-agentic',
    description: 'Adapt AIPerf profiling artifacts to the strict power-window contract.',
    args: [
      help,
      {
        flags: ['--result-dir'],
        dest: 'result_dir',
        kind: 'one',
        type: 'path',
        required: true,
        help: 'the point folder holding aiperf_artifacts/ and gpu_metrics.csv',
      },
      {
        flags: ['--agg-result'],
        dest: 'agg_result',
        kind: 'one',
        type: 'path',
        required: true,
        help: 'the agentic aggregate (patched in place)',
      },
      { flags: ['--expected-num-gpus'], dest: 'expected_num_gpus', kind: 'one', type: 'int', help: 'expected GPU count' },
      {
        flags: ['--require-power'],
        dest: 'require_power',
        kind: 'flag',
        help: 'fail when power is invalid (also REQUIRE_POWER=1)',
      },
      ...nodeArgs,
    ],
  };
}

function emit(io: PowerIo, run: StepRun): void {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  for (const line of run.stderr) err(`${line}\n`);
  for (const line of run.stdout) out(`${line}\n`);
  if (run.exitCode !== 0) (io.setExitCode ?? ((code) => (process.exitCode = code)))(run.exitCode);
}

function addParsed(
  results: Command,
  name: string,
  description: string,
  spec: () => ParserSpec,
  action: (a: Record<string, unknown>) => void,
  io: PowerIo,
): void {
  results
    .command(name)
    .description(description)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action((_args: string[], _opts: unknown, cmd: Command) => {
      const a = parseArgs(spec(), cmd.args);
      if (a.help) {
        (io.stdout ?? ((text: string) => process.stdout.write(text)))(formatHelp(spec()));
        return;
      }
      action(a);
    });
}

/** Register `power` and `power-agentic` under `frontier results`. */
export function addPowerCommands(results: Command, io: PowerIo): void {
  const requirePower = (a: Record<string, unknown>): boolean =>
    a.require_power === true || requirePowerFromEnv(io.env ?? process.env);
  addParsed(
    results,
    'power',
    'single-node GPU power over the benchmark window → the aggregate patched and a power_validation sidecar (the reference utils/aggregate_power.py)',
    powerSpec,
    (a) =>
      emit(
        io,
        runAggregatePowerFs(
          {
            csv: a.csv as string,
            benchResult: a.bench_result as string,
            aggResult: a.agg_result as string,
            expectedGpus: a.expected_num_gpus as number,
            node: nodeOf(a, io.env ?? process.env),
            validationResult: a.validation_result as string | undefined,
            requirePower: requirePower(a),
          },
          io.cwd ?? startedIn(),
        ),
      ),
    io,
  );
  addParsed(
    results,
    'power-agentic',
    "an agentic replay's power: the window from AIPerf's artifacts, then the single-node power step (the reference power_adapter.py)",
    agenticSpec,
    (a) =>
      emit(
        io,
        runAgenticPowerFs(
          {
            resultDir: a.result_dir as string,
            aggResult: a.agg_result as string,
            expectedGpus: (a.expected_num_gpus as number | undefined) ?? null,
            node: nodeOf(a, io.env ?? process.env),
            requirePower: requirePower(a),
          },
          io.cwd ?? startedIn(),
        ),
      ),
    io,
  );
}
