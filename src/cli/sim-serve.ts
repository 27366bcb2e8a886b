import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Command, Option } from 'commander';
import {
  AnswerBook,
  DEFAULT_SERVER_OPTIONS,
  MAX_ANSWERS_FILE_BYTES,
  NO_FAULTS,
  RECOMMENDED_RUN_VARIATION,
  RUN_VARIATION_LIMIT,
  SIM_ROLES,
  runFactor,
} from '../sim/index.js';
import {
  describeKvCache,
  describeMemory,
  describeTopology,
  buildTopology,
  serveDeployment,
  servingEngine,
} from '../sim/index.js';
import type { FaultOptions, SimRole, SimServer, Topology } from '../sim/index.js';
import { GPU_REGISTRY_ENV } from '../sim/gpu-registry.js';
import { readUnpacked } from '../util/bounded-read.js';
import { UserError } from '../util/user-error.js';
import { ExitCode } from '../util/exit-codes.js';
import { commaList, numberArg, numberListArg } from './options.js';
import { pathOption } from './paths.js';
import { deploymentOf, withDeployment } from './sim-deployment.js';
import type { DeploymentFlags } from './sim-deployment.js';

const integer = (min: number) => numberArg({ integer: true, min });
const number = (min: number, max = Infinity) => numberArg({ min, max });
const list = numberListArg({ integer: true, min: 1 });

interface ServeFlags extends DeploymentFlags {
  port: number;
  host: string;
  role: SimRole;
  servedModelName?: string;
  maxModelLen?: number;
  speed: number;
  seed: number;
  naturalOutputTokens: number;
  groundTruth?: string;
  answers?: string;
  accuracy: number;
  faultErrorRate: number;
  faultErrorStatus?: number[];
  faultDisconnectRate: number;
  faultStallRate: number;
  faultStallMs: number;
  faultMalformedRate: number;
  faultCrashAfter?: number;
  faultSlowStart: number;
  faultStartCrashOn?: string[];
  faultStartCrashOnce?: string;
  enablePromptTokensDetails?: boolean;
  runVariation: number;
  runSeed: number;
}

/** `frontier sim serve`. */
export function addServeCommand(sim: Command): void {
  withFaultFlags(
    withDeployment(sim.command('serve'))
      .description('serve the OpenAI API (vLLM-shaped) from a simulated deployment; tokens stream at their simulated times')
      .option('--port <n>', 'port on --host (0: any free port)', integer(0), DEFAULT_SERVER_OPTIONS.port)
      .option('--host <addr>', 'address to listen on', DEFAULT_SERVER_OPTIONS.host)
      .addOption(
        new Option(
          '--role <role>',
          'part in a disaggregated deployment of separate processes, behind `frontier sim router`: prefill (answers kv_transfer_params {do_remote_decode}) or decode (admits requests with kv_transfer_params {do_remote_prefill} prefilled, after the KV transfer)',
        )
          .choices(SIM_ROLES)
          .default('both'),
      )
      .option('--served-model-name <name>', "the model id of the API (default: the model's Hugging Face name)")
      .option('--max-model-len <n>', 'longest prompt + output (default: the model’s context, capped by the KV cache)', integer(1))
      .option('--speed <k>', 'run k times faster than real time', number(1e-3), DEFAULT_SERVER_OPTIONS.speed)
      .option(
        '--seed <n>',
        'seed of every random choice (outputs, lengths, faults, speculative acceptance)',
        integer(0),
        DEFAULT_SERVER_OPTIONS.seed,
      )
      .option(
        '--natural-output-tokens <n>',
        'mean output length of requests without ignore_eos',
        integer(1),
        DEFAULT_SERVER_OPTIONS.naturalOutputTokens,
      )
      .addOption(pathOption('--ground-truth <file>', 'append per-request ground truth (arrival, every token time) as JSONL'))
      .addOption(
        pathOption(
          '--answers <file>',
          'evals test double: answer keys ({question, right, wrong} lines, as frontier eval answer-keys writes them)',
        ),
      )
      .option('--accuracy <p>', 'with --answers: probability that the reply is right', number(0, 1), 1)
      .option(
        '--run-variation <cv>',
        `run-to-run variation: draw one performance factor for this launch, lognormal with median 1 and sd(ln) = cv, scaling the compute and memory efficiency (0: exact; recommended ${RECOMMENDED_RUN_VARIATION}, docs/simulator.md)`,
        numberArg({
          min: 0,
          max: RUN_VARIATION_LIMIT,
          expected: `a coefficient of variation in [0, ${RUN_VARIATION_LIMIT}], e.g. ${RECOMMENDED_RUN_VARIATION} for ${RECOMMENDED_RUN_VARIATION * 100}%`,
        }),
        0,
      )
      .option('--run-seed <n>', 'seed of the --run-variation draw (frontier run derives one per launch and node)', integer(0), 0),
  )
    .option('--enable-prompt-tokens-details', "usage carries prompt_tokens_details.cached_tokens (vLLM's flag)")
    .action(serve);
}

/** The faults to inject (the evals' and the client's test doubles). */
function withFaultFlags(command: Command): Command {
  return command
    .option('--fault-error-rate <p>', 'share of requests answered with an HTTP error', number(0, 1), 0)
    .option('--fault-error-status <codes>', 'status codes of those errors', list)
    .option('--fault-disconnect-rate <p>', 'share of streams cut off mid-stream', number(0, 1), 0)
    .option('--fault-stall-rate <p>', 'share of streams that stall mid-stream', number(0, 1), 0)
    .option('--fault-stall-ms <ms>', 'length of a stall', integer(0), NO_FAULTS.stallMs)
    .option('--fault-malformed-rate <p>', 'share of streams with one malformed SSE event', number(0, 1), 0)
    .option('--fault-crash-after <n>', 'exit (status 1) after n requests, dropping every connection', integer(1))
    .option('--fault-slow-start <s>', '/health answers 503 for this many seconds after start', number(0), 0)
    .option(
      '--fault-start-crash-on <nodes>',
      'exit (status 1) at start-up, before serving, on these nodes ($SLURMD_NODENAME, else the host name; comma-separated): a bad node',
      (value: string, previous: string[] = []) => [...previous, ...commaList(value).filter(Boolean)],
    )
    .addOption(
      pathOption(
        '--fault-start-crash-once <file>',
        'exit (status 1) at start-up unless FILE exists, creating it: the first start of the engines sharing FILE crashes, later ones serve',
      ),
    );
}

/** The start-up crash faults: why this start crashes, or undefined. */
function startCrash(flags: ServeFlags): string | undefined {
  const node = process.env.SLURMD_NODENAME || hostname();
  if (flags.faultStartCrashOn?.includes(node)) return `--fault-start-crash-on: node ${node}`;
  if (flags.faultStartCrashOnce !== undefined) {
    try {
      // 'wx': only the first start creates it (atomically, should several start at once).
      writeFileSync(flags.faultStartCrashOnce, `${process.pid}\n`, { flag: 'wx' });
      return `--fault-start-crash-once: first start (${flags.faultStartCrashOnce})`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return undefined;
}

function faultsOf(flags: ServeFlags): FaultOptions {
  return {
    errorRate: flags.faultErrorRate,
    errorStatuses: flags.faultErrorStatus ?? NO_FAULTS.errorStatuses,
    disconnectRate: flags.faultDisconnectRate,
    stallRate: flags.faultStallRate,
    stallMs: flags.faultStallMs,
    malformedRate: flags.faultMalformedRate,
    crashAfter: flags.faultCrashAfter,
    slowStartMs: flags.faultSlowStart * 1000,
  };
}

/** --answers: the answer keys the evals' test double replies from. */
function answersOf(flags: ServeFlags): AnswerBook | undefined {
  if (!flags.answers) return undefined;
  const bytes = readUnpacked(flags.answers, MAX_ANSWERS_FILE_BYTES, MAX_ANSWERS_FILE_BYTES);
  if (!Buffer.isBuffer(bytes))
    throw new UserError(`--answers ${flags.answers} ${bytes.refused}`, {
      hint: 'pass the keys frontier eval answer-keys writes',
    });
  return AnswerBook.parse(bytes.toString('utf8'), flags.accuracy, flags.seed, flags.answers);
}

async function serve(flags: ServeFlags): Promise<void> {
  if (flags.role !== 'both' && (flags.prefillWorkers !== undefined || flags.decodeWorkers !== undefined)) {
    throw new UserError(
      `--role ${flags.role} serves one pool of a disaggregated deployment: size it with --workers, not --prefill-workers/--decode-workers`,
    );
  }
  const crash = startCrash(flags);
  if (crash) {
    process.stderr.write(`frontier sim: crashed at start-up (${crash})\n`);
    process.exit(ExitCode.FAILED);
  }
  // One draw per launch, before anything else: the factor is this process's for its life.
  const factor = flags.runVariation > 0 ? runFactor(flags.runVariation, flags.runSeed) : undefined;
  const topology = buildTopology({ ...deploymentOf(flags), performanceFactor: factor });
  const faults = faultsOf(flags);
  const answers = answersOf(flags);
  const server = await serveDeployment({
    topology,
    role: flags.role,
    servedModelName: flags.servedModelName,
    maxModelLen: flags.maxModelLen,
    speed: flags.speed,
    seed: flags.seed,
    naturalOutputTokens: flags.naturalOutputTokens,
    host: flags.host,
    port: flags.port,
    faults,
    answers,
    groundTruthFile: flags.groundTruth,
    promptTokensDetails: flags.enablePromptTokensDetails === true,
    // vLLM's profiler directory, or SGLang's: the sim stands for either engine.
    profilerDir: process.env.VLLM_TORCH_PROFILER_DIR || process.env.SGLANG_TORCH_PROFILER_DIR || undefined,
    // The fake GPU tools find this server's GPUs there, written before the banner.
    gpuRegistry: process.env[GPU_REGISTRY_ENV],
    onCrash: () => {
      process.stderr.write('frontier sim: crashed (--fault-crash-after)\n');
      process.exit(ExitCode.FAILED);
    },
  }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EADDRINUSE')
      throw new UserError(`port ${flags.port} on ${flags.host} is in use; pick another with --port (0 for any)`);
    throw e;
  });
  process.stdout.write(banner(flags, topology, server, factor));
  const stop = (): void => {
    void server.close().then(() => process.exit(ExitCode.OK));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function banner(flags: ServeFlags, topology: Topology, server: SimServer, factor: number | undefined): string {
  const engine = servingEngine(topology);
  return [
    `frontier sim: ${describeTopology(topology)}${flags.role === 'both' ? '' : `, ${flags.role} role`}`,
    ...describeMemory(topology),
    ...describeKvCache(server.cluster),
    ...(factor !== undefined
      ? [`  run variation: CV ${+(flags.runVariation * 100).toFixed(2)}%, this launch's factor ${factor.toFixed(3)}`]
      : []),
    `  serving ${flags.servedModelName ?? engine.model.hfRepo} (max model len ${Math.min(flags.maxModelLen ?? engine.model.maxContext, server.cluster.maxSequenceTokens)}) on ${server.url}, speed ${flags.speed}×`,
    ...(process.env.VLLM_TORCH_PROFILER_DIR
      ? [`  profiler: POST /start_profile, /stop_profile; traces to ${process.env.VLLM_TORCH_PROFILER_DIR}`]
      : []),
    '',
  ].join('\n');
}
