import { engineFlags, flagEntry } from '../recipes/index.js';
import type { EngineRole } from '../recipes/index.js';
import type { Knob, Pin } from './judge.js';

/**
 * The synthetic acceptance an srt-slurm recipe hard-codes, per decoding role (prefill workers
 * only produce the first token, so acceptance does not apply to them): vLLM's speculative-config,
 * SGLang's and TensorRT-LLM's environment variables, with the role's draft length.
 */

export interface RecipePin extends Pin {
  role: EngineRole;
  /** Dotted path of the value in the recipe (for locateInRecipe). */
  path: string;
}

export interface RecipeSpeculation {
  role: EngineRole;
  /** The draft length the role runs, undefined when it does not speculate (or the recipe does not say). */
  draftLength: number | undefined;
  /** The chat-template kwargs the role's engine serves by default. */
  thinking: Record<string, unknown> | undefined;
  /** Dotted path of the role's speculative config, for messages. */
  path: string | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON flag written as a string (`'{"method":"mtp",…}'`) or as a mapping. */
function jsonFlag(value: unknown): Obj | undefined {
  if (isObj(value)) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return isObj(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const positive = (v: unknown): number | undefined => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function recipeSpeculation(recipe: Obj): RecipeSpeculation[] {
  const backend = isObj(recipe.backend) ? recipe.backend : undefined;
  const type = String(backend?.type ?? 'sglang');
  const out: RecipeSpeculation[] = [];
  for (const role of ['decode', 'aggregated'] as const) {
    const flags = engineFlags(backend, role);
    if (!flags) continue;
    const base = `backend.${type}_config.${role}`;
    let draftLength: number | undefined;
    let path: string | undefined;
    if (type === 'vllm') {
      const spec = flagEntry(flags, 'speculative-config');
      draftLength = positive(jsonFlag(spec?.[1])?.num_speculative_tokens);
      path = spec && `${base}.${spec[0]}`;
    } else if (type === 'sglang') {
      const steps = flagEntry(flags, 'speculative-num-steps');
      draftLength = positive(steps?.[1]);
      path = steps && `${base}.${steps[0]}`;
    } else if (type === 'trtllm') {
      const spec = flagEntry(flags, 'speculative_config');
      const config = isObj(spec?.[1]) ? (spec[1] as Obj) : undefined;
      draftLength = positive(config?.max_draft_len ?? config?.num_nextn_predict_layers);
      path = spec && `${base}.${spec[0]}`;
    }
    const kwargs = flagEntry(flags, 'default-chat-template-kwargs') ?? flagEntry(flags, 'chat-template-kwargs');
    out.push({ role, draftLength, thinking: jsonFlag(kwargs?.[1]), path });
  }
  return out;
}

const ENV_KNOBS: Knob[] = ['SGLANG_SIMULATE_ACC_LEN', 'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS'];

export function recipePins(recipe: Obj): RecipePin[] {
  const backend = isObj(recipe.backend) ? recipe.backend : {};
  const type = String(backend.type ?? 'sglang');
  const pins: RecipePin[] = [];
  for (const { role, draftLength } of recipeSpeculation(recipe)) {
    const draftLengths = draftLength === undefined ? [] : [draftLength];
    const envs: [string, unknown][] = [
      [`backend.${role}_environment`, backend[`${role}_environment`]],
      ['environment', recipe.environment],
    ];
    for (const knob of ENV_KNOBS) {
      const [where, env] = envs.find(([, e]) => isObj(e) && e[knob] !== undefined && e[knob] !== null) ?? [];
      if (where) pins.push({ knob, written: String((env as Obj)[knob]), draftLengths, role, path: `${where}.${knob}` });
    }
    const spec = flagEntry(engineFlags(backend, role) ?? {}, 'speculative-config');
    const synthetic = jsonFlag(spec?.[1])?.synthetic_acceptance_length;
    if (type === 'vllm' && spec && synthetic !== undefined)
      pins.push({
        knob: 'synthetic_acceptance_length',
        written: String(synthetic),
        draftLengths,
        role,
        path: `backend.vllm_config.${role}.${spec[0]}`,
      });
  }
  return pins;
}
