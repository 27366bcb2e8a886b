import type { RequestResult } from '../client.js';
import { NO_OUTPUT_TOKENS, ZERO_COMPLETION_TOKENS } from '../metrics.js';
import { INVALID_USAGE } from '../response.js';

/**
 * What the replay knows of each request (the prompt it built, the max_tokens and ignore_eos it
 * asked for, the chunks it received) against the server's usage: a count the client can
 * contradict fails the request, as the fixed-length bench's checks do (../response.ts checks each
 * count's type and range, and that usage never goes back), instead of reaching the aggregate.
 */

/**
 * Tokens a chat template may add around the messages' words: 1,024. Role markers take a few
 * tokens a message; a default system prompt (gpt-oss's harmony header, ~100 tokens) the most seen.
 */
export const PROMPT_TEMPLATE_TOKENS = 1024;

/**
 * How far the server's prompt count may be from the words sent, as a factor: 2. Each prompt word
 * is one GPT-2 token (blocks.ts) and one or two in other tokenizers; the fixed-length bench's
 * usage check allows the same factor.
 */
export const PROMPT_TOKENS_FACTOR = 2;

/** What the replay sent: the prompt's size, and the output it asked for. */
export interface Sent {
  /**
   * Tokens the client puts in the prompt: its words (each word of a built prompt is one token
   * with the sim's tokenizer), and a live assistant reply as the server counted it.
   */
  promptTokens: number;
  maxTokens: number;
  /** ignore_eos was sent: the server must generate exactly max_tokens. */
  ignoreEos: boolean;
}

/** Words of a prompt the replay built: every word starts with a space (blocks.ts). */
export function promptWords(text: string): number {
  let n = 0;
  for (let at = text.indexOf(' '); at >= 0; at = text.indexOf(' ', at + 1)) n++;
  return n;
}

/** Why a response that ended without fault cannot be counted, if it cannot. */
export function countsProblem(result: RequestResult, sent: Sent): { reason: string; detail?: string } | undefined {
  if (result.tokenChunks === 0) return { reason: NO_OUTPUT_TOKENS };
  const output = numberOrUndefined(result.usage?.completion_tokens);
  if (output === 0) return { reason: ZERO_COMPLETION_TOKENS };
  // Each chunk with text carries at least one token (several with speculative decoding): a lower bound.
  if (output !== undefined && output < result.tokenChunks)
    return {
      reason: `${INVALID_USAGE}: fewer completion_tokens than chunks streamed`,
      detail: `${output} < ${result.tokenChunks}`,
    };
  if (sent.ignoreEos && output !== undefined && output < sent.maxTokens)
    return {
      reason: `${INVALID_USAGE}: fewer completion_tokens than max_tokens with ignore_eos`,
      detail: `${output} < ${sent.maxTokens}`,
    };
  const prompt = numberOrUndefined(result.usage?.prompt_tokens);
  const words = sent.promptTokens;
  if (
    prompt !== undefined &&
    (prompt * PROMPT_TOKENS_FACTOR < words || prompt > words * PROMPT_TOKENS_FACTOR + PROMPT_TEMPLATE_TOKENS)
  )
    return { reason: `${INVALID_USAGE}: prompt_tokens far from the prompt sent`, detail: `${prompt} tokens for ${words} sent` };
  return undefined;
}

/** A usage count as given (null, which usage may hold, as absent). */
const numberOrUndefined = (v: number | null | undefined): number | undefined => (typeof v === 'number' ? v : undefined);
