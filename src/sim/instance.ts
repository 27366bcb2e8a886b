import type { EngineSpec, StepLoad } from './perf.js';
import { memory, sequenceKvBytes, stepTime, verifyTokens } from './perf.js';

/**
 * One engine instance with a continuous-batching scheduler, in virtual time (ms). Like vLLM's
 * v1 scheduler: each step first serves the running sequences (decodes, then unfinished prefill
 * chunks), then admits waiting ones while `maxNumSeqs`, the token budget `maxNumBatchedTokens`
 * (chunked prefill) and the paged KV cache allow. When the cache cannot hold a running
 * sequence's next tokens, the most recently admitted sequence is preempted: its KV is freed and
 * it is recomputed later. Pure: no I/O, no clock.
 */

export interface SchedulerLimits {
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  /** Tokens per KV block (paged attention). */
  blockSize: number;
}

export const DEFAULT_LIMITS: SchedulerLimits = { maxNumSeqs: 256, maxNumBatchedTokens: 8192, blockSize: 16 };

/** `agg` prefills and decodes; `prefill` hands sequences off after prefill; `decode` receives them prefilled. */
export type InstanceRole = 'agg' | 'prefill' | 'decode';

export interface SimRequest {
  id: number;
  promptTokens: number;
  /** Tokens the request will generate (its max_tokens, or where it would stop). */
  outputTokens: number;
}

/** A sequence inside an instance. */
export interface Sequence {
  request: SimRequest;
  /** Tokens the (next) prefill computes: the prompt, plus what was generated before a preemption. */
  prefillTarget: number;
  prefilled: number;
  generated: number;
  /** KV bytes held (block-rounded). */
  kvBytes: number;
  /** Fractional accepted speculative tokens carried to the next step. */
  credit: number;
  state: 'waiting' | 'running' | 'done';
  cancelled: boolean;
}

/** What a finished step did to one sequence. */
export interface StepOutput {
  sequence: Sequence;
  /** Tokens emitted this step (0 for a prefill chunk that did not finish the prompt). */
  tokens: number;
  /** The prefill finished in this step (a `prefill` instance hands the sequence off now). */
  prefillDone: boolean;
  finished: boolean;
}

interface Planned {
  sequence: Sequence;
  /** Prefill tokens computed, or 0 for a decode. */
  chunk: number;
}

export class Instance {
  readonly waiting: Sequence[] = [];
  readonly running: Sequence[] = [];
  readonly capacityBytes: number;
  kvUsedBytes = 0;
  preemptions = 0;
  promptTokensComputed = 0;
  generatedTokens = 0;
  /** End of the step in flight, or undefined when idle. */
  busyUntil: number | undefined;
  private planned: Planned[] = [];
  private readonly verify: number;
  private readonly acceptance: number;

  constructor(
    readonly spec: EngineSpec,
    readonly limits: SchedulerLimits,
    readonly role: InstanceRole = 'agg',
  ) {
    this.capacityBytes = memory(spec).kvCapacityBytes;
    this.verify = verifyTokens(spec);
    this.acceptance = spec.speculative?.acceptanceLength ?? 1;
  }

  /** KV bytes a sequence needs to hold `tokens` tokens (whole blocks). */
  bytesFor(tokens: number): number {
    const bs = this.limits.blockSize;
    return sequenceKvBytes(this.spec, Math.ceil(tokens / bs) * bs);
  }

  /** Most tokens one sequence can ever hold here. */
  get maxSequenceTokens(): number {
    let lo = 0;
    let hi = 1 << 30;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (this.bytesFor(mid) <= this.capacityBytes) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  enqueue(request: SimRequest, prefilled = false): Sequence {
    const sequence: Sequence = {
      request,
      prefillTarget: request.promptTokens,
      prefilled: prefilled ? request.promptTokens : 0,
      // A sequence handed over after prefill arrives with its first token.
      generated: prefilled ? 1 : 0,
      kvBytes: 0,
      credit: 0,
      state: 'waiting',
      cancelled: false,
    };
    this.waiting.push(sequence);
    return sequence;
  }

  /** Sequences queued or running (for routing). */
  get load(): number {
    return this.waiting.length + this.running.length;
  }

  get hasWork(): boolean {
    return this.waiting.length > 0 || this.running.length > 0;
  }

  /** Drop a sequence (the client went away): freed now, or at the end of the step that holds it. */
  cancel(sequence: Sequence): void {
    sequence.cancelled = true;
    if (sequence.state === 'waiting') {
      this.waiting.splice(this.waiting.indexOf(sequence), 1);
      sequence.state = 'done';
    } else if (sequence.state === 'running' && this.busyUntil === undefined) this.release(sequence);
  }

  private release(sequence: Sequence): void {
    if (sequence.state === 'running') this.running.splice(this.running.indexOf(sequence), 1);
    sequence.state = 'done';
    this.kvUsedBytes -= sequence.kvBytes;
    sequence.kvBytes = 0;
  }

  /** Grow a sequence's KV to `tokens`; false when the cache is full. */
  private grow(sequence: Sequence, tokens: number): boolean {
    const bytes = this.bytesFor(tokens);
    if (bytes <= sequence.kvBytes) return true;
    if (this.kvUsedBytes + bytes - sequence.kvBytes > this.capacityBytes) return false;
    this.kvUsedBytes += bytes - sequence.kvBytes;
    sequence.kvBytes = bytes;
    return true;
  }

  private preempt(victim: Sequence): void {
    this.release(victim);
    victim.prefillTarget = victim.request.promptTokens + victim.generated;
    victim.prefilled = 0;
    victim.credit = 0;
    victim.state = 'waiting';
    this.waiting.unshift(victim);
    this.preemptions++;
  }

  /** Plan the next step at `now`; returns its end time, or undefined when there is nothing to do. */
  start(now: number): number | undefined {
    if (this.busyUntil !== undefined) return this.busyUntil;
    const planned: Planned[] = [];
    const load: StepLoad = { prefillTokens: 0, prefillAttention: 0, prefillContext: 0, decodeSeqs: 0, decodeContext: 0 };
    let budget = this.limits.maxNumBatchedTokens;
    let preempted = false;

    const addPrefill = (s: Sequence, chunk: number): void => {
      planned.push({ sequence: s, chunk });
      load.prefillTokens += chunk;
      load.prefillAttention += chunk * (s.prefilled + chunk / 2);
      load.prefillContext += s.prefilled + chunk;
      budget -= chunk;
    };

    const addDecode = (s: Sequence): void => {
      planned.push({ sequence: s, chunk: 0 });
      load.decodeSeqs++;
      load.decodeContext += this.contextOf(s);
      budget -= this.verify;
    };

    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const s = this.running[i]!;
      const prefilling = s.prefilled < s.prefillTarget;
      const chunk = prefilling ? Math.min(s.prefillTarget - s.prefilled, budget) : 0;
      const tokens = prefilling ? s.prefilled + chunk : this.contextOf(s) + this.verify;
      // Make room by preempting from the back; a sequence that is itself the back yields.
      while (!this.grow(s, tokens)) {
        const victim = this.running[this.running.length - 1]!;
        this.preempt(victim);
        preempted = true;
        if (victim === s) break;
      }
      if (s.state !== 'running') break;
      if (prefilling) addPrefill(s, chunk);
      else addDecode(s);
    }

    // New sequences only when nothing had to be preempted (as vLLM does).
    while (!preempted && budget > 0 && this.waiting.length > 0 && this.running.length < this.limits.maxNumSeqs) {
      const s = this.waiting[0]!;
      const prefilling = s.prefilled < s.prefillTarget;
      const chunk = prefilling ? Math.min(s.prefillTarget - s.prefilled, budget) : 0;
      if (!this.grow(s, prefilling ? s.prefilled + chunk : this.contextOf(s) + this.verify)) break;
      this.waiting.shift();
      s.state = 'running';
      this.running.push(s);
      if (prefilling) addPrefill(s, chunk);
      else addDecode(s);
    }

    if (planned.length === 0) return undefined;
    this.planned = planned;
    this.busyUntil = now + stepTime(this.spec, load).ms;
    return this.busyUntil;
  }

  /** Tokens whose KV a sequence holds once prefilled: the prompt and what it generated. */
  private contextOf(s: Sequence): number {
    return s.request.promptTokens + s.generated;
  }

  /** Finish the step in flight: emit tokens, retire finished sequences. */
  finish(): StepOutput[] {
    const outputs: StepOutput[] = [];
    for (const { sequence: s, chunk } of this.planned) {
      if (s.cancelled) {
        if (s.state === 'running') this.release(s);
        continue;
      }
      if (s.state !== 'running') continue; // preempted within the step
      let tokens = 0;
      let prefillDone = false;
      if (chunk > 0) {
        s.prefilled += chunk;
        this.promptTokensComputed += chunk;
        // The step that completes a prefill samples the next token.
        if (s.prefilled >= s.prefillTarget) {
          prefillDone = true;
          tokens = 1;
        }
      } else {
        s.credit += this.acceptance;
        tokens = Math.max(1, Math.floor(s.credit));
        s.credit -= tokens;
      }
      tokens = Math.min(tokens, s.request.outputTokens - s.generated);
      s.generated += tokens;
      this.generatedTokens += tokens;
      const finished = s.generated >= s.request.outputTokens || (prefillDone && this.role === 'prefill');
      if (finished) this.release(s);
      outputs.push({ sequence: s, tokens, prefillDone, finished });
    }
    this.planned = [];
    this.busyUntil = undefined;
    return outputs;
  }
}
