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
  /** Why the request failed, when it did. */
  error: string | undefined;
  done: boolean;
}

export class ResponseTracker {
  private first = -1;
  private last = -1;
  private lastTokens = 0;
  private readonly itl: number[] = [];
  private text = '';
  private tokenChunks = 0;
  private usage: Usage | undefined;
  private finishReason: string | undefined;
  private error: string | undefined;
  private done = false;
  private id: string | undefined;
  private continuous = false;

  constructor(readonly sentAt: number) {}

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
      this.fail(`malformed event: ${data.slice(0, 80)}`);
      return;
    }
    if (event.error !== undefined && event.error !== null) {
      const e = event.error as { message?: unknown; code?: unknown } | string;
      this.fail(
        `server error${typeof e === 'object' && e.code !== undefined ? ` ${String(e.code)}` : ''}: ${typeof e === 'object' ? String(e.message ?? JSON.stringify(e)) : e}`,
      );
      return;
    }
    const usage = event.usage as Usage | null | undefined;
    const choices = event.choices as Record<string, unknown>[] | undefined;
    const choice = choices?.[0];
    if (choice) {
      const delta = choice.delta as Record<string, unknown> | undefined;
      // Reasoning models stream their thinking as reasoning_content (vLLM) or reasoning: output tokens too.
      const text = (delta ? delta.content || delta.reasoning_content || delta.reasoning : choice.text) as
        string | null | undefined;
      this.onChoice(text ?? '', (choice.finish_reason as string | null | undefined) ?? undefined, usage ?? undefined, now);
    } else if (usage) this.usage = usage;
  }

  private onChoice(text: string, finish: string | undefined, usage: Usage | undefined, now: number): void {
    if (finish) this.finishReason = finish;
    // With per-chunk usage (continuous usage stats, seen from the first token chunk on) the number
    // of tokens a chunk carries is known; otherwise a chunk with text is one token, and usage that
    // comes with a final chunk (llama.cpp) only reports the total.
    let tokens = text === '' ? 0 : 1;
    if (usage?.completion_tokens !== undefined) {
      if (this.tokenChunks === 0 && text !== '') this.continuous = true;
      if (this.continuous) tokens = usage.completion_tokens - this.lastTokens;
      this.lastTokens = usage.completion_tokens;
      this.usage = usage;
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

  fail(reason: string): void {
    this.error ??= reason;
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
    text = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    after = end + 1;
  }
  const reason = data.indexOf('"finish_reason":', after);
  let finish: string | undefined;
  if (reason >= 0 && data.charCodeAt(reason + 16) === 34) finish = data.slice(reason + 17, data.indexOf('"', reason + 17));
  // A usage object (in a finish chunk, or in every chunk with continuous usage stats) needs JSON.parse.
  const usage = data.indexOf('"usage":', reason >= 0 ? reason : after);
  if (usage >= 0 && data.charCodeAt(usage + 8) === 123 /* { */) return undefined;
  return { text, finish };
}
