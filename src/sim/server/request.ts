import type { IncomingMessage } from 'node:http';
import { readBody } from '../http.js';
import { decode, encode, renderChat } from '../tokens.js';
import type { SimRole } from './options.js';

/** A request the server refuses, answered with `status` and a vLLM-shaped JSON error. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** The part of a completions or chat completions request checked before it is given an id. */
export interface GenerationRequest {
  /** The prompt as text (token ids decoded), and its length in tokens. */
  promptString: string;
  promptTokens: number;
  /** The prompt's token ids, when this server tokenized it (not for a prompt a prefill server counted). */
  promptIds: readonly number[] | undefined;
  maxTokens: number;
  /** A prefill server's request for a remote decode: the answer carries `kv_transfer_params`. */
  remoteDecode: boolean;
  /**
   * A decode server's request for a remote prefill, admitted prefilled: the GPUs the KV cache
   * comes from (`tp_size`), and the prefill's request id.
   */
  remotePrefill: { gpus: number | undefined; requestId: string | null } | undefined;
}

/** Check a generation request's model, prompt and length against what the server serves; read its `kv_transfer_params`. */
export function parseGeneration(
  body: Record<string, unknown>,
  chat: boolean,
  served: { servedModelName: string; maxModelLen: number; role: SimRole },
): GenerationRequest {
  const { maxModelLen } = served;
  const model = body.model;
  if (model !== undefined && model !== served.servedModelName) {
    throw new BadRequest(`The model \`${String(model)}\` does not exist.`, 404);
  }
  if (body.n !== undefined && body.n !== 1) throw new BadRequest('only n = 1 is supported by the simulator');
  const promptText = chat ? renderChat(messagesOf(body.messages)) : promptOf(body.prompt);
  const kv = kvParamsOf(body.kv_transfer_params);
  const remotePrefill = served.role === 'decode' && kv?.do_remote_prefill === true;
  // Admitted prefilled, the prompt's length is the one the prefill server counted: the engine's
  // tokenizer takes a millisecond, this one tens of them for long prompts, and not twice.
  const counted = remotePrefill && positiveInt(kv.remote_num_tokens) ? (kv.remote_num_tokens as number) : undefined;
  const promptIds = typeof promptText === 'string' ? (counted === undefined ? encode(promptText) : undefined) : promptText;
  const promptTokens = typeof promptText === 'string' ? (counted ?? promptIds!.length) : promptText.length;
  const promptString = typeof promptText === 'string' ? promptText : decode(promptText);
  if (promptTokens === 0) throw new BadRequest('the prompt is empty');
  const requested = intField(body, chat ? ['max_completion_tokens', 'max_tokens'] : ['max_tokens']);
  const maxTokens = requested ?? (chat ? maxModelLen - promptTokens : 16);
  if (maxTokens < 1) throw new BadRequest(`max_tokens must be at least 1, got ${maxTokens}`);
  if (promptTokens + maxTokens > maxModelLen) {
    throw new BadRequest(
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${maxModelLen} - ${promptTokens}).`,
    );
  }
  return {
    promptString,
    promptTokens,
    promptIds,
    maxTokens,
    remoteDecode: served.role === 'prefill' && kv?.do_remote_decode === true && body.stream !== true,
    remotePrefill: remotePrefill
      ? {
          gpus: positiveInt(kv.tp_size) ? (kv.tp_size as number) : undefined,
          requestId: typeof kv.remote_request_id === 'string' ? kv.remote_request_id : null,
        }
      : undefined,
  };
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(req, () => new BadRequest('request body too large', 413));
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new BadRequest(`invalid JSON body: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequest('the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A completions prompt: a string, or token ids; a one-element list of either. */
export function promptOf(prompt: unknown): string | number[] {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) {
    if (prompt.length > 0 && prompt.every((t) => Number.isInteger(t))) return prompt as number[];
    if (prompt.length === 1) return promptOf(prompt[0]);
    throw new BadRequest('prompt must be a string or a list of token ids (batched prompts are not supported by the simulator)');
  }
  throw new BadRequest('prompt is required: a string or a list of token ids');
}

export function messagesOf(messages: unknown): { role: string; content: string }[] {
  if (!Array.isArray(messages) || messages.length === 0) throw new BadRequest('messages must be a non-empty list');
  return messages.map((m, i) => {
    const { role, content } = (m ?? {}) as Record<string, unknown>;
    if (typeof role !== 'string') throw new BadRequest(`messages[${i}].role must be a string`);
    if (typeof content === 'string') return { role, content };
    if (Array.isArray(content)) {
      const text = content
        .map((part) =>
          (part as Record<string, unknown>).type === 'text' ? String((part as Record<string, unknown>).text ?? '') : '',
        )
        .join('');
      return { role, content: text };
    }
    if (content === null || content === undefined) return { role, content: '' };
    throw new BadRequest(`messages[${i}].content must be a string or a list of parts`);
  });
}

const positiveInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 0;

/** vLLM's `kv_transfer_params`: an object, or absent. */
function kvParamsOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new BadRequest('kv_transfer_params must be an object');
  return value as Record<string, unknown>;
}

export function stopsOf(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return (stop as string[]).filter((s) => s !== '');
  throw new BadRequest('stop must be a string or a list of strings');
}

export function intField(body: Record<string, unknown>, names: string[]): number | undefined {
  for (const name of names) {
    const v = body[name];
    if (v === undefined || v === null) continue;
    if (!Number.isInteger(v)) throw new BadRequest(`${name} must be an integer`);
    return v as number;
  }
  return undefined;
}
