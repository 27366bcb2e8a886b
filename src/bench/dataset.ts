import { readFile } from 'node:fs/promises';
import { Template } from '@huggingface/jinja';
import { Rng } from '../util/rng.js';
import type { Tokenizer } from './tokenizer.js';
import { encodeDsv4Messages } from './encoding-dsv4.js';
import { UserError } from '../util/user-error.js';

/** One request of a run: the prompt as sent, its length in the client's tokenizer, the tokens asked for. */
export interface BenchRequest {
  prompt: string;
  promptLen: number;
  outputLen: number;
}

export class DatasetError extends UserError {}

/** The ChatML template, for tokenizers that carry none (GPT-2). */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** A one-turn chat rendered with the tokenizer's template (`--use-chat-template`). */
export function chatTemplate(tokenizer: Tokenizer): (content: string) => string {
  const template = new Template(tokenizer.chatTemplate ?? CHATML_TEMPLATE);
  return (content) =>
    template.render({
      messages: [{ role: 'user', content }],
      add_generation_prompt: true,
      bos_token: tokenizer.specialTokens?.bos ?? '',
      eos_token: tokenizer.specialTokens?.eos ?? '',
    });
}

/** A one-turn chat in DeepSeek-V4's encoding, thinking mode (`--use-chat-template --dsv4`), as the reference frames it. */
export const dsv4ChatPrompt = (content: string): string =>
  encodeDsv4Messages([{ role: 'user', content }], { thinkingMode: 'thinking' });

export const DSV4_WITHOUT_CHAT_TEMPLATE =
  '--dsv4 requires --use-chat-template to be set: add --use-chat-template (--dsv4 picks the DeepSeek-V4 encoder as the chat template; it does not turn templating on)';

/** How prompts are framed before they are counted and sent: a chat template, or not at all. */
export interface PromptFraming {
  useChatTemplate: boolean;
  /** With `useChatTemplate`: DeepSeek-V4's encoder instead of the tokenizer's template (the reference's `--dsv4`). */
  dsv4?: boolean | undefined;
}

function promptTemplate(tokenizer: Tokenizer, o: PromptFraming): ((content: string) => string) | undefined {
  if (o.dsv4 && !o.useChatTemplate) throw new DatasetError(DSV4_WITHOUT_CHAT_TEMPLATE);
  if (!o.useChatTemplate) return undefined;
  return o.dsv4 ? dsv4ChatPrompt : chatTemplate(tokenizer);
}

export interface RandomDatasetOptions extends PromptFraming {
  numPrompts: number;
  inputLen: number;
  outputLen: number;
  /** Lengths are uniform in [floor(L · rangeRatio), L]. */
  rangeRatio: number;
  /** Random tokens shared by every prompt, before its own. */
  prefixLen: number;
  seed: number;
}

/**
 * The reference's random dataset (`sample_random_requests`): per prompt, an input and an output
 * length uniform in [floor(L·r), L]; token ids `(offset + i + j) mod vocab` from a seeded offset,
 * after a shared random prefix; decoded, re-encoded, and padded with random ids or truncated
 * until the text is exactly the target length (up to 10 tries). With a chat template the
 * template's own tokens are taken off the target first, as the reference does.
 */
export async function randomDataset(tokenizer: Tokenizer, o: RandomDatasetOptions): Promise<BenchRequest[]> {
  if (o.rangeRatio < 0 || o.rangeRatio > 1) throw new DatasetError(`--random-range-ratio must be in [0, 1], got ${o.rangeRatio}`);
  if (o.inputLen < 1 || o.outputLen < 1) throw new DatasetError('--random-input-len and --random-output-len must be at least 1');
  const vocab = tokenizer.vocabSize;
  const rng = new Rng(o.seed);
  const render = promptTemplate(tokenizer, o);
  const overhead = render ? (await tokenizer.encode(render('a'))).length - 1 : 0;
  const target = Math.max(1, o.inputLen - overhead);
  const lengths = (len: number): number[] => {
    const lo = Math.floor(len * o.rangeRatio);
    return Array.from({ length: o.numPrompts }, () => lo + rng.int(len - lo + 1));
  };
  const inputLens = lengths(target).map((l) => Math.max(1, l));
  const outputLens = lengths(o.outputLen).map((l) => Math.max(1, l));
  const offsets = Array.from({ length: o.numPrompts }, () => rng.int(vocab));
  const prefix = Array.from({ length: o.prefixLen }, () => rng.int(vocab));
  const out: BenchRequest[] = [];
  for (let i = 0; i < o.numPrompts; i++) {
    const want = o.prefixLen + inputLens[i]!;
    let ids = [...prefix, ...Array.from({ length: inputLens[i]! }, (_, j) => (offsets[i]! + i + j) % vocab)];
    let prompt = await tokenizer.decode(ids);
    for (let attempt = 0; attempt < 10; attempt++) {
      const encoded = await tokenizer.encode(prompt);
      if (encoded.length === want) break;
      ids =
        encoded.length > want
          ? encoded.slice(0, want)
          : [...encoded, ...Array.from({ length: want - encoded.length }, () => rng.int(vocab))];
      prompt = await tokenizer.decode(ids);
    }
    if (render) prompt = render(prompt);
    out.push({ prompt, promptLen: (await tokenizer.encode(prompt)).length, outputLen: outputLens[i]! });
  }
  return out;
}

/**
 * Prompts from a JSONL file: each line a JSON string, or an object with `prompt` (or `text`) and
 * optionally `output_len` (`max_tokens`); lines without one get `defaultOutputLen`.
 */
export async function fileDataset(
  path: string,
  tokenizer: Tokenizer,
  defaultOutputLen: number,
  framing: PromptFraming,
): Promise<BenchRequest[]> {
  const render = promptTemplate(tokenizer, framing);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new DatasetError(`${path}: ${(e as Error).message}`);
  }
  const out: BenchRequest[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new DatasetError(`${path}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    const record = typeof value === 'string' ? { prompt: value } : (value as Record<string, unknown>);
    const prompt = record.prompt ?? record.text;
    if (typeof prompt !== 'string' || prompt === '')
      throw new DatasetError(`${path}:${i + 1}: expected a string or {"prompt": "...", "output_len": n}`);
    const outputLen = record.output_len ?? record.max_tokens ?? defaultOutputLen;
    if (!Number.isInteger(outputLen) || (outputLen as number) < 1)
      throw new DatasetError(`${path}:${i + 1}: output_len must be a positive integer`);
    const final = render ? render(prompt) : prompt;
    out.push({ prompt: final, promptLen: (await tokenizer.encode(final)).length, outputLen: outputLen as number });
  }
  if (out.length === 0) throw new DatasetError(`${path}: no prompts`);
  return out;
}
