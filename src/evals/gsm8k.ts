import { setMaxListeners } from 'node:events';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpConnection, ReusePolicy } from '../bench/http.js';
import { Rng } from '../util/rng.js';
import type { Gsm8kDoc } from './dataset.js';
import { aggregate, scoreResponse } from './score.js';

/**
 * The GSM8K task as InferenceX runs it (utils/evals/gsm8k.yaml: lm-eval's gsm8k v3.0 with a
 * prompt that asks for `#### [number]`): 5-shot from the train split, greedy, stop strings
 * `</s>` and `<|im_end|>`, scored by the strict-match and flexible-extract filters. Chat
 * completions send the shots as earlier turns (lm-eval's `--apply_chat_template`, few-shot as
 * multi-turn); completions send them as one prompt, `target_delimiter` " " and
 * `fewshot_delimiter` "\n\n".
 */

export const TASK = 'gsm8k';
export const UNTIL = ['</s>', '<|im_end|>'];
export const NUM_FEWSHOT = 5;
export const FEWSHOT_SEED = 1234;

export const docToText = (d: Gsm8kDoc): string =>
  `Question: ${d.question}\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:`;

/** The reference's generation budget from the context length: min(16384, ctx > 4096 ? ctx − 4096 : ctx / 2). */
export const maxTokensFor = (contextLength: number): number =>
  Math.min(16384, contextLength > 4096 ? contextLength - 4096 : Math.floor(contextLength / 2));

/**
 * The shots of test doc `docId`: `n` distinct train docs drawn with a generator seeded by
 * (seed, docId), so a doc's prompt does not depend on `--limit`, order or resuming (lm-eval
 * draws from one generator in doc order; its exact draws are Python's `random.sample`).
 */
export function fewshotFor(train: readonly Gsm8kDoc[], docId: number, n = NUM_FEWSHOT, seed = FEWSHOT_SEED): Gsm8kDoc[] {
  const rng = new Rng((seed * 1_000_003 + docId) >>> 0);
  const picked = new Set<number>();
  while (picked.size < Math.min(n, train.length)) picked.add(rng.int(train.length));
  return [...picked].map((i) => train[i]!);
}

export type ChatMessage = { role: 'user' | 'assistant'; content: string };

export function chatMessages(doc: Gsm8kDoc, shots: readonly Gsm8kDoc[]): ChatMessage[] {
  return [
    ...shots.flatMap((s): ChatMessage[] => [
      { role: 'user', content: docToText(s) },
      { role: 'assistant', content: s.answer },
    ]),
    { role: 'user', content: docToText(doc) },
  ];
}

export const completionPrompt = (doc: Gsm8kDoc, shots: readonly Gsm8kDoc[]): string =>
  [...shots.map((s) => `${docToText(s)} ${s.answer}`), docToText(doc)].join('\n\n');

export interface Gsm8kOptions {
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  apiKey?: string | undefined;
  docs: readonly Gsm8kDoc[];
  train: readonly Gsm8kDoc[];
  /** The first N test docs; all when undefined. */
  limit?: number | undefined;
  concurrency: number;
  maxTokens: number;
  numFewshot?: number;
  fewshotSeed?: number;
  timeoutMs: number;
  /** Attempts after the first, for connection errors, timeouts, 429 and 5xx. */
  maxRetries: number;
  /** First backoff; doubled per retry, up to 30 s. */
  backoffMs: number;
  /** Samples already finished (resume): their doc ids are not asked again. */
  done?: ReadonlyMap<number, Sample>;
  /** Called with every finished sample, in completion order (the partial samples file). */
  onSample?: (s: Sample) => void;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface Sample {
  doc_id: number;
  doc: Gsm8kDoc;
  target: string;
  /** What was sent: the chat messages, or the completion prompt. */
  prompt: ChatMessage[] | string;
  /** The final response (empty when the request failed). */
  response: string;
  strict_extracted: string;
  flexible_extracted: string;
  strict_match: number;
  flexible_extract: number;
  /** Why the request failed after its retries (counted as incorrect); absent when it did not. */
  error?: string;
  attempts: number;
}

export interface Gsm8kResult {
  samples: Sample[];
  strict: { mean: number; stderr: number };
  flexible: { mean: number; stderr: number };
  /** Failed requests by reason. */
  failures: Record<string, number>;
  failed: number;
  /** More than 5% of requests failed: the score says nothing, whatever it is. */
  valid: boolean;
  interrupted: boolean;
  durationS: number;
}

export const MAX_FAILURE_RATE = 0.05;

class RequestFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** One JSON POST on a persistent connection; an abort closes the connection and rejects. */
function postJson(
  conn: HttpConnection,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  signal: AbortSignal | undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const pieces: Buffer[] = [];
    const onAbort = (): void => {
      conn.close();
      reject(new RequestFailure('interrupted', false));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => signal?.removeEventListener('abort', onAbort);
    conn.request('POST', path, headers, body, {
      onSent: () => {},
      onStart: (s) => (status = s),
      onBody: (piece) => pieces.push(piece),
      onEnd: () => {
        settle();
        resolve({ status, text: Buffer.concat(pieces).toString('utf8') });
      },
      onError: (e) => {
        settle();
        reject(new RequestFailure(e.code ? `${e.code}: ${e.message}` : e.message, true));
      },
    });
  });
}

/** The generated text of an OpenAI-style response (a reasoning model's reasoning when content is empty, as InferenceX's lm-eval patch reads it). */
function responseText(json: unknown, chat: boolean): string {
  const choice = (json as { choices?: Record<string, unknown>[] }).choices?.[0];
  if (!choice) throw new RequestFailure('the response has no choices', false);
  if (!chat) return typeof choice.text === 'string' ? choice.text : '';
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const content = message.content;
  if (typeof content === 'string' && content !== '') return content;
  return typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
}

/** A failure's kind, for counting: `HTTP 503`, `ETIMEDOUT`, or the start of the message. */
const reasonOf = (m: string): string => {
  const http = /^HTTP (\d+)/.exec(m);
  if (http) return `HTTP ${http[1]}`;
  const code = /^([A-Z_]+):/.exec(m);
  return code ? code[1]! : m.slice(0, 60);
};

export async function runGsm8k(o: Gsm8kOptions): Promise<Gsm8kResult> {
  const started = performance.now();
  const url = new URL(o.baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  const path = `${prefix}/v1/${o.endpoint === 'chat' ? 'chat/completions' : 'completions'}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  const docs = o.docs.slice(0, o.limit ?? o.docs.length);
  const samples = new Map<number, Sample>(o.done);
  const todo = docs.map((_, i) => i).filter((i) => !samples.has(i));
  let next = 0;
  // Every in-flight request listens for the interrupt.
  if (o.signal) setMaxListeners(Math.max(10, 2 * o.concurrency + 10), o.signal);

  const ask = async (conn: HttpConnection, id: number): Promise<Sample> => {
    const doc = docs[id]!;
    const shots = fewshotFor(o.train, id, o.numFewshot ?? NUM_FEWSHOT, o.fewshotSeed ?? FEWSHOT_SEED);
    const prompt = o.endpoint === 'chat' ? chatMessages(doc, shots) : completionPrompt(doc, shots);
    const body = Buffer.from(
      JSON.stringify({
        model: o.model,
        ...(o.endpoint === 'chat' ? { messages: prompt } : { prompt }),
        max_tokens: o.maxTokens,
        temperature: 0,
        top_p: 1,
        stop: UNTIL,
        stream: false,
      }),
    );
    let attempts = 0;
    let error: string | undefined;
    let response = '';
    for (;;) {
      attempts++;
      try {
        const r = await postJson(conn, path, headers, body, o.signal);
        if (r.status !== 200) {
          const detail = r.text.slice(0, 200).replace(/\s+/g, ' ');
          throw new RequestFailure(`HTTP ${r.status}: ${detail}`, r.status === 429 || r.status >= 500);
        }
        let json: unknown;
        try {
          json = JSON.parse(r.text);
        } catch {
          throw new RequestFailure('the response is not JSON', true);
        }
        response = responseText(json, o.endpoint === 'chat');
        error = undefined;
        break;
      } catch (e) {
        error = (e as Error).message;
        const retryable = !(e instanceof RequestFailure) || e.retryable;
        if (!retryable || attempts > o.maxRetries || o.signal?.aborted) break;
        await sleep(Math.min(30_000, o.backoffMs * 2 ** (attempts - 1)), undefined, { signal: o.signal }).catch(() => {});
        if (o.signal?.aborted) break;
      }
    }
    const score = scoreResponse(response, doc.answer);
    return {
      doc_id: id,
      doc,
      target: doc.answer,
      prompt,
      response,
      strict_extracted: score.strict.extracted,
      flexible_extracted: score.flexible.extracted,
      strict_match: score.strict.correct ? 1 : 0,
      flexible_extract: score.flexible.correct ? 1 : 0,
      ...(error === undefined ? {} : { error }),
      attempts,
    };
  };

  const reuse = new ReusePolicy();
  const worker = async (): Promise<void> => {
    const conn = new HttpConnection(url, o.timeoutMs, Infinity, reuse);
    try {
      while (next < todo.length && !o.signal?.aborted) {
        const id = todo[next++]!;
        const sample = await ask(conn, id);
        if (o.signal?.aborted && sample.error !== undefined) return; // cut off by the interrupt: ask again on resume
        samples.set(id, sample);
        o.onSample?.(sample);
        o.onProgress?.(samples.size, docs.length);
      }
    } finally {
      conn.close();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, todo.length)) }, worker));

  const all = [...samples.values()].sort((a, b) => a.doc_id - b.doc_id);
  const failures: Record<string, number> = {};
  let failed = 0;
  for (const s of all) {
    if (s.error === undefined) continue;
    failed++;
    const reason = reasonOf(s.error);
    failures[reason] = (failures[reason] ?? 0) + 1;
  }
  return {
    samples: all,
    strict: aggregate(all.map((s) => s.strict_match)),
    flexible: aggregate(all.map((s) => s.flexible_extract)),
    failures,
    failed,
    valid: all.length > 0 && failed <= MAX_FAILURE_RATE * all.length,
    interrupted: all.length < docs.length,
    durationS: (performance.now() - started) / 1000,
  };
}

/** Finished samples of an earlier, interrupted run (a samples JSONL); failed ones are asked again. */
export function readSamples(file: string): Map<number, Sample> {
  const done = new Map<number, Sample>();
  if (!existsSync(file)) return done;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const s = JSON.parse(line) as Sample;
      if (s.error === undefined) done.set(s.doc_id, s);
    } catch {
      // a line cut short by the interrupt: that doc is asked again
    }
  }
  return done;
}

export const appendSample = (file: string, s: Sample): void => appendFileSync(file, `${JSON.stringify(s)}\n`);
