import { Command } from 'commander';
import {
  DEFAULT_ESTIMATE_LADDER,
  DEFAULT_SERVER_OPTIONS,
  buildTopology,
  describeMemory,
  describeTopology,
  estimate,
} from '../sim/index.js';
import { startSimRouter } from '../sim/index.js';
import type { Topology } from '../sim/index.js';
import { UserError } from '../util/user-error.js';
import { ExitCode } from '../util/exit-codes.js';
import { numberArg, numberListArg, formatOption } from './options.js';
import { addCalibrationCommands } from './sim-calibrate.js';
import { deploymentOf, withDeployment } from './sim-deployment.js';
import type { DeploymentFlags } from './sim-deployment.js';
import { addServeCommand } from './sim-serve.js';
import { addSmiCommands } from './sim-smi.js';

const integer = (min: number) => numberArg({ integer: true, min });
const number = (min: number, max = Infinity) => numberArg({ min, max });
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const list = numberListArg({ integer: true, min: 1 });

export function simCommand(): Command {
  const sim = new Command('sim').description(
    'the simulated inference engine: an OpenAI-compatible server over a performance model',
  );
  addServeCommand(sim);
  addRouterCommand(sim);
  addEstimateCommand(sim);
  addCalibrationCommands(sim);
  addSmiCommands(sim);
  return sim;
}

interface RouterFlags {
  prefill?: string[];
  decode?: string[];
  port: number;
  host: string;
  sessionAffinity: boolean;
  sessionTtl: number;
}

function addRouterCommand(sim: Command): void {
  sim
    .command('router')
    .description(
      "a prefill/decode proxy, as vLLM's toy_proxy_server: each request is prefilled on a `sim serve --role prefill` server (max_tokens 1, kv_transfer_params {do_remote_decode}), then decoded on a `--role decode` server, whose response streams back as it arrives",
    )
    .option('--prefill <url>', 'a prefill server, http://host:port (repeatable)', collect)
    .option('--decode <url>', 'a decode server, http://host:port (repeatable)', collect)
    .option('--port <n>', 'port on --host (0: any free port)', integer(0), DEFAULT_SERVER_OPTIONS.port)
    .option('--host <addr>', 'address to listen on', DEFAULT_SERVER_OPTIONS.host)
    .option(
      '--no-session-affinity',
      'send every request to the least-loaded prefill server, ignoring X-Dynamo-Session-ID / X-Correlation-ID / nvext.session_control',
    )
    .option('--session-ttl <s>', 'seconds an idle session stays bound to its prefill server', number(1), 3600)
    .action(router);
}

async function router(flags: RouterFlags): Promise<void> {
  if (!flags.prefill?.length || !flags.decode?.length) {
    throw new UserError('the router needs at least one --prefill URL and one --decode URL');
  }
  const router = await startSimRouter({
    prefill: flags.prefill,
    decode: flags.decode,
    host: flags.host,
    port: flags.port,
    sessionAffinity: flags.sessionAffinity,
    sessionTtlMs: flags.sessionTtl * 1000,
  }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EADDRINUSE')
      throw new UserError(`port ${flags.port} on ${flags.host} is in use; pick another with --port (0 for any)`);
    throw new UserError(e.message);
  });
  // The URL comes after " on ", as in `sim serve`'s banner, so one pattern finds either's.
  process.stdout.write(
    [
      `frontier sim router listening on ${router.url}`,
      ...flags.prefill.map((u) => `  prefill: ${u}`),
      ...flags.decode.map((u) => `  decode: ${u}`),
      '',
    ].join('\n'),
  );
  const stop = (): void => {
    void router.close().then(() => process.exit(ExitCode.OK));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

interface EstimateFlags extends DeploymentFlags {
  isl: number;
  osl: number;
  conc?: number[];
  rangeRatio: number;
  requestsPerConc: number;
  format: 'text' | 'json';
}

function addEstimateCommand(sim: Command): void {
  withDeployment(sim.command('estimate'))
    .description(
      'simulate a fixed-concurrency benchmark in virtual time: throughput per GPU, interactivity, TTFT per concurrency',
    )
    .option('--isl <n>', 'input tokens per request', integer(1), 1024)
    .option('--osl <n>', 'output tokens per request', integer(1), 1024)
    .option('--conc <list>', 'concurrencies, comma-separated', list)
    .option(
      '--range-ratio <r>',
      "lengths drawn uniformly in [r × L, L] per request, as InferenceX's client does (random_range_ratio; 1: every request exactly ISL/OSL)",
      number(0.01, 1),
      0.8,
    )
    .option(
      '--requests-per-conc <n>',
      'requests per concurrency, as a multiple of it (the InferenceX client uses 10)',
      integer(1),
      10,
    )
    .addOption(formatOption())
    .action(estimateCommand);
}

function estimateCommand(flags: EstimateFlags): void {
  const topology = buildTopology(deploymentOf(flags));
  const rows = estimate(topology, {
    concurrencies: flags.conc ?? DEFAULT_ESTIMATE_LADDER,
    requestsPerConc: flags.requestsPerConc,
    isl: flags.isl,
    osl: flags.osl,
    rangeRatio: flags.rangeRatio,
  });
  if (flags.format === 'json') {
    process.stdout.write(
      `${JSON.stringify({ deployment: describeTopology(topology), isl: flags.isl, osl: flags.osl, points: rows }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(estimateTable(flags, topology, rows));
}

function estimateTable(flags: EstimateFlags, topology: Topology, rows: ReturnType<typeof estimate>): string {
  const lines = [
    `${describeTopology(topology)} (${flags.engine}), ISL ${flags.isl} / OSL ${flags.osl}${flags.rangeRatio < 1 ? ` (lengths in [${flags.rangeRatio} L, L])` : ''}`,
    ...describeMemory(topology),
    '',
  ];
  lines.push('  conc  tok/s/GPU  tok/s/user  TTFT ms  TPOT ms  preemptions');
  for (const r of rows) {
    lines.push(
      `${String(r.conc).padStart(6)}${r.outputThroughputPerGpu.toFixed(0).padStart(11)}${r.interactivity.toFixed(1).padStart(12)}${r.medianTtftMs.toFixed(0).padStart(9)}${r.medianTpotMs.toFixed(1).padStart(9)}${String(r.preemptions).padStart(13)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
