import { performance } from 'node:perf_hooks';
import type { Cluster, TokenEvent } from '../cluster.js';
import { sendJson } from '../http.js';
import type { SimClock } from './clock.js';
import type { GroundTruthLog } from './ground-truth.js';
import type { KvTransferAllocator } from './kv-transfer.js';
import type { LiveRequest } from './live.js';

export interface ResponseWriterOptions {
  servedModelName: string;
  /** How long a stall fault holds a stream back (ms). */
  stallMs: number;
  cluster: Cluster;
  clock: SimClock;
  /** The admitted requests; a request leaves it when it completes or is dropped. */
  live: Map<number, LiveRequest>;
  groundTruth: GroundTruthLog;
  kvTransfer: KvTransferAllocator;
  /** vLLM's `--enable-prompt-tokens-details`: usage carries `prompt_tokens_details.cached_tokens`. */
  promptTokensDetails: boolean;
}

/** The parts of a request's stream events built once per request (the writer's hot path only fills in the text). */
export interface StreamFraming {
  /** The start of every chunk (`data: {"id":…,"choices":[`). */
  prefix: string;
  /** What comes before and after a token's text in its event. */
  eventHead: string;
  eventTail: string;
}

type Usage = {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
};

/**
 * Writes what the simulation produces to each request's response: the OpenAI completions and
 * chat completions answers, streamed (server-sent events, as vLLM sends them) or whole, with the
 * stream faults (malformed events, stalls, disconnects) applied on the way out.
 */
export class ResponseWriter {
  /** Requests completed, by finish reason (for /metrics). */
  readonly finishedReasons = new Map<string, number>();
  private readonly modelJson: string;

  constructor(private readonly o: ResponseWriterOptions) {
    this.modelJson = JSON.stringify(o.servedModelName);
  }

  framing(requestId: string, chat: boolean, created: number, includeUsage: boolean): StreamFraming {
    const prefix = `data: {"id":"${requestId}","object":"${chat ? 'chat.completion.chunk' : 'text_completion'}","created":${created},"model":${this.modelJson},"choices":[`;
    return {
      prefix,
      eventHead: chat ? `${prefix}{"index":0,"delta":{"content":` : `${prefix}{"index":0,"text":`,
      eventTail: `${chat ? '},"logprobs":null,"finish_reason":null}]' : ',"logprobs":null,"finish_reason":null,"stop_reason":null}]'}${includeUsage ? ',"usage":null' : ''}}\n\n`,
    };
  }

  /** The headers of a stream, and for chat the assistant's role before any token. */
  openStream(l: LiveRequest): void {
    l.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    if (l.chat)
      l.res.write(
        `${l.prefix}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usageTail(l)}}\n\n`,
      );
  }

  /**
   * Apply a token event of the simulation to its request; `touched` collects the streams to flush.
   * The tokens of one step (several with speculative decoding) go out as one delta, as vLLM
   * streams a step's output.
   */
  deliver(l: LiveRequest, event: TokenEvent, touched: Set<LiveRequest>): void {
    const recording = this.o.groundTruth.recording;
    let finish: string | null = null;
    let delta = '';
    for (let k = 0; k < event.tokens && finish === null; k++) {
      const piece = l.tokens.next();
      l.generated++;
      if (recording) {
        l.simulatedTimes.push(this.o.clock.epochOf(event.time));
        l.unwritten++;
      }
      let text = piece;
      const before = l.text.length;
      l.text += piece;
      for (const stop of l.stops) {
        const at = l.text.indexOf(stop, Math.max(0, before - stop.length + 1));
        if (at >= 0) {
          text = l.text.slice(before, Math.max(before, at));
          l.text = l.text.slice(0, at);
          finish = 'stop';
          break;
        }
      }
      if (finish === null && l.generated >= l.plannedTokens) finish = l.generated >= l.maxTokens ? 'length' : 'stop';
      delta += text;
      if (l.stream) {
        if (l.faults.malformedAt === l.generated) l.held += `${l.prefix}{"index":0,"text":\n\n`;
        if (l.faults.stallAt === l.generated) l.stalledUntil = performance.now() + this.o.stallMs;
        if (l.faults.disconnectAt === l.generated && finish === null) {
          l.held += tokenEvent(l, delta, null);
          touched.delete(l);
          this.flush(l);
          this.drop(l, 'disconnected');
          return;
        }
      }
    }
    if (l.stream && event.tokens > 0) l.held += tokenEvent(l, delta, finish);
    if (finish !== null) {
      if (!event.finished) this.o.cluster.cancel(l.id);
      this.complete(l, finish, touched);
      return;
    }
    touched.add(l);
  }

  /** Write what a stream holds, unless a stall holds it back; end it once its last event is out. */
  flush(l: LiveRequest): void {
    if (l.stalledUntil !== undefined) {
      const wait = l.stalledUntil - performance.now();
      if (wait > 0) {
        l.stallTimer ??= setTimeout(() => {
          l.stallTimer = undefined;
          this.flush(l);
        }, wait).unref();
        return;
      }
      l.stalledUntil = undefined;
    }
    if (l.res.destroyed) return;
    if (l.held !== '') {
      l.res.write(l.held);
      // node:http corks the socket until the next tick; send now, so the time logged is when the
      // bytes left, and streams written early in a pump are not held back by the ones after them.
      l.res.socket?.uncork();
    }
    if (l.unwritten > 0) {
      const now = performance.timeOrigin + performance.now();
      for (; l.unwritten > 0; l.unwritten--) l.writtenTimes.push(now);
    }
    l.held = '';
    if (l.ending !== undefined) {
      l.res.end();
      this.o.groundTruth.record(l, l.ending);
    }
  }

  /** A request that ends without completing: the client left, or a fault cut it off. */
  drop(l: LiveRequest, status: string): void {
    this.o.live.delete(l.id);
    this.o.cluster.cancel(l.id);
    this.o.groundTruth.record(l, null, status);
    if (status === 'disconnected') l.res.destroy();
  }

  private complete(l: LiveRequest, finish: string, touched: Set<LiveRequest>): void {
    this.o.live.delete(l.id);
    touched.delete(l);
    this.finishedReasons.set(finish, (this.finishedReasons.get(finish) ?? 0) + 1);
    if (!l.stream) {
      this.o.groundTruth.record(l, finish);
      const choice = l.chat
        ? { index: 0, message: { role: 'assistant', content: l.text }, logprobs: null, finish_reason: finish }
        : { index: 0, text: l.text, logprobs: null, finish_reason: finish, stop_reason: null };
      const body = {
        id: l.requestId,
        object: l.chat ? 'chat.completion' : 'text_completion',
        created: l.created,
        model: this.o.servedModelName,
        choices: [choice],
        usage: usage(l, this.o.promptTokensDetails),
        ...(l.remoteDecode ? { kv_transfer_params: this.o.kvTransfer.paramsFor(l.requestId, l.promptTokens) } : {}),
      };
      sendJson(l.res, 200, body);
      return;
    }
    if (l.includeUsage) {
      const chunk = {
        id: l.requestId,
        object: l.chat ? 'chat.completion.chunk' : 'text_completion',
        created: l.created,
        model: this.o.servedModelName,
        choices: [],
        usage: usage(l, this.o.promptTokensDetails),
      };
      l.held += `data: ${JSON.stringify(chunk)}\n\n`;
    }
    l.held += 'data: [DONE]\n\n';
    l.ending = finish;
    this.flush(l);
  }
}

const usageTail = (l: LiveRequest): string => (l.includeUsage ? ',"usage":null' : '');

/** One token's event; the parts around the text are built once per request (this is the hot path). */
function tokenEvent(l: LiveRequest, text: string, finish: string | null): string {
  if (finish === null) return `${l.eventHead}${JSON.stringify(text)}${l.eventTail}`;
  const tail = l.chat
    ? `},"logprobs":null,"finish_reason":"${finish}"}]`
    : `,"logprobs":null,"finish_reason":"${finish}","stop_reason":null}]`;
  return `${l.eventHead}${JSON.stringify(text)}${tail}${usageTail(l)}}\n\n`;
}

function usage(l: LiveRequest, details: boolean): Usage {
  const u: Usage = { prompt_tokens: l.promptTokens, total_tokens: l.promptTokens + l.generated, completion_tokens: l.generated };
  // Prompt tokens whose KV was reused (from HBM or host DRAM), as vLLM counts num_cached_tokens.
  if (details) u.prompt_tokens_details = { cached_tokens: l.sim?.cachedTokens ?? 0 };
  return u;
}
