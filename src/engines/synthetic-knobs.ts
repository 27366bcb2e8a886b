import { existsSync, readFileSync } from 'node:fs';
import { UserError } from '../util/user-error.js';
import { flagValue } from '../util/argv.js';
import { parseYamlInput } from '../util/yaml-input.js';
import type { SpeculativeConfig } from '../sim/index.js';

/**
 * The synthetic acceptance an engine's command line and environment ask for, read as the engine
 * reads its own knob (InferenceX's scripts and runners/synthetic_injectors/ write them): a
 * stand-in serves the simulator with the acceptance the real engine would force, and a launch
 * knows the acceptance length its decode workers were told.
 *
 * - vLLM (and Dynamo's): `--speculative-config` JSON with `rejection_sample_method: synthetic`,
 *   `synthetic_acceptance_length` and `num_speculative_tokens`;
 * - ATOM: `--spec-decode-acceptance-length AL`, or `--spec-decode-acceptance-rate r`
 *   (AL = 1 + r · N), with `--num-speculative-tokens N`;
 * - SGLang: `SGLANG_SIMULATE_ACC_LEN` in the environment, drafts from `--speculative-num-steps`;
 * - TensorRT-LLM: `TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS` (accepted drafts: AL − 1), drafts
 *   from the LLM API options' `speculative_config` (`--override-engine-args` JSON, or the YAML of
 *   `--config`, `--extra_llm_api_options`, `--extra-engine-args`).
 *
 * Real acceptance (no knob) is not simulated: the simulator cannot know it.
 */

/** The simulator's speculative decoding, and which knob said so (for logs). */
export interface SyntheticSpec extends SpeculativeConfig {
  source: string;
}

function number(value: string, what: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new UserError(`${what} is ${JSON.stringify(value)}, not a number`);
  return n;
}

/** Without the float noise of the sum (1 + 1.78 is 2.7800000000000002). */
const decimal = (x: number): number => Number(x.toFixed(6));

function jsonObject(text: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${what} is not JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

function fromVllm(args: readonly string[]): SyntheticSpec | undefined {
  const text = flagValue(args, '--speculative-config', '--speculative_config');
  if (text === undefined) return undefined;
  const config = jsonObject(text, '--speculative-config');
  if (config.rejection_sample_method !== 'synthetic') return undefined;
  const al = config.synthetic_acceptance_length;
  const n = config.num_speculative_tokens;
  if (typeof al !== 'number' || typeof n !== 'number')
    throw new UserError(
      `--speculative-config asks for synthetic rejection sampling without a numeric synthetic_acceptance_length and num_speculative_tokens: ${text}`,
    );
  return { draftTokens: n, acceptanceLength: al, source: 'vLLM synthetic_acceptance_length' };
}

function fromAtom(args: readonly string[]): SyntheticSpec | undefined {
  const length = flagValue(args, '--spec-decode-acceptance-length');
  const rate = flagValue(args, '--spec-decode-acceptance-rate');
  if (length === undefined && rate === undefined) return undefined;
  const drafts = flagValue(args, '--num-speculative-tokens');
  if (drafts === undefined)
    throw new UserError('a forced acceptance (--spec-decode-acceptance-*) needs --num-speculative-tokens');
  const n = number(drafts, '--num-speculative-tokens');
  return length !== undefined
    ? {
        draftTokens: n,
        acceptanceLength: number(length, '--spec-decode-acceptance-length'),
        source: 'ATOM --spec-decode-acceptance-length',
      }
    : {
        draftTokens: n,
        acceptanceLength: decimal(1 + number(rate!, '--spec-decode-acceptance-rate') * n),
        source: 'ATOM --spec-decode-acceptance-rate',
      };
}

function fromSglang(args: readonly string[], env: NodeJS.ProcessEnv): SyntheticSpec | undefined {
  const length = env.SGLANG_SIMULATE_ACC_LEN;
  if (length === undefined || length === '') return undefined;
  const al = number(length, 'SGLANG_SIMULATE_ACC_LEN');
  const steps = flagValue(args, '--speculative-num-steps', '--speculative_num_steps');
  const draftTokens = steps !== undefined ? number(steps, '--speculative-num-steps') : Math.max(1, Math.ceil(al - 1));
  return { draftTokens, acceptanceLength: al, source: 'SGLANG_SIMULATE_ACC_LEN' };
}

/** Draft tokens in TensorRT-LLM's LLM API options (`max_draft_len`, or MTP's `num_nextn_predict_layers`). */
function trtDrafts(options: unknown): number | undefined {
  const spec = (options as { speculative_config?: Record<string, unknown> } | null)?.speculative_config;
  const n = spec?.max_draft_len ?? spec?.num_nextn_predict_layers;
  return typeof n === 'number' ? n : undefined;
}

function fromTrt(args: readonly string[], env: NodeJS.ProcessEnv): SyntheticSpec | undefined {
  const forced = env.TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS;
  if (forced === undefined || forced === '') return undefined;
  const accepted = number(forced, 'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS');
  const override = flagValue(args, '--override-engine-args');
  let drafts = override === undefined ? undefined : trtDrafts(jsonObject(override, '--override-engine-args'));
  const file = flagValue(args, '--config', '--extra_llm_api_options', '--extra-llm-api-options', '--extra-engine-args');
  // A launch plan reads the knob before srtctl has written the options file: the AL is known, the drafts not yet.
  if (drafts === undefined && file !== undefined && existsSync(file))
    drafts = trtDrafts(parseYamlInput(readFileSync(file, 'utf8'), file));
  const source = 'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS';
  if (drafts !== undefined) return { draftTokens: drafts, acceptanceLength: decimal(1 + accepted), source };
  const fewest = Math.max(1, Math.ceil(accepted));
  return {
    draftTokens: fewest,
    acceptanceLength: decimal(1 + accepted),
    source: `${source}; no speculative_config in the LLM API options, so the fewest drafts that reach it (${fewest})`,
  };
}

export function syntheticSpecOf(args: readonly string[], env: NodeJS.ProcessEnv): SyntheticSpec | undefined {
  return fromVllm(args) ?? fromAtom(args) ?? fromSglang(args, env) ?? fromTrt(args, env);
}

/** `frontier sim serve`'s flags for it. */
export const syntheticSpecFlags = (s: SyntheticSpec | undefined): string[] =>
  s ? ['--spec-draft-tokens', String(s.draftTokens), '--spec-acceptance', String(s.acceptanceLength)] : [];
