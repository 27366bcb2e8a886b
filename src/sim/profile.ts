import { readFileSync } from 'node:fs';
import { z } from 'zod';
import shippedProfileData from './data/profile.json' with { type: 'json' };
import type { Hardware, Model } from './catalog.js';
import type { Efficiency, SchedulingPolicy } from './perf.js';
import { DEFAULT_EFFICIENCY, SimConfigError } from './perf.js';

/**
 * Efficiency profiles: the performance model's factors per hardware × engine (and vendor, model
 * where it matters), as data with where each number came from: a source, or the fit that made it
 * (`frontier sim calibrate`). The shipped profile (data/profile.json) is fitted from published
 * InferenceX measurements.
 */

const FACTOR_KEYS = Object.keys(DEFAULT_EFFICIENCY) as (keyof Efficiency)[];

/** Which deployments an entry applies to; an empty match applies to all. */
export interface ProfileMatch {
  vendor?: string | undefined;
  hardware?: string | undefined;
  /** A framework as InferenceX names it (`dynamo-trt`), or an engine family (`trt`: every framework that runs it). */
  engine?: string | undefined;
  model?: string | undefined;
}

/** How a fitted entry was made: the points it saw and its error on them (median |ratio − 1|). */
export interface FitRecord {
  points: string[];
  error: { tputPerGpu: number; interactivity: number; ttft: number };
}

export interface ProfileEntry {
  match: ProfileMatch;
  factors: Partial<Efficiency>;
  /** Where hand-set numbers come from (a URL or a reasoned note). */
  source?: string | undefined;
  fit?: FitRecord | undefined;
}

export interface EfficiencyProfile {
  description: string;
  /** How the profile was fitted, when it was. */
  fitted?: { from: string; levels: string[]; points: number } | undefined;
  entries: ProfileEntry[];
}

/** Shares of a peak and bandwidths must be positive; latencies and the imbalance may be 0. */
const RATES = new Set<keyof Efficiency>(['compute', 'memory', 'attentionMemory', 'network', 'scaleOutBandwidthGBps']);

/** Built on first use: the CLI starts without it. */
let schema: ReturnType<typeof buildSchema> | undefined;

function buildSchema() {
  const factorsSchema = z
    .object(
      Object.fromEntries(
        FACTOR_KEYS.map((k) => [k, (RATES.has(k) ? z.number().positive() : z.number().nonnegative()).optional()]),
      ) as Record<keyof Efficiency, z.ZodOptional<z.ZodNumber>>,
    )
    .strict();

  return z
    .object({
      description: z.string(),
      fitted: z.object({ from: z.string(), levels: z.array(z.string()), points: z.number().int() }).optional(),
      entries: z.array(
        z
          .object({
            match: z
              .object({
                vendor: z.string().optional(),
                hardware: z.string().optional(),
                engine: z.string().optional(),
                model: z.string().optional(),
              })
              .strict(),
            factors: factorsSchema,
            source: z.string().optional(),
            fit: z
              .object({
                points: z.array(z.string()),
                error: z.object({ tputPerGpu: z.number(), interactivity: z.number(), ttft: z.number() }),
              })
              .optional(),
          })
          .strict()
          .refine((e) => e.source !== undefined || e.fit !== undefined, 'each entry needs a "source" or a "fit" record'),
      ),
    })
    .strict();
}

/** A profile read from JSON text, checked; errors name the file and the key. */
export function parseProfile(text: string, file: string): EfficiencyProfile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new SimConfigError(`${file}: not JSON (${(e as Error).message})`);
  }
  const parsed = (schema ??= buildSchema()).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SimConfigError(
      `${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}; factors are ${FACTOR_KEYS.join(', ')} (frontier sim calibrate writes this file)`,
    );
  }
  return parsed.data as EfficiencyProfile;
}

export function readProfile(file: string): EfficiencyProfile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SimConfigError(`--profile ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseProfile(text, file);
}

let shipped: EfficiencyProfile | undefined;

/** The shipped profile (data/profile.json), checked on first use. */
export function shippedProfile(): EfficiencyProfile {
  return (shipped ??= parseProfile(JSON.stringify(shippedProfileData), 'src/sim/data/profile.json'));
}

/**
 * The engine family a framework belongs to, as InferenceX names frameworks: `dynamo-trt` and
 * `trt` run TensorRT-LLM, `dynamo-sglang`, `mori-sglang` and `sglang-disagg` run SGLang.
 */
export function engineFamily(framework: string | undefined): string {
  const f = frameworkOf(framework);
  const base = f.replace(/^(dynamo|mori|llm-d)-/, '').replace(/-disagg$/, '');
  if (/^(trt|trtllm|tensorrt-llm|trt-llm)$/.test(base)) return 'trt';
  return base;
}

/** What a deployment is, for matching profile entries. */
export interface ProfileKey {
  hardware: Hardware;
  engine: string | undefined;
  model: Model;
}

const matches = (m: ProfileMatch, key: ProfileKey): boolean =>
  (m.vendor === undefined || m.vendor === key.hardware.vendor) &&
  (m.hardware === undefined || m.hardware === key.hardware.id) &&
  (m.engine === undefined || m.engine === frameworkOf(key.engine) || m.engine === engineFamily(key.engine)) &&
  (m.model === undefined || m.model === key.model.id);

/** A framework's name as profiles match it: lower case, vllm when none is given. */
export const frameworkOf = (engine: string | undefined): string => (engine ?? 'vllm').toLowerCase();

/** Vendor < engine family < framework < hardware < model: a more specific entry overrides. */
const specificity = (m: ProfileMatch): number =>
  (m.vendor ? 1 : 0) + (m.engine ? (m.engine === engineFamily(m.engine) ? 1 : 2) : 0) + (m.hardware ? 4 : 0) + (m.model ? 8 : 0);

/** The entries that apply to a deployment, least specific first (later ones override). */
function applicableEntries(profile: EfficiencyProfile, key: ProfileKey): ProfileEntry[] {
  return profile.entries
    .map((entry, i) => ({ entry, i }))
    .filter(({ entry }) => matches(entry.match, key))
    .sort((a, b) => specificity(a.entry.match) - specificity(b.entry.match) || a.i - b.i)
    .map(({ entry }) => entry);
}

/** The factors for a deployment: the defaults, overridden by each applicable entry in turn. */
export function resolveEfficiency(profile: EfficiencyProfile, key: ProfileKey): Efficiency {
  let efficiency: Efficiency = { ...DEFAULT_EFFICIENCY };
  for (const entry of applicableEntries(profile, key)) efficiency = { ...efficiency, ...entry.factors };
  return efficiency;
}

/**
 * Each engine family's scheduler. SGLang runs waiting prefills before decodes (its scheduler's
 * `get_next_batch_to_run`) and spreads data-parallel-attention requests round-robin (its
 * default `load_balance_method`); vLLM's v1 scheduler and TensorRT-LLM's in-flight batching mix
 * prefill chunks into the decode batch, and balance attention-DP ranks by load.
 */
export function schedulingPolicy(engine: string | undefined): SchedulingPolicy {
  return engineFamily(engine) === 'sglang'
    ? { batching: 'prefill-first', dpRouting: 'round-robin' }
    : { batching: 'mixed', dpRouting: 'least-loaded' };
}
