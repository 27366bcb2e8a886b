import { Command, Option } from 'commander';
import { DEFAULT_DEPLOYMENT, DEFAULT_EFFICIENCY, DEFAULT_LIMITS, PRECISIONS } from '../sim/index.js';
import type { DeploymentOptions, Efficiency, Precision } from '../sim/index.js';
import { readProfile } from '../sim/profile.js';
import { UserError } from '../util/user-error.js';
import { numberArg } from './options.js';
import { pathOption } from './paths.js';

const integer = (min: number) => numberArg({ integer: true, min });
const number = (min: number, max = Infinity) => numberArg({ min, max });

export interface DeploymentFlags {
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
export function withDeployment(command: Command): Command {
  return withEngineFlags(withShapeFlags(command));
}

/** What runs on which GPUs: model, hardware, engine, parallelism, workers. */
function withShapeFlags(command: Command): Command {
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
    .option('--decode-dp-attn', 'dp-attention on the decode instances');
}

/** How each engine is set up: batch limits, memory, speculative decoding, performance factors, KV offload. */
function withEngineFlags(command: Command): Command {
  return command
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

/** The deployment the flags select (limits left unset take their defaults). */
export function deploymentOf(flags: DeploymentFlags): DeploymentOptions {
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
    limits: definedOnly({
      maxNumSeqs: flags.maxNumSeqs,
      maxNumBatchedTokens: flags.maxNumBatchedTokens,
      blockSize: flags.blockSize,
    }),
    prefixCaching: flags.enablePrefixCaching,
    kvOffloadDramGB: flags.kvOffloadDramGb,
    hostLinkGBps: flags.hostLinkBandwidth,
  };
}

/** Drop undefined entries so the defaults apply. */
const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
