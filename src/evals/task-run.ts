import { setMaxListeners } from 'node:events';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpConnection, ReusePolicy } from '../bench/http.js';
import { PyRegexLimitError } from '../pycompat/index.js';
import { Rng } from '../util/rng.js';
import type { Doc } from './datasets.js';
import { aggregate, scoreDoc } from './scoring.js';
import type { Aggregate, Filtered } from './scoring.js';
import { TaskFileError } from './task-file.js';
import type { TaskSpec } from './task-file.js';
import { targetText } from './template.js';

/**
 * One lm-eval generate_until task against an OpenAI-compatible server, as InferenceX's
 * `run_lm_eval` runs it (lm-eval's local-chat-completions with --apply_chat_template, few-shot as
 * earlier turns; or local-completions): each document asked `repeats` times, `concurrency`
 * requests in flight, failed requests retried, every response scored by the task's filters and
 * metrics. The payload is lm-eval's: max_tokens, temperature, stop (the task's `until` plus the
 * eos string "</s>", at most 4), seed, and the task's other generation_kwargs; repeat r asks with
 * seed 1234 + r, so that sampled repeats differ on engines that honour a request's seed.
 */

export const EOS = '</s>';
export const FEWSHOT_SEED = 1234;
export const REQUEST_SEED = 1234;

/** The reference's generation budget from the context length: min(16384, ctx > 4096 ? ctx − 4096 : ctx / 2). */
export const maxTokensFor = (contextLength: number): number =>
  Math.min(16384, contextLength > 4096 ? contextLength - 4096 : Math.floor(contextLength / 2));

/**
 * The shots of eval doc `docId`: `n` distinct docs of the few-shot pool drawn with a generator
 * seeded by (seed, docId), so a doc's prompt does not depend on `--limit`, order or resuming
 * (lm-eval draws from one generator in doc order; its exact draws are Python's `random.sample`).
 * When the pool is the eval split itself, the doc is never its own shot.
 */
export function fewshotFor<T>(pool: readonly T[], docId: number, n: number, seed = FEWSHOT_SEED, excludeSelf = false): T[] {
  const rng = new Rng((seed * 1_000_003 + docId) >>> 0);
  const available = pool.length - (excludeSelf && docId < pool.length ? 1 : 0);
  const picked = new Set<number>();
  while (picked.size < Math.min(n, available)) {
    const i = rng.int(pool.length);
    if (!(excludeSelf && i === docId)) picked.add(i);
  }
  return [...picked].map((i) => pool[i]!);
}

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

const text = (task: TaskSpec, doc: Doc): string => {
  const t = task.docToText.render(doc);
  if (typeof t !== 'string') throw new Error(`${task.task}: doc_to_text gave ${JSON.stringify(t)}, not text`);
  return t;
};

/** The prompt of a doc: chat messages (shots as earlier turns) or one completion prompt, as lm-eval's fewshot_context builds them. */
export function promptOf(
  task: TaskSpec,
  doc: Doc,
  shots: readonly Doc[],
  endpoint: 'chat' | 'completions',
): ChatMessage[] | string {
  const description = task.description ? String(task.description.render(doc)) : '';
  if (endpoint === 'chat') {
    return [
      ...(description ? [{ role: 'system' as const, content: description }] : []),
      ...shots.flatMap((s): ChatMessage[] => [
        { role: 'user', content: text(task, s) },
        { role: 'assistant', content: targetText(task.docToTarget.render(s)) },
      ]),
      { role: 'user', content: text(task, doc) },
    ];
  }
  const turns = shots.map(
    (s) => `${text(task, s)}${task.targetDelimiter}${targetText(task.docToTarget.render(s))}${task.fewshotDelimiter}`,
  );
  return `${description}${turns.join('')}${text(task, doc)}`;
}

export interface TaskRunOptions {
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  apiKey?: string | undefined;
  task: TaskSpec;
  /** The eval split's docs (after process_docs). */
  docs: readonly Doc[];
  /** The few-shot pool (after process_docs); empty when the task asks for no shots. */
  fewshot: readonly Doc[];
  /** Whether the few-shot pool is the eval split (a doc is then never its own shot). */
  fewshotIsEval?: boolean;
  /** The first N docs; all when undefined. */
  limit?: number | undefined;
  concurrency: number;
  maxTokens: number;
  /** Overrides of the task's sampling settings. */
  temperature?: number | undefined;
  topP?: number | undefined;
  numFewshot?: number | undefined;
  fewshotSeed?: number | undefined;
  timeoutMs: number;
  /** Attempts after the first, for connection errors, timeouts, 429 and 5xx. */
  maxRetries: number;
  /** First backoff; doubled per retry, up to 30 s. */
  backoffMs: number;
  /** Samples already finished (resume): their doc ids are not asked again. */
  done?: ReadonlyMap<number, TaskSample>;
  /** Called with every finished sample, in completion order (the partial samples file). */
  onSample?: (s: TaskSample) => void;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal | undefined;
}

export interface TaskSample {
  doc_id: number;
  doc: Doc;
  target: string;
  /** What was sent: the chat messages, or the completion prompt. */
  prompt: ChatMessage[] | string;
  /** One response per repeat ('' for a request that failed). */
  resps: string[];
  /** Filter name → what it extracted. */
  filtered_resps: Record<string, Filtered>;
  /** `<metric>,<filter>` → the doc's score. */
  scores: Record<string, number>;
  /** Why a request failed after its retries (its response counts as incorrect); absent when none did. */
  error?: string;
  /** Requests of this doc that failed. */
  failed: number;
  attempts: number;
}

export interface TaskResult {
  task: TaskSpec;
  samples: TaskSample[];
  /** `<metric>,<filter>` → mean and stderr over the docs. */
  metrics: Record<string, Aggregate>;
  requests: number;
  /** Failed requests by reason. */
  failures: Record<string, number>;
  failed: number;
  /** More than 5% of requests failed, or a doc could not be scored (`unscored`): the score says nothing, whatever it is. */
  valid: boolean;
  /** Why a doc could not be scored (a task regex ran past its time limit); the task stopped there. */
  unscored?: string;
  interrupted: boolean;
  durationS: number;
}

export const MAX_FAILURE_RATE = 0.05;

/**
 * Requests one task may make (documents asked × repeats): every response is kept until the
 * results are written. Real runs stay far below (MMLU: 14,042; GSM8K sampled 64 times: 84,416).
 */
export const MAX_TASK_REQUESTS = 1_000_000;

/**
 * The largest reply body read: 64 MiB. A reply of max_gen_toks (at most 2^20 tokens, a few bytes
 * each) with its reasoning stays far below; a server that sends more is failed rather than
 * followed until memory runs out.
 */
export const MAX_EVAL_REPLY_BYTES = 64 << 20;

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
    let bytes = 0;
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
      onBody: (piece) => {
        bytes += piece.length;
        if (bytes <= MAX_EVAL_REPLY_BYTES) return void pieces.push(piece);
        settle();
        conn.close();
        reject(new RequestFailure(`the reply is larger than ${MAX_EVAL_REPLY_BYTES.toLocaleString('en-US')} bytes`, false));
      },
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

/** A reply value's JSON type, for counting failed replies by kind (not by value). */
const jsonType = (v: unknown): string =>
  v === undefined
    ? 'missing'
    : v === null
      ? 'null'
      : Array.isArray(v)
        ? 'a list'
        : `${/^[aeiou]/.test(typeof v) ? 'an' : 'a'} ${typeof v}`;

/**
 * The generated text of an OpenAI-style response (a reasoning model's reasoning when content is
 * empty or null, as InferenceX's lm-eval patch reads it). A reply with no text at all (content
 * null or missing without reasoning, or a number, a list…) is a failed request, not an empty
 * answer: the reference would score it as "" (or crash on a number).
 */
function responseText(json: unknown, chat: boolean): string {
  const choice = (json as { choices?: Record<string, unknown>[] } | null)?.choices?.[0];
  if (typeof choice !== 'object' || choice === null) throw new RequestFailure('the response has no choices', false);
  if (!chat) {
    if (typeof choice.text !== 'string')
      throw new RequestFailure(`the completion's text is not a string (${jsonType(choice.text)})`, false);
    return choice.text;
  }
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const content = message.content;
  if (typeof content === 'string' && content !== '') return content;
  const reasoning = message.reasoning_content;
  const empty = content === '' || content === null || content === undefined || (Array.isArray(content) && content.length === 0);
  if (empty && typeof reasoning === 'string' && reasoning !== '') return reasoning;
  if (content === '') return '';
  throw new RequestFailure(`the reply's content is not text (${jsonType(content)})`, false);
}

/** A failure's kind, for counting: `HTTP 503`, `ETIMEDOUT`, or the start of the message. */
const reasonOf = (m: string): string => {
  const http = /^HTTP (\d+)/.exec(m);
  if (http) return `HTTP ${http[1]}`;
  const code = /^([A-Z_]+):/.exec(m);
  return code ? code[1]! : m.slice(0, 60);
};

/**
 * Once a signal that came while the thread was blocked (a regex walk, up to PY_REGEX_TIME_LIMIT_MS)
 * has been handled: its handler runs in the event loop's poll phase, which lies between two check
 * phases (setImmediate).
 */
async function signalsHandled(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

export async function runTask(o: TaskRunOptions): Promise<TaskResult> {
  const started = performance.now();
  const { task } = o;
  const url = new URL(o.baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  const path = `${prefix}/v1/${o.endpoint === 'chat' ? 'chat/completions' : 'completions'}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  const docs = o.docs.slice(0, o.limit ?? o.docs.length);
  const samples = new Map<number, TaskSample>(o.done);
  const todo = docs.map((_, i) => i).filter((i) => !samples.has(i));
  const repeats = task.repeats;
  if (docs.length * repeats > MAX_TASK_REQUESTS)
    throw new TaskFileError(
      `${task.file}: repeats: ${repeats} × ${docs.length} documents is more than ${MAX_TASK_REQUESTS.toLocaleString('en-US')} requests`,
      { hint: 'lower repeats, or ask fewer documents with --limit' },
    );
  // Work items are (doc, repeat); a doc's sample is scored when its last response is in.
  const items = todo.flatMap((id) => Array.from({ length: repeats }, (_, r) => ({ id, r })));
  const pending = new Map<
    number,
    { prompt: ChatMessage[] | string; resps: string[]; errors: string[]; attempts: number; left: number }
  >();
  let next = 0;
  let unscored: string | undefined;
  // A doc that cannot be scored stops the task: its requests in flight are cut off as by an interrupt.
  const unscorable = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, unscorable.signal]) : unscorable.signal;
  // Every in-flight request listens for the interrupt.
  setMaxListeners(Math.max(10, 2 * o.concurrency + 10), signal);
  const stop = [...task.generation.until, ...(task.generation.until.includes(EOS) ? [] : [EOS])].slice(0, 4);
  const numFewshot = o.numFewshot ?? task.numFewshot;

  const promptFor = (id: number): ChatMessage[] | string => {
    const shots = numFewshot > 0 ? fewshotFor(o.fewshot, id, numFewshot, o.fewshotSeed ?? FEWSHOT_SEED, o.fewshotIsEval) : [];
    return promptOf(task, docs[id]!, shots, o.endpoint);
  };

  const ask = async (
    conn: HttpConnection,
    prompt: ChatMessage[] | string,
    r: number,
  ): Promise<{ response: string; error?: string; attempts: number }> => {
    const body = Buffer.from(
      JSON.stringify({
        model: o.model,
        ...(o.endpoint === 'chat' ? { messages: prompt } : { prompt }),
        max_tokens: o.maxTokens,
        temperature: o.temperature ?? task.generation.temperature,
        stop,
        seed: REQUEST_SEED + r,
        ...task.generation.extra,
        top_p: o.topP ?? task.generation.extra.top_p ?? 1,
        stream: false,
      }),
    );
    let attempts = 0;
    let error: string | undefined;
    for (;;) {
      attempts++;
      try {
        const res = await postJson(conn, path, headers, body, signal);
        if (res.status !== 200) {
          const detail = res.text.slice(0, 200).replace(/\s+/g, ' ');
          throw new RequestFailure(`HTTP ${res.status}: ${detail}`, res.status === 429 || res.status >= 500);
        }
        let json: unknown;
        try {
          json = JSON.parse(res.text);
        } catch {
          throw new RequestFailure('the response is not JSON', true);
        }
        return { response: responseText(json, o.endpoint === 'chat'), attempts };
      } catch (e) {
        error = (e as Error).message;
        const retryable = !(e instanceof RequestFailure) || e.retryable;
        if (!retryable || attempts > o.maxRetries || signal.aborted) break;
        await sleep(Math.min(30_000, o.backoffMs * 2 ** (attempts - 1)), undefined, { signal }).catch(() => {});
        if (signal.aborted) break;
      }
    }
    return { response: '', error, attempts };
  };

  const finish = (id: number): void => {
    const p = pending.get(id)!;
    pending.delete(id);
    if (unscored !== undefined) return; // the task stopped at a doc it could not score
    const doc = docs[id]!;
    const target = task.docToTarget.render(doc);
    let scored: ReturnType<typeof scoreDoc>;
    try {
      scored = scoreDoc(task, p.resps, target);
    } catch (e) {
      if (!(e instanceof PyRegexLimitError)) throw e;
      unscored ??= `task ${task.task} (${task.file}), doc ${id}: ${e.message}: ${e.hint}`;
      unscorable.abort();
      return;
    }
    const { filtered, scores } = scored;
    const sample: TaskSample = {
      doc_id: id,
      doc,
      target: targetText(target),
      prompt: p.prompt,
      resps: p.resps,
      filtered_resps: filtered,
      scores,
      ...(p.errors.length > 0 ? { error: p.errors[0] } : {}),
      failed: p.errors.length,
      attempts: p.attempts,
    };
    samples.set(id, sample);
    o.onSample?.(sample);
    o.onProgress?.(samples.size, docs.length);
  };

  const reuse = new ReusePolicy();
  const worker = async (): Promise<void> => {
    const conn = new HttpConnection(url, o.timeoutMs, Infinity, reuse);
    try {
      while (next < items.length && !signal.aborted) {
        const { id, r } = items[next++]!;
        let p = pending.get(id);
        if (!p) {
          p = { prompt: promptFor(id), resps: new Array<string>(repeats).fill(''), errors: [], attempts: 0, left: repeats };
          pending.set(id, p);
        }
        const answer = await ask(conn, p.prompt, r);
        if (signal.aborted && answer.error !== undefined) return; // cut off by the interrupt: asked again on resume
        p.resps[r] = answer.response;
        p.attempts += answer.attempts;
        if (answer.error !== undefined) p.errors.push(answer.error);
        if (--p.left === 0) finish(id);
      }
    } finally {
      conn.close();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, items.length)) }, worker));
  if (unscored !== undefined) await signalsHandled();

  const all = [...samples.values()].sort((a, b) => a.doc_id - b.doc_id);
  const failures: Record<string, number> = {};
  let failed = 0;
  for (const s of all) {
    if (s.error === undefined) continue;
    failed += s.failed;
    const reason = reasonOf(s.error);
    failures[reason] = (failures[reason] ?? 0) + s.failed;
  }
  const metrics: Record<string, Aggregate> = {};
  for (const f of task.filters)
    for (const m of task.metrics) {
      const key = `${m.metric},${f.name}`;
      metrics[key] = aggregate(all.map((s) => s.scores[key]!));
    }
  const requests = all.length * repeats;
  return {
    task,
    samples: all,
    metrics,
    requests,
    failures,
    failed,
    valid: all.length > 0 && failed <= MAX_FAILURE_RATE * requests && unscored === undefined,
    ...(unscored === undefined ? {} : { unscored }),
    // An interrupt wins over the verdict: the doc is asked again on resume.
    interrupted: all.length < docs.length && (unscored === undefined || o.signal?.aborted === true),
    durationS: (performance.now() - started) / 1000,
  };
}

/** Finished samples of an earlier, interrupted run (the partial samples JSONL); failed ones are asked again. */
export function readSamples(file: string): Map<number, TaskSample> {
  const done = new Map<number, TaskSample>();
  if (!existsSync(file)) return done;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const s = JSON.parse(line) as TaskSample;
      // An older Frontier's GSM8K samples (no resps) are asked again.
      if (s.error === undefined && Array.isArray(s.resps)) done.set(s.doc_id, s);
    } catch {
      // a line cut short by the interrupt: that doc is asked again
    }
  }
  return done;
}

export const appendSample = (file: string, s: TaskSample): void => appendFileSync(file, `${JSON.stringify(s)}\n`);
