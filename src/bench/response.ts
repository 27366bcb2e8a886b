/**
 * What one streamed response says, event by event: when tokens arrived, how many, the text,
 * the server's usage, and why it failed if it did. Handles the shapes servers really send:
 * usage in the finish chunk (llama.cpp completions) or in a separate `choices: []` chunk (vLLM,
 * OpenAI chat), per-chunk usage (`continuous_usage_stats`), role-only and empty chunks (not
 * tokens), chunks that carry several tokens, error events mid-stream, `[DONE]`.
 */

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** Prompt tokens served from the prefix cache, where the server says (vLLM, SGLang, OpenAI). */
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

export interface ResponseRecord {
  /** The response's `id` (its first chunk's), to match it with server-side records. */
  id: string | undefined;
  /** Time to the first chunk carrying output text (ms). */
  ttft: number;
  /** Gaps between token chunks (ms); a chunk of n tokens (known from per-chunk usage) adds n equal gaps. */
  itl: number[];
  /** Time to the last chunk (ms). */
  latency: number;
  text: string;
  /** Chunks that carried output text. */
  tokenChunks: number;
  usage: Usage | undefined;
  finishReason: string | undefined;
  /** Why the request failed, when it did: a kind, the same for every request that failed this way. */
  error: string | undefined;
  /** What this request's failure looked like (an example for its kind), when that tells more. */
  errorDetail: string | undefined;
  done: boolean;
}

/** The start of every reason for usage the server got wrong: a run with any is invalid. */
export const INVALID_USAGE = 'invalid usage';

type UsageProblem = { reason: string; detail: string } | undefined;

/** `usage[key]` when present: a non-negative integer, else the problem. */
function countProblem(usage: Record<string, unknown>, key: string): UsageProblem {
  const v = usage[key];
  if (v === undefined || v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return undefined;
  return { reason: `${INVALID_USAGE}: ${key} is not a non-negative integer`, detail: `${key}: ${JSON.stringify(v)}` };
}

/**
 * The server's usage, checked: each count present must be a non-negative integer,
 * completion_tokens at most the max_tokens asked for, and the cached prompt tokens
 * (`prompt_tokens_details.cached_tokens`) at most the prompt's. Returns the problem, if any.
 */
export function usageProblem(usage: Record<string, unknown>, maxTokens: number): UsageProblem {
  const problem = countProblem(usage, 'completion_tokens') ?? countProblem(usage, 'prompt_tokens');
  if (problem) return problem;
  const n = usage.completion_tokens as number | undefined | null;
  if (typeof n === 'number' && n > maxTokens)
    return { reason: `${INVALID_USAGE}: completion_tokens exceeds the max_tokens asked for`, detail: `${n} > ${maxTokens}` };
  const details = usage.prompt_tokens_details;
  if (details === undefined || details === null) return undefined;
  if (typeof details !== 'object' || Array.isArray(details))
    return { reason: `${INVALID_USAGE}: prompt_tokens_details is not an object`, detail: JSON.stringify(details).slice(0, 80) };
  const cached = countProblem(details as Record<string, unknown>, 'cached_tokens');
  if (cached) return cached;
  const c = (details as Usage['prompt_tokens_details'])?.cached_tokens;
  const prompt = usage.prompt_tokens;
  if (typeof c === 'number' && typeof prompt === 'number' && c > prompt)
    return { reason: `${INVALID_USAGE}: cached_tokens exceeds prompt_tokens`, detail: `${c} > ${prompt}` };
  return undefined;
}

export class ResponseTracker {
  private first = -1;
  private last = -1;
  private readonly itl: number[] = [];
  private text = '';
  private tokenChunks = 0;
  private usage: Usage | undefined;
  private finishReason: string | undefined;
  private error: string | undefined;
  private errorDetail: string | undefined;
  private done = false;
  private id: string | undefined;
  private continuous = false;
  /** The server sent usage that failed its checks: no later usage of this response is believed. */
  private untrusted = false;

  /** `maxTokens`: the max_tokens asked for (no usage may count more). */
  constructor(
    readonly sentAt: number,
    private readonly maxTokens = Infinity,
  ) {}

  /** One event's data, received at `now` (ms, the clock of `sentAt`). */
  onData(data: string, now: number): void {
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    if (this.id === undefined) {
      const at = data.indexOf('"id":"');
      if (at >= 0) this.id = data.slice(at + 6, data.indexOf('"', at + 6));
    }
    const fast = scanChunk(data);
    if (fast) {
      this.onChoice(fast.text, fast.finish, undefined, now);
      return;
    }
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data) as Record<string, unknown>;
    } catch {
      this.fail('malformed event (not JSON)', data.slice(0, 80));
      return;
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      this.fail('malformed event (not a JSON object)', data.slice(0, 80));
      return;
    }
    if (event.error !== undefined && event.error !== null) {
      const e = event.error as { message?: unknown; code?: unknown } | string;
      this.fail(
        `server error${typeof e === 'object' && e.code !== undefined ? ` ${String(e.code)}` : ''}: ${typeof e === 'object' ? String(e.message ?? JSON.stringify(e)) : e}`,
      );
      return;
    }
    let usage: Usage | undefined;
    if (event.usage !== undefined && event.usage !== null) {
      const problem =
        typeof event.usage === 'object' ? usageProblem(event.usage as Record<string, unknown>, this.maxTokens) : undefined;
      if (typeof event.usage !== 'object') return this.distrust(`${INVALID_USAGE}: not an object`, data.slice(0, 80));
      if (problem) return this.distrust(problem.reason, problem.detail);
      usage = event.usage as Usage;
    }
    const choices = event.choices;
    if (choices !== undefined && choices !== null && !Array.isArray(choices)) {
      this.fail('malformed event (choices is not an array)', data.slice(0, 80));
      return;
    }
    const choice = (choices as unknown[] | undefined)?.[0] as Record<string, unknown> | undefined;
    if (typeof choice === 'object' && choice !== null) {
      const delta = choice.delta as Record<string, unknown> | undefined;
      // Reasoning models stream their thinking as reasoning_content (vLLM) or reasoning: output tokens too.
      const text: unknown =
        typeof delta === 'object' && delta !== null ? delta.content || delta.reasoning_content || delta.reasoning : choice.text;
      const finish = choice.finish_reason;
      if ((text !== undefined && text !== null && typeof text !== 'string') || (finish != null && typeof finish !== 'string')) {
        this.fail('malformed event (text or finish_reason is not a string)', data.slice(0, 80));
        return;
      }
      this.onChoice(text ?? '', finish ?? undefined, usage, now);
    } else if (usage && !this.untrusted) this.keep(usage);
  }

  /**
   * A response's usage may come in several chunks (per-chunk usage, then a final one): each later
   * one may only add to what came before. Output that goes down, or a prompt that changes, is a
   * server contradicting itself: the request fails, and none of its usage is believed.
   */
  private keep(usage: Usage): void {
    const before = this.usage;
    if (before && (usage.completion_tokens ?? 0) < (before.completion_tokens ?? 0))
      return this.distrust(
        `${INVALID_USAGE}: completion_tokens went down during the stream`,
        `${before.completion_tokens} → ${usage.completion_tokens}`,
      );
    if (before?.prompt_tokens != null && usage.prompt_tokens != null && usage.prompt_tokens !== before.prompt_tokens)
      return this.distrust(
        `${INVALID_USAGE}: prompt_tokens changed during the stream`,
        `${before.prompt_tokens} → ${usage.prompt_tokens}`,
      );
    this.usage = usage;
  }

  private onChoice(text: string, finish: string | undefined, usage: Usage | undefined, now: number): void {
    if (finish) this.finishReason = finish;
    // With per-chunk usage (continuous usage stats, seen from the first token chunk on) the number
    // of tokens a chunk carries is known; otherwise a chunk with text is one token, and usage that
    // comes with a final chunk (llama.cpp) only reports the total.
    let tokens = text === '' ? 0 : 1;
    if (typeof usage?.completion_tokens === 'number' && !this.untrusted) {
      if (this.tokenChunks === 0 && text !== '') this.continuous = true;
      const before = this.usage?.completion_tokens ?? 0;
      this.keep(usage);
      if (this.continuous && !this.untrusted) tokens = usage.completion_tokens - before;
    }
    if (tokens <= 0 && text === '') return;
    this.text += text;
    this.tokenChunks++;
    if (this.first < 0) this.first = now;
    else {
      const gap = now - this.last;
      const n = Math.max(1, tokens);
      for (let i = 0; i < n; i++) this.itl.push(gap / n);
    }
    this.last = now;
  }

  /** Usage that failed its checks fails the request, and no usage of this response is believed or counted after it. */
  private distrust(reason: string, detail: string): void {
    this.fail(reason, detail);
    this.usage = undefined;
    this.untrusted = true;
  }

  /** Fail the request with `reason` (its kind) and `detail` (what this one looked like); the first failure stands. */
  fail(reason: string, detail?: string): void {
    if (this.error !== undefined) return;
    this.error = reason;
    this.errorDetail = detail;
  }

  get sawDone(): boolean {
    return this.done;
  }

  finish(): ResponseRecord {
    const ok = this.first >= 0;
    return {
      id: this.id,
      ttft: ok ? this.first - this.sentAt : 0,
      itl: this.itl,
      latency: ok ? this.last - this.sentAt : 0,
      text: this.text,
      tokenChunks: this.tokenChunks,
      usage: this.usage,
      finishReason: this.finishReason,
      error: this.error,
      errorDetail: this.errorDetail,
      done: this.done,
    };
  }
}

/**
 * The hot path: a token chunk as vLLM, SGLang, llama.cpp and `frontier sim` write it, read
 * without JSON.parse, with a handful of short forward scans. Anything it is not sure of (usage
 * objects, reasoning fields, escapes it cannot undo, other shapes) returns undefined and goes
 * through JSON.parse.
 */
export function scanChunk(data: string): { text: string; finish: string | undefined } | undefined {
  const choices = data.indexOf('"choices":[{');
  if (choices < 0) return undefined;
  let key = data.indexOf('"text":', choices);
  if (key < 0) {
    // Chat: reasoning models stream reasoning_content / reasoning deltas; leave those to JSON.parse.
    if (data.indexOf('reasoning', choices) >= 0) return undefined;
    key = data.indexOf('"content":', choices);
    if (key < 0) return undefined;
    key += 10;
  } else key += 7;
  let text: string;
  let after: number;
  if (data.startsWith('null', key)) {
    text = '';
    after = key + 4;
  } else {
    if (data.charCodeAt(key) !== 34 /* " */) return undefined;
    let end = key + 1;
    for (;;) {
      end = data.indexOf('"', end);
      if (end < 0) return undefined;
      let backslashes = 0;
      for (let i = end - 1; data.charCodeAt(i) === 92 /* \ */; i--) backslashes++;
      if (backslashes % 2 === 0) break;
      end++;
    }
    const raw = data.slice(key + 1, end);
    if (raw.includes('\\')) {
      try {
        text = JSON.parse(`"${raw}"`) as string;
      } catch {
        return undefined; // an escape JSON does not know: JSON.parse of the whole event says what is wrong
      }
    } else text = raw;
    after = end + 1;
  }
  const reason = data.indexOf('"finish_reason":', after);
  let finish: string | undefined;
  if (reason >= 0 && data.charCodeAt(reason + 16) === 34) finish = data.slice(reason + 17, data.indexOf('"', reason + 17));
  // A usage object (in a finish chunk, or in every chunk with continuous usage stats), or anything
  // else that is not null, needs JSON.parse (and its checks).
  const usage = data.indexOf('"usage":', reason >= 0 ? reason : after);
  if (usage >= 0 && !data.startsWith('null', usage + 8)) return undefined;
  return { text, finish };
}
