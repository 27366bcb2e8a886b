import { Command, Option } from 'commander';
import {
  AnswerBook,
  MAX_ANSWERS_FILE_BYTES,
  DEFAULT_DEPLOYMENT,
  DEFAULT_LIMITS,
  DEFAULT_SERVER_OPTIONS,
  NO_FAULTS,
  PRECISIONS,
  SIM_ROLES,
  buildTopology,
  describeTopology,
  gpusOf,
  memory,
  simulateClosedLoop,
  startSimRouter,
  startSimServer,
} from '../sim/index.js';
import type { Cluster, DeploymentOptions, Efficiency, FaultOptions, Precision, SimRole, Topology } from '../sim/index.js';
import { DEFAULT_EFFICIENCY } from '../sim/index.js';
import { numberArg, numberListArg, formatOption } from './options.js';
import { readUnpacked } from '../util/bounded-read.js';
import { UserError } from '../util/user-error.js';
import { GPU_REGISTRY_ENV, registerGpus } from '../sim/gpu-registry.js';
import { addSmiCommands } from './sim-smi.js';
import { addCalibrationCommands } from './sim-calibrate.js';
import { readProfile } from '../sim/profile.js';
import { pathOption } from './paths.js';

const integer = (min: number) => numberArg({ integer: true, min });
const number = (min: number, max = Infinity) => numberArg({ min, max });
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const list = numberListArg({ integer: true, min: 1 });

interface DeploymentFlags {
  model: string;
  hardware: string;
  precision: Precision;
  engine: string;
  profile?: string;
  tp: number;
  ep: number;
  dpAttn?: boolean;
  pp: number;
  workers: number;
  prefillWorkers?: number;
  decodeWorkers?: number;
  prefillTp?: number;
  prefillEp?: number;
  prefillDpAttn?: boolean;
  decodeTp?: number;
  decodeEp?: number;
  decodeDpAttn?: boolean;
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
  blockSize?: number;
  gpuMemoryUtilization?: number;
  kvCacheDtype?: 'bf16' | 'fp8';
  specDraftTokens?: number;
  specAcceptance?: number;
  efficiency?: string[];
  enablePrefixCaching: boolean;
  kvOffloadDramGb?: number;
  hostLinkBandwidth?: number;
}

/** The flags that select a simulated deployment, shared by `serve` and `estimate`. */
function withDeployment(command: Command): Command {
  return command
    .option('--model <name>', 'model: an id (deepseek-r1, llama-3.1-8b…) or Hugging Face name', DEFAULT_DEPLOYMENT.model)
    .option('--hardware <gpu>', 'GPU: h100 h200 b200 b300 gb200 gb300 mi300x mi325x mi355x', DEFAULT_DEPLOYMENT.hardware)
    .addOption(new Option('--precision <p>', 'weight precision').choices(PRECISIONS).default(DEFAULT_DEPLOYMENT.precision))
    .option(
      '--engine <framework>',
      'the serving framework as InferenceX names it (vllm, sglang, trt, atom, dynamo-trt…): its scheduler and calibrated efficiency',
      'vllm',
    )
    .addOption(
      pathOption(
        '--profile <file>',
        'efficiency profile (frontier sim calibrate --out); default: the shipped one, fitted from published measurements',
      ),
    )
    .option('--tp <n>', 'tensor parallel size (GPUs per instance)', integer(1), 1)
    .option('--ep <n>', 'expert parallel size of the MoE layers (≤ tp)', integer(1), 1)
    .option('--dp-attn', 'data-parallel attention (DEP): tp attention ranks, experts spread over them')
    .option('--pp <n>', 'pipeline parallel size', integer(1), 1)
    .option('--workers <n>', 'aggregated instances behind the router', integer(1), 1)
    .option('--prefill-workers <n>', 'disaggregated: prefill instances (with --decode-workers)', integer(1))
    .option('--decode-workers <n>', 'disaggregated: decode instances', integer(1))
    .option('--prefill-tp <n>', 'tp of the prefill instances (default --tp)', integer(1))
    .option('--prefill-ep <n>', 'ep of the prefill instances (default --ep)', integer(1))
    .option('--prefill-dp-attn', 'dp-attention on the prefill instances')
    .option('--decode-tp <n>', 'tp of the decode instances (default --tp)', integer(1))
    .option('--decode-ep <n>', 'ep of the decode instances (default --ep)', integer(1))
    .option('--decode-dp-attn', 'dp-attention on the decode instances')
    .option('--max-num-seqs <n>', `most sequences in a batch (default ${DEFAULT_LIMITS.maxNumSeqs})`, integer(1))
    .option(
      '--max-num-batched-tokens <n>',
      `token budget of one step, chunked prefill (default ${DEFAULT_LIMITS.maxNumBatchedTokens})`,
      integer(1),
    )
    .option('--block-size <n>', `tokens per KV-cache block (default ${DEFAULT_LIMITS.blockSize})`, integer(1))
    .option('--gpu-memory-utilization <f>', 'share of HBM for weights and KV cache (default 0.9)', number(0.05, 1))
    .addOption(
      new Option('--kv-cache-dtype <t>', 'KV cache element type (default: fp8, bf16 for bf16 models)').choices(['bf16', 'fp8']),
    )
    .option('--spec-draft-tokens <n>', 'speculative decoding: draft tokens per step', integer(1))
    .option(
      '--spec-acceptance <f>',
      "speculative decoding: mean acceptance length (tokens per step, bonus token included), each step's drawn as vLLM's synthetic sampler draws it (synthetic_acceptance_length)",
      number(1),
    )
    .option(
      '--efficiency <key=value>',
      `override a performance-model factor (${Object.keys(DEFAULT_EFFICIENCY).join(', ')}); repeatable`,
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--no-enable-prefix-caching', "turn off automatic prefix caching (vLLM's; on by default)")
    .option(
      '--kv-offload-dram-gb <GB>',
      'host DRAM for KV offload over the whole deployment, decimal GB (InferenceX TOTAL_CPU_DRAM_GB); split over the prefilling instances (default 0: none)',
      number(0),
    )
    .option(
      '--host-link-bandwidth <GB/s>',
      'GPU-to-host bandwidth per GPU, one direction, as reached (default: PCIe 5.0 x16 64 GB/s, NVLink-C2C 450 GB/s on gb200/gb300, × the network efficiency)',
      number(1e-3),
    );
}

function deployment(flags: DeploymentFlags): DeploymentOptions {
  const efficiency: Partial<Efficiency> = {};
  for (const pair of flags.efficiency ?? []) {
    const [key, value] = pair.split('=');
    if (!key || !(key in DEFAULT_EFFICIENCY) || value === undefined || !Number.isFinite(Number(value))) {
      throw new UserError(
        `--efficiency ${pair}: expected <key>=<number> with key one of ${Object.keys(DEFAULT_EFFICIENCY).join(', ')}`,
      );
    }
    efficiency[key as keyof Efficiency] = Number(value);
  }
  if ((flags.specDraftTokens === undefined) !== (flags.specAcceptance === undefined)) {
    throw new UserError('speculative decoding needs both --spec-draft-tokens and --spec-acceptance');
  }
  return {
    model: flags.model,
    hardware: flags.hardware,
    precision: flags.precision,
    engine: flags.engine,
    profile: flags.profile ? readProfile(flags.profile) : undefined,
    tp: flags.tp,
    ep: flags.ep,
    dpAttn: flags.dpAttn,
    pp: flags.pp,
    workers: flags.workers,
    prefillWorkers: flags.prefillWorkers,
    decodeWorkers: flags.decodeWorkers,
    prefill: { tp: flags.prefillTp, ep: flags.prefillEp, dpAttn: flags.prefillDpAttn },
    decode: { tp: flags.decodeTp, ep: flags.decodeEp, dpAttn: flags.decodeDpAttn },
    kvCacheDtype: flags.kvCacheDtype,
    gpuMemoryUtilization: flags.gpuMemoryUtilization,
    speculative: flags.specDraftTokens
      ? { draftTokens: flags.specDraftTokens, acceptanceLength: flags.specAcceptance! }
      : undefined,
    efficiency,
    limits: { maxNumSeqs: flags.maxNumSeqs, maxNumBatchedTokens: flags.maxNumBatchedTokens, blockSize: flags.blockSize },
    prefixCaching: flags.enablePrefixCaching,
    kvOffloadDramGB: flags.kvOffloadDramGb,
    hostLinkGBps: flags.hostLinkBandwidth,
  };
}

/** Drop undefined limits so the defaults apply. */
function clean(options: DeploymentOptions): DeploymentOptions {
  const limits = Object.fromEntries(Object.entries(options.limits ?? {}).filter(([, v]) => v !== undefined));
  return { ...options, limits };
}

/** One line per pool: GPUs, weights and KV cache per GPU. */
function describeMemory(t: Topology): string[] {
  const pools =
    t.kind === 'aggregated'
      ? [['', t.pool] as const]
      : ([
          ['prefill ', t.prefill],
          ['decode ', t.decode],
        ] as const);
  return pools.map(([name, pool]) => {
    const m = memory(pool.engine);
    return `  ${name}${pool.workers} × ${gpusOf(pool.engine.parallelism)} GPUs: weights ${m.weightsGB.toFixed(1)} GB/GPU, KV cache ${m.kvCacheGB.toFixed(1)} GB/GPU`;
  });
}

/**
 * vLLM's startup line for each engine's KV cache (`GPU KV cache size: N tokens`), which
 * InferenceX's aggregation sums from the server log for the pool's capacity.
 */
function describeKvCache(cluster: Cluster): string[] {
  return cluster.instances.map((i) => `  GPU KV cache size: ${i.maxSequenceTokens.toLocaleString('en-US')} tokens`);
}

export function simCommand(): Command {
  const sim = new Command('sim').description(
    'the simulated inference engine: an OpenAI-compatible server over a performance model',
  );

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
    .option('--fault-error-rate <p>', 'share of requests answered with an HTTP error', number(0, 1), 0)
    .option('--fault-error-status <codes>', 'status codes of those errors', list)
    .option('--fault-disconnect-rate <p>', 'share of streams cut off mid-stream', number(0, 1), 0)
    .option('--fault-stall-rate <p>', 'share of streams that stall mid-stream', number(0, 1), 0)
    .option('--fault-stall-ms <ms>', 'length of a stall', integer(0), NO_FAULTS.stallMs)
    .option('--fault-malformed-rate <p>', 'share of streams with one malformed SSE event', number(0, 1), 0)
    .option('--fault-crash-after <n>', 'exit (status 1) after n requests, dropping every connection', integer(1))
    .option('--fault-slow-start <s>', '/health answers 503 for this many seconds after start', number(0), 0)
    .option('--enable-prompt-tokens-details', "usage carries prompt_tokens_details.cached_tokens (vLLM's flag)")
    .action(
      async (
        flags: DeploymentFlags & {
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
          enablePromptTokensDetails?: boolean;
        },
      ) => {
        if (flags.role !== 'both' && (flags.prefillWorkers !== undefined || flags.decodeWorkers !== undefined)) {
          throw new UserError(
            `--role ${flags.role} serves one pool of a disaggregated deployment: size it with --workers, not --prefill-workers/--decode-workers`,
          );
        }
        const topology = buildTopology(clean(deployment(flags)));
        const engine = topology.kind === 'aggregated' ? topology.pool.engine : topology.decode.engine;
        const faults: FaultOptions = {
          errorRate: flags.faultErrorRate,
          errorStatuses: flags.faultErrorStatus ?? NO_FAULTS.errorStatuses,
          disconnectRate: flags.faultDisconnectRate,
          stallRate: flags.faultStallRate,
          stallMs: flags.faultStallMs,
          malformedRate: flags.faultMalformedRate,
          crashAfter: flags.faultCrashAfter,
          slowStartMs: flags.faultSlowStart * 1000,
        };
        let answers: AnswerBook | undefined;
        if (flags.answers) {
          const bytes = readUnpacked(flags.answers, MAX_ANSWERS_FILE_BYTES, MAX_ANSWERS_FILE_BYTES);
          if (!Buffer.isBuffer(bytes))
            throw new UserError(`--answers ${flags.answers} ${bytes.refused}`, {
              hint: 'pass the keys frontier eval answer-keys writes',
            });
          answers = AnswerBook.parse(bytes.toString('utf8'), flags.accuracy, flags.seed, flags.answers);
        }
        const server = await startSimServer({
          topology,
          role: flags.role,
          servedModelName: flags.servedModelName ?? engine.model.hfRepo,
          maxModelLen: flags.maxModelLen ?? engine.model.maxContext,
          speed: flags.speed,
          seed: flags.seed,
          naturalOutputTokens: flags.naturalOutputTokens,
          host: flags.host,
          port: flags.port,
          faults,
          answers,
          groundTruthFile: flags.groundTruth,
          promptTokensDetails: flags.enablePromptTokensDetails === true,
          profilerDir: process.env.VLLM_TORCH_PROFILER_DIR || undefined,
          onCrash: () => {
            process.stderr.write('frontier sim: crashed (--fault-crash-after)\n');
            process.exit(1);
          },
        }).catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'EADDRINUSE')
            throw new UserError(`port ${flags.port} on ${flags.host} is in use; pick another with --port (0 for any)`);
          throw e;
        });
        // The fake GPU tools find this server's GPUs here (gpu-registry.ts), written before the banner
        // (whoever waits for the banner finds them) and removed at exit.
        const registry = process.env[GPU_REGISTRY_ENV];
        if (registry) {
          registerGpus(registry, {
            url: server.url,
            hardware: engine.hardware,
            gpus: server.power.gpus,
            speed: flags.speed,
            startedMs: server.clock.epoch0,
          });
        }
        process.stdout.write(
          [
            `frontier sim: ${describeTopology(topology)}${flags.role === 'both' ? '' : `, ${flags.role} role`}`,
            ...describeMemory(topology),
            ...describeKvCache(server.cluster),
            `  serving ${flags.servedModelName ?? engine.model.hfRepo} (max model len ${Math.min(flags.maxModelLen ?? engine.model.maxContext, server.cluster.maxSequenceTokens)}) on ${server.url}, speed ${flags.speed}×`,
            ...(process.env.VLLM_TORCH_PROFILER_DIR
              ? [`  profiler: POST /start_profile, /stop_profile; traces to ${process.env.VLLM_TORCH_PROFILER_DIR}`]
              : []),
            '',
          ].join('\n'),
        );
        const stop = (): void => {
          void server.close().then(() => process.exit(0));
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      },
    );

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
    .action(
      async (flags: {
        prefill?: string[];
        decode?: string[];
        port: number;
        host: string;
        sessionAffinity: boolean;
        sessionTtl: number;
      }) => {
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
          void router.close().then(() => process.exit(0));
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      },
    );

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
    .action(
      (
        flags: DeploymentFlags & {
          isl: number;
          osl: number;
          conc?: number[];
          rangeRatio: number;
          requestsPerConc: number;
          format: 'text' | 'json';
        },
      ) => {
        const topology = buildTopology(clean(deployment(flags)));
        const concs = flags.conc ?? [1, 4, 16, 64, 256];
        const rows = concs.map((conc) => ({
          conc,
          ...simulateClosedLoop(topology, {
            concurrency: conc,
            requests: conc * flags.requestsPerConc,
            isl: flags.isl,
            osl: flags.osl,
            rangeRatio: flags.rangeRatio,
          }),
        }));
        if (flags.format === 'json') {
          process.stdout.write(
            `${JSON.stringify({ deployment: describeTopology(topology), isl: flags.isl, osl: flags.osl, points: rows }, null, 2)}\n`,
          );
          return;
        }
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
        process.stdout.write(`${lines.join('\n')}\n`);
      },
    );

  addCalibrationCommands(sim);
  addSmiCommands(sim);
  return sim;
}
