import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AnswerBook } from './answers.js';
import { Cluster } from './cluster.js';
import type { TokenEvent, Topology } from './cluster.js';
import { FaultPlan, NO_FAULTS } from './faults.js';
import { readBody, sendJson } from './http.js';
import type { FaultOptions, RequestFaults } from './faults.js';
import { readTime } from '../util/read-time.js';
import { prometheusText } from './metrics.js';
import { Rng, hash32 } from '../util/rng.js';
import { TOKENIZER, TokenStream, VOCAB_SIZE, decode, encode, loadTokenizer, renderChat } from './tokens.js';

/**
 * The simulated engine's HTTP server: the OpenAI-compatible API (as vLLM serves it) over a
 * `Cluster` running in virtual time. Virtual time advances with the wall clock (× `speed`), and
 * each token is written to its socket when the simulation produces it, so a client measures
 * what it would measure against the GPUs the cluster models.
 */

/**
 * What the server is in a disaggregated deployment of separate processes (behind `frontier sim
 * router`, or any PD proxy that speaks vLLM's NIXL `kv_transfer_params`): `prefill` answers a
 * request that carries `kv_transfer_params: {do_remote_decode: true}` with the parameters a decode
 * server needs to pull its KV cache; `decode` admits a request that carries
 * `kv_transfer_params: {do_remote_prefill: true}` already prefilled, after the KV transfer. Both
 * answer ordinary requests as usual. `both` (the default) ignores `kv_transfer_params`.
 */
export type SimRole = 'prefill' | 'decode' | 'both';
export const SIM_ROLES: readonly SimRole[] = ['prefill', 'decode', 'both'];

/** What a prefill server returns for a remote decode, shaped as vLLM's NIXL connector returns it. */
export interface KvTransferParams {
  do_remote_prefill: true;
  do_remote_decode: false;
  remote_block_ids: number[];
  remote_engine_id: string;
  remote_request_id: string;
  /** The prompt's length: the decode server does not tokenize it again. */
  remote_num_tokens: number;
  remote_host: string;
  remote_port: number;
  tp_size: number;
}

export interface SimServerOptions {
  topology: Topology;
  /** Its part in a disaggregated deployment of separate processes (default `both`). */
  role?: SimRole | undefined;
  /** The id clients send as `model` and /v1/models lists. */
  servedModelName: string;
  /** Longest prompt + output accepted (capped by what the KV cache can hold). */
  maxModelLen: number;
  /** Virtual milliseconds per wall-clock millisecond. */
  speed: number;
  seed: number;
  /** Mean output length of a request that may stop on its own (no `ignore_eos`). */
  naturalOutputTokens: number;
  host: string;
  port: number;
  faults: FaultOptions;
  answers?: AnswerBook | undefined;
  /** A JSONL file for per-request ground truth: arrival, first token, every token's time. */
  groundTruthFile?: string | undefined;
  /** Called when a `crashAfter` fault fires, after every connection has been dropped. */
  onCrash?: (() => void) | undefined;
}

export const DEFAULT_SERVER_OPTIONS = {
  speed: 1,
  seed: 0,
  naturalOutputTokens: 128,
  host: '127.0.0.1',
  port: 8000,
  faults: NO_FAULTS,
} satisfies Partial<SimServerOptions>;

export interface SimServer {
  url: string;
  port: number;
  cluster: Cluster;
  role: SimRole;
  /** The id a prefill server gives as `remote_engine_id`. */
  engineId: string;
  close(): Promise<void>;
}

class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

interface Live {
  id: number;
  requestId: string;
  /** The start of each of its stream's chunks, and what comes before and after a token's text. */
  prefix: string;
  eventHead: string;
  eventTail: string;
  chat: boolean;
  stream: boolean;
  includeUsage: boolean;
  res: ServerResponse;
  promptTokens: number;
  maxTokens: number;
  /** Tokens the request will produce before it stops (≤ maxTokens). */
  plannedTokens: number;
  tokens: TokenSource;
  stops: string[];
  text: string;
  generated: number;
  faults: RequestFaults;
  /** Wall-clock (epoch ms) times, for the ground truth. */
  arrival: number;
  /** When each token was due in the simulation, and when it was written to the socket (epoch ms). */
  simulatedTimes: number[];
  writtenTimes: number[];
  /** Tokens in `held`, not written yet. */
  unwritten: number;
  /** Events not written yet: those of the current pump, or held back by a stall until `stalledUntil`. */
  held: string;
  stalledUntil?: number | undefined;
  stallTimer?: NodeJS.Timeout | undefined;
  /** The last event is queued (with this finish reason): end the response, and log it, once it is written. */
  ending: string | undefined;
  created: number;
  /** A prefill for a remote decode: the response carries `kv_transfer_params`. */
  remoteDecode: boolean;
  /** Admitted prefilled (a decode for a remote prefill): the prefill's request id and the transfer's time. */
  remotePrefill?: { requestId: string | null; transferMs: number } | undefined;
}

interface TokenSource {
  next(): string;
}

/** Tokens of a fixed reply (the evals double), then none. */
class ScriptedTokens implements TokenSource {
  private i = 0;
  constructor(private readonly ids: number[]) {}
  next(): string {
    const id = this.ids[this.i++];
    return id === undefined ? '' : decode([id]);
  }
}

export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  loadTokenizer();
  const cluster = new Cluster(options.topology);
  const role = options.role ?? 'both';
  const engineId = randomUUID();
  const prefillPool = options.topology.kind === 'aggregated' ? options.topology.pool : options.topology.prefill;
  const blockSize = prefillPool.limits.blockSize;
  /** Block ids handed out to remote decodes, round the cache. */
  const totalBlocks = Math.max(
    1,
    Math.floor(cluster.prefill[0]!.capacityBytes / Math.max(1, cluster.prefill[0]!.bytesFor(blockSize))),
  );
  let nextBlock = 0;
  let boundPort = options.port;
  const maxModelLen = Math.min(options.maxModelLen, cluster.maxSequenceTokens);
  const t0 = performance.now();
  const epoch0 = performance.timeOrigin + t0;
  const virtualNow = (): number => (performance.now() - t0) * options.speed;
  const epochOf = (virtual: number): number => epoch0 + virtual / options.speed;
  const rng = new Rng(options.seed);
  // Response ids differ between the prefill and the decode server of one deployment (same seed).
  const idRng = new Rng(options.seed ^ 0x1d1d ^ (role === 'prefill' ? 0x9e11 : 0));
  const faults = new FaultPlan(options.faults, options.seed);
  const live = new Map<number, Live>();
  const sockets = new Set<Socket>();
  const groundTruth: WriteStream | undefined = options.groundTruthFile
    ? createWriteStream(options.groundTruthFile, { flags: 'a' })
    : undefined;
  const recording = groundTruth !== undefined;
  const finishedReasons = new Map<string, number>();
  let nextId = 0;
  /** The wake-up for the simulation's next event: a timer, or an immediate when it is already due. */
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const cancelTimer = (): void => {
    clearTimeout(timer as NodeJS.Timeout);
    clearImmediate(timer as NodeJS.Immediate);
  };
  let timerAt = Infinity;
  let crashed = false;

  const loaded = (): boolean => performance.now() - t0 >= options.faults.slowStartMs;

  /** Bring the simulation up to now, deliver what it produced, and wake up for its next event. */
  const pump = (): void => {
    timer = undefined;
    timerAt = Infinity;
    if (crashed) return;
    cluster.advance(virtualNow(), (event) => {
      let events = pending.get(event.id);
      if (!events) {
        pending.set(event.id, (events = []));
        queue.push(event.id);
      }
      events.push(event);
    });
    if (!draining) drain();
    schedule();
  };

  /**
   * Deliver what the simulation produced, a slice of streams at a time (all of a stream's tokens
   * in one write), letting the event loop read sockets in between: a request that arrives while
   * a step's hundreds of tokens go out is taken in (and its arrival logged) within a slice, not
   * after all of them. A stream's tokens are always delivered in order.
   */
  const SLICE = options.speed > 1 ? 64 : 1;
  const pending = new Map<number, TokenEvent[]>();
  const queue: number[] = [];
  let head = 0;
  let draining = false;
  const drain = (): void => {
    draining = true;
    const touched = new Set<Live>();
    for (const end = Math.min(queue.length, head + SLICE); head < end; head++) {
      const id = queue[head]!;
      const events = pending.get(id)!;
      pending.delete(id);
      for (const event of events) {
        const l = live.get(id);
        if (!l) break;
        deliver(l, event, touched);
      }
    }
    for (const l of touched) flush(l);
    if (head < queue.length && !crashed) {
      setImmediate(drain);
      return;
    }
    queue.length = 0;
    head = 0;
    draining = false;
  };

  const schedule = (): void => {
    const next = cluster.nextEventTime();
    if (next === undefined) return;
    const delay = (next - virtualNow()) / options.speed;
    const at = performance.now() + Math.max(0, delay);
    if (timer && at >= timerAt) return;
    if (timer) cancelTimer();
    timerAt = at;
    // Node's timers cannot fire sooner than 1 ms. Faster than real time, an event due within that
    // runs on the next turn of the event loop (after pending I/O), so the timer does not pace the
    // simulation; at real time the process sleeps instead of spinning.
    timer = delay < 1 && options.speed > 1 ? setImmediate(pump) : setTimeout(pump, Math.max(0, delay));
  };

  // ---- streaming ----------------------------------------------------------------------------

  const modelJson = JSON.stringify(options.servedModelName);
  /** The start of every chunk of a stream (`data: {"id":…,"choices":[`), built once per request. */
  const chunkPrefix = (requestId: string, chat: boolean, created: number): string =>
    `data: {"id":"${requestId}","object":"${chat ? 'chat.completion.chunk' : 'text_completion'}","created":${created},"model":${modelJson},"choices":[`;
  const usageTail = (l: Live): string => (l.includeUsage ? ',"usage":null' : '');

  /** One token's event; the parts around the text are built once per request (this is the hot path). */
  const tokenEvent = (l: Live, text: string, finish: string | null): string => {
    if (finish === null) return `${l.eventHead}${JSON.stringify(text)}${l.eventTail}`;
    const tail = l.chat
      ? `},"logprobs":null,"finish_reason":"${finish}"}]`
      : `,"logprobs":null,"finish_reason":"${finish}","stop_reason":null}]`;
    return `${l.eventHead}${JSON.stringify(text)}${tail}${usageTail(l)}}\n\n`;
  };

  const usage = (l: Live): { prompt_tokens: number; total_tokens: number; completion_tokens: number } => ({
    prompt_tokens: l.promptTokens,
    total_tokens: l.promptTokens + l.generated,
    completion_tokens: l.generated,
  });

  /** Apply a token event of the simulation to its request. */
  const deliver = (l: Live, event: TokenEvent, touched: Set<Live>): void => {
    let finish: string | null = null;
    for (let k = 0; k < event.tokens && finish === null; k++) {
      const piece = l.tokens.next();
      l.generated++;
      if (recording) {
        l.simulatedTimes.push(epochOf(event.time));
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
      if (l.stream) {
        if (l.faults.malformedAt === l.generated) l.held += `${l.prefix}{"index":0,"text":\n\n`;
        l.held += tokenEvent(l, text, finish);
        if (l.faults.stallAt === l.generated) l.stalledUntil = performance.now() + options.faults.stallMs;
        if (l.faults.disconnectAt === l.generated && finish === null) {
          touched.delete(l);
          flush(l);
          drop(l, 'disconnected');
          return;
        }
      }
    }
    if (finish !== null) {
      if (!event.finished) cluster.cancel(l.id);
      complete(l, finish, touched);
      return;
    }
    touched.add(l);
  };

  /** Write what a stream holds, unless a stall holds it back; end it once its last event is out. */
  const flush = (l: Live): void => {
    if (l.stalledUntil !== undefined) {
      const wait = l.stalledUntil - performance.now();
      if (wait > 0) {
        l.stallTimer ??= setTimeout(() => {
          l.stallTimer = undefined;
          flush(l);
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
      record(l, l.ending);
    }
  };

  const complete = (l: Live, finish: string, touched: Set<Live>): void => {
    live.delete(l.id);
    touched.delete(l);
    finishedReasons.set(finish, (finishedReasons.get(finish) ?? 0) + 1);
    if (!l.stream) {
      record(l, finish);
      const choice = l.chat
        ? { index: 0, message: { role: 'assistant', content: l.text }, logprobs: null, finish_reason: finish }
        : { index: 0, text: l.text, logprobs: null, finish_reason: finish, stop_reason: null };
      const body = {
        id: l.requestId,
        object: l.chat ? 'chat.completion' : 'text_completion',
        created: l.created,
        model: options.servedModelName,
        choices: [choice],
        usage: usage(l),
        ...(l.remoteDecode ? { kv_transfer_params: kvTransferParams(l) } : {}),
      };
      sendJson(l.res, 200, body);
      return;
    }
    if (l.includeUsage) {
      const chunk = {
        id: l.requestId,
        object: l.chat ? 'chat.completion.chunk' : 'text_completion',
        created: l.created,
        model: options.servedModelName,
        choices: [],
        usage: usage(l),
      };
      l.held += `data: ${JSON.stringify(chunk)}\n\n`;
    }
    l.held += 'data: [DONE]\n\n';
    l.ending = finish;
    flush(l);
  };

  /** Where a decode server finds this prefill's KV cache (its blocks are simulated, not held). */
  const kvTransferParams = (l: Live): KvTransferParams => {
    const n = Math.ceil(l.promptTokens / blockSize);
    const first = nextBlock;
    nextBlock = (nextBlock + n) % totalBlocks;
    return {
      do_remote_prefill: true,
      do_remote_decode: false,
      remote_block_ids: Array.from({ length: n }, (_, i) => (first + i) % totalBlocks),
      remote_engine_id: engineId,
      remote_request_id: l.requestId,
      remote_num_tokens: l.promptTokens,
      remote_host: options.host,
      remote_port: boundPort,
      tp_size: prefillPool.engine.parallelism.tp,
    };
  };

  /** A request that ends without completing: the client left, or a fault cut it off. */
  const drop = (l: Live, status: string): void => {
    live.delete(l.id);
    cluster.cancel(l.id);
    record(l, null, status);
    if (status === 'disconnected') l.res.destroy();
  };

  const record = (l: Live, finish: string | null, status = 'ok'): void => {
    if (!groundTruth) return;
    const line = {
      id: l.requestId,
      status,
      arrival: l.arrival,
      first_token: l.writtenTimes[0] ?? l.simulatedTimes[0] ?? null,
      // What a client can observe: when each token went out (streams), else when it was produced.
      token_times: l.stream ? l.writtenTimes : l.simulatedTimes,
      simulated_times: l.simulatedTimes,
      prompt_tokens: l.promptTokens,
      completion_tokens: l.generated,
      finish_reason: finish,
      role,
      // A prefill for a remote decode; a decode admitted prefilled, with the prefill's request id
      // and the KV transfer's time (wall-clock ms, as the other times: simulated ms / speed).
      remote_decode: l.remoteDecode,
      remote_prefill: l.remotePrefill !== undefined,
      remote_request_id: l.remotePrefill?.requestId ?? null,
      kv_transfer_ms: l.remotePrefill ? l.remotePrefill.transferMs / options.speed : null,
    };
    groundTruth.write(`${JSON.stringify(line)}\n`);
  };

  // ---- requests -------------------------------------------------------------------------------

  const handleGeneration = (res: ServerResponse, body: Record<string, unknown>, chat: boolean, received: number): void => {
    if (!loaded()) throw new BadRequest('the model is still loading', 503);
    if (faults.crashesAfterThis()) setImmediate(crash);
    const model = body.model;
    if (model !== undefined && model !== options.servedModelName) {
      throw new BadRequest(`The model \`${String(model)}\` does not exist.`, 404);
    }
    if (body.n !== undefined && body.n !== 1) throw new BadRequest('only n = 1 is supported by the simulator');
    const promptText = chat ? renderChat(messagesOf(body.messages)) : promptOf(body.prompt);
    const kv = kvParamsOf(body.kv_transfer_params);
    const remotePrefill = role === 'decode' && kv?.do_remote_prefill === true;
    // Admitted prefilled, the prompt's length is the one the prefill server counted: the engine's
    // tokenizer takes a millisecond, this one tens of them for long prompts, and not twice.
    const counted = remotePrefill && positiveInt(kv.remote_num_tokens) ? (kv.remote_num_tokens as number) : undefined;
    const promptTokens = typeof promptText === 'string' ? (counted ?? encode(promptText).length) : promptText.length;
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
    const id = nextId++;
    const temperature = typeof body.temperature === 'number' ? body.temperature : 1;
    const seed = typeof body.seed === 'number' ? body.seed : temperature === 0 ? hash32(promptString) : rng.int(2 ** 32);
    const ignoreEos = body.ignore_eos === true;
    const minTokens = intField(body, ['min_tokens']) ?? 0;
    let tokens: TokenSource = new TokenStream(seed);
    let planned = maxTokens;
    const matched = options.answers?.match(promptString);
    if (matched && !ignoreEos) {
      const ids = encode(options.answers!.reply(matched, id));
      tokens = new ScriptedTokens(ids);
      planned = Math.min(maxTokens, ids.length);
    } else if (!ignoreEos) {
      const natural = 1 + Math.floor(-Math.log(1 - new Rng(seed ^ 0xa5a5).next()) * Math.max(0, options.naturalOutputTokens - 1));
      planned = Math.min(maxTokens, Math.max(minTokens, natural));
    }
    const streamOptions = (body.stream_options ?? {}) as Record<string, unknown>;
    const requestId = `${chat ? 'chatcmpl' : 'cmpl'}-${id.toString(16).padStart(8, '0')}${idRng
      .int(2 ** 32)
      .toString(16)
      .padStart(8, '0')}`;
    const created = Math.floor(Date.now() / 1000);
    const prefix = chunkPrefix(requestId, chat, created);
    const includeUsage = body.stream === true && streamOptions.include_usage === true;
    const l: Live = {
      id,
      requestId,
      prefix,
      eventHead: chat ? `${prefix}{"index":0,"delta":{"content":` : `${prefix}{"index":0,"text":`,
      eventTail: `${chat ? '},"logprobs":null,"finish_reason":null}]' : ',"logprobs":null,"finish_reason":null,"stop_reason":null}]'}${includeUsage ? ',"usage":null' : ''}}\n\n`,
      chat,
      stream: body.stream === true,
      includeUsage,
      res,
      promptTokens,
      maxTokens,
      plannedTokens: planned,
      tokens,
      stops: stopsOf(body.stop),
      text: '',
      generated: 0,
      faults: faults.next(planned),
      arrival: received,
      simulatedTimes: [],
      writtenTimes: [],
      unwritten: 0,
      held: '',
      ending: undefined,
      created,
      remoteDecode: role === 'prefill' && kv?.do_remote_decode === true && body.stream !== true,
    };
    if (l.faults.errorStatus !== undefined) {
      record(l, null, `error ${l.faults.errorStatus}`);
      throw new BadRequest(`injected fault: HTTP ${l.faults.errorStatus}`, l.faults.errorStatus);
    }
    live.set(id, l);
    res.on('close', () => {
      if (live.get(id) === l) drop(l, 'cancelled');
    });
    if (l.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      if (chat)
        l.res.write(
          `${l.prefix}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usageTail(l)}}\n\n`,
        );
    }
    pump();
    const request = { id, promptTokens, outputTokens: planned };
    // The engine's clock starts when the request arrived, not after this server tokenized it: at
    // --speed k, milliseconds of tokenizing would otherwise become k times as many model time.
    const arrived = Math.min(virtualNow(), (received - epoch0) * options.speed);
    if (remotePrefill) {
      const at = cluster.submitPrefilled(request, arrived, {
        gpus: positiveInt(kv.tp_size) ? (kv.tp_size as number) : undefined,
      });
      l.remotePrefill = {
        requestId: typeof kv.remote_request_id === 'string' ? kv.remote_request_id : null,
        transferMs: at - cluster.now,
      };
    } else cluster.submit(request, arrived);
    schedule();
  };

  const route = async (req: IncomingMessage, res: ServerResponse, received: number): Promise<void> => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && url === '/health') {
      if (!loaded()) return sendJson(res, 503, { status: 'loading' });
      return sendJson(res, 200, { status: 'ok' });
    }
    if (req.method === 'GET' && url === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [
          {
            id: options.servedModelName,
            object: 'model',
            created: Math.floor(epoch0 / 1000),
            owned_by: 'frontier-sim',
            root: options.servedModelName,
            parent: null,
            max_model_len: maxModelLen,
          },
        ],
      });
    }
    if (req.method === 'GET' && url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(prometheusText(options.servedModelName, cluster.stats(), finishedReasons));
      return;
    }
    if (req.method === 'POST' && ['/v1/completions', '/v1/chat/completions', '/tokenize', '/detokenize'].includes(url!)) {
      const body = await readJson(req);
      if (url === '/tokenize') {
        const text = body.messages !== undefined ? renderChat(messagesOf(body.messages)) : promptOf(body.prompt ?? body.content);
        const tokens = typeof text === 'string' ? encode(text) : text;
        return sendJson(res, 200, { count: tokens.length, max_model_len: maxModelLen, tokens, tokenizer: TOKENIZER });
      }
      if (url === '/detokenize') {
        const tokens = body.tokens;
        if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t) && t >= 0 && t < VOCAB_SIZE)) {
          throw new BadRequest(`tokens must be a list of token ids below ${VOCAB_SIZE}`);
        }
        return sendJson(res, 200, { prompt: decode(tokens as number[]) });
      }
      // Requests that arrive together are all received (and time-stamped) before any is
      // tokenized and scheduled: the work waits for the check phase, after every socket is read.
      await new Promise((resolve) => setImmediate(resolve));
      handleGeneration(res, body, url === '/v1/chat/completions', received);
      return;
    }
    throw new BadRequest(`no route ${req.method} ${url}`, 404);
  };

  const server: Server = createServer((req, res) => {
    const received = performance.timeOrigin + readTime();
    route(req, res, received).catch((e: unknown) => {
      const status = e instanceof BadRequest ? e.status : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (res.headersSent) res.destroy();
      else
        sendJson(res, status, {
          object: 'error',
          message,
          type: status === 400 ? 'BadRequestError' : 'Error',
          param: null,
          code: status,
        });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
  });

  /** The crash fault: every connection dropped, the port closed, no goodbye. */
  const crash = (): void => {
    crashed = true;
    if (timer) cancelTimer();
    for (const l of live.values()) record(l, null, 'crashed');
    live.clear();
    server.close();
    for (const s of sockets) s.destroy();
    options.onCrash?.();
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  boundPort = port;
  return {
    url: `http://${options.host}:${port}`,
    port,
    cluster,
    role,
    engineId,
    close: async () => {
      crashed = true;
      if (timer) cancelTimer();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (groundTruth) await new Promise<void>((resolve) => groundTruth.end(resolve));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
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
function promptOf(prompt: unknown): string | number[] {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) {
    if (prompt.length > 0 && prompt.every((t) => Number.isInteger(t))) return prompt as number[];
    if (prompt.length === 1) return promptOf(prompt[0]);
    throw new BadRequest('prompt must be a string or a list of token ids (batched prompts are not supported by the simulator)');
  }
  throw new BadRequest('prompt is required: a string or a list of token ids');
}

function messagesOf(messages: unknown): { role: string; content: string }[] {
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

function stopsOf(stop: unknown): string[] {
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return (stop as string[]).filter((s) => s !== '');
  throw new BadRequest('stop must be a string or a list of strings');
}

function intField(body: Record<string, unknown>, names: string[]): number | undefined {
  for (const name of names) {
    const v = body[name];
    if (v === undefined || v === null) continue;
    if (!Number.isInteger(v)) throw new BadRequest(`${name} must be an integer`);
    return v as number;
  }
  return undefined;
}
