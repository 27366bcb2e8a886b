import type { ServerResponse } from 'node:http';
import { Rng, hash32 } from '../../util/rng.js';
import type { AnswerBook } from '../answers.js';
import { blockHashes } from '../block-hash.js';
import type { Cluster } from '../cluster.js';
import type { FaultPlan } from '../faults.js';
import type { SimRequest } from '../instance.js';
import { TokenStream, decode, encode } from '../tokens.js';
import type { SimClock } from './clock.js';
import type { GroundTruthLog } from './ground-truth.js';
import type { LiveRequest, TokenSource } from './live.js';
import type { SimRole } from './options.js';
import { BadRequest, intField, parseGeneration, stopsOf } from './request.js';
import type { ResponseWriter } from './response-writer.js';
import type { SimulationLoop } from './simulation-loop.js';

export interface GenerationHandlerOptions {
  servedModelName: string;
  maxModelLen: number;
  role: SimRole;
  seed: number;
  /** Mean output length of a request that may stop on its own (no `ignore_eos`). */
  naturalOutputTokens: number;
  answers: AnswerBook | undefined;
  cluster: Cluster;
  clock: SimClock;
  faults: FaultPlan;
  live: Map<number, LiveRequest>;
  writer: ResponseWriter;
  loop: SimulationLoop;
  groundTruth: GroundTruthLog;
  /** False while a slow-start fault keeps the model loading. */
  isLoaded: () => boolean;
  /** The crash fault fired on this request: the server dies once it is taken in. */
  onCrashFault: () => void;
}

/**
 * A parsed /v1/completions (`chat` false) or /v1/chat/completions body, with the time it arrived
 * (epoch ms): admitted into the simulation, its response written as the simulation produces it.
 */
export type GenerationHandler = (res: ServerResponse, body: Record<string, unknown>, chat: boolean, received: number) => void;

export function createGenerationHandler(o: GenerationHandlerOptions): GenerationHandler {
  const { cluster, clock, faults, live, writer, loop } = o;
  const rng = new Rng(o.seed);
  // Response ids differ between the prefill and the decode server of one deployment (same seed).
  const idRng = new Rng(o.seed ^ 0x1d1d ^ (o.role === 'prefill' ? 0x9e11 : 0));
  let nextId = 0;

  return (res, body, chat, received) => {
    if (!o.isLoaded()) throw new BadRequest('the model is still loading', 503);
    if (faults.crashesAfterThis()) o.onCrashFault();
    const { promptString, promptTokens, promptIds, maxTokens, remoteDecode, remotePrefill } = parseGeneration(body, chat, o);
    const id = nextId++;
    const temperature = typeof body.temperature === 'number' ? body.temperature : 1;
    const seed = typeof body.seed === 'number' ? body.seed : temperature === 0 ? hash32(promptString) : rng.int(2 ** 32);
    const ignoreEos = body.ignore_eos === true;
    // min_tokens and stop are checked only now, after the request took its id and seed: a request
    // refused for them still moves the id and seed sequences on, as it always has.
    const minTokens = intField(body, ['min_tokens']) ?? 0;
    const { tokens, planned } = planOutput(o, id, promptString, seed, maxTokens, minTokens, ignoreEos);
    const streamOptions = (body.stream_options ?? {}) as Record<string, unknown>;
    const requestId = `${chat ? 'chatcmpl' : 'cmpl'}-${id.toString(16).padStart(8, '0')}${idRng
      .int(2 ** 32)
      .toString(16)
      .padStart(8, '0')}`;
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = body.stream === true && streamOptions.include_usage === true;
    const framing = writer.framing(requestId, chat, created, includeUsage);
    const l: LiveRequest = {
      id,
      requestId,
      prefix: framing.prefix,
      eventHead: framing.eventHead,
      eventTail: framing.eventTail,
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
      remoteDecode,
    };
    if (l.faults.errorStatus !== undefined) {
      o.groundTruth.record(l, null, `error ${l.faults.errorStatus}`);
      throw new BadRequest(`injected fault: HTTP ${l.faults.errorStatus}`, l.faults.errorStatus);
    }
    live.set(id, l);
    res.on('close', () => {
      if (live.get(id) === l) writer.drop(l, 'cancelled');
    });
    if (l.stream) writer.openStream(l);
    loop.pump();
    const request: SimRequest = { id, promptTokens, outputTokens: planned, blockHashes: hashesOf(cluster, promptIds) };
    l.sim = request;
    // The engine's clock starts when the request arrived, not after this server tokenized it: at
    // --speed k, milliseconds of tokenizing would otherwise become k times as many model time.
    const arrived = Math.min(clock.now(), clock.virtualOf(received));
    if (remotePrefill) {
      const at = cluster.submitPrefilled(request, arrived, { gpus: remotePrefill.gpus });
      l.remotePrefill = { requestId: remotePrefill.requestId, transferMs: at - cluster.now };
    } else cluster.submit(request, arrived);
    loop.schedule();
  };
}

/** The prompt's block hashes for the prefix cache of the instances that prefill; none when they keep no cache. */
function hashesOf(cluster: Cluster, ids: readonly number[] | undefined): number[] | undefined {
  const prefill = cluster.prefill[0]!;
  if (!ids || !prefill.cache) return undefined;
  return blockHashes(ids, prefill.limits.blockSize);
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

/**
 * What a request will say, and how many tokens before it stops: the reply of a matching answer
 * (the evals double), or random tokens for a length drawn around the natural output length; all
 * of `maxTokens` with `ignore_eos`.
 */
function planOutput(
  o: Pick<GenerationHandlerOptions, 'answers' | 'naturalOutputTokens'>,
  id: number,
  promptString: string,
  seed: number,
  maxTokens: number,
  minTokens: number,
  ignoreEos: boolean,
): { tokens: TokenSource; planned: number } {
  const matched = o.answers?.match(promptString);
  if (matched && !ignoreEos) {
    const ids = encode(o.answers!.reply(matched, id));
    return { tokens: new ScriptedTokens(ids), planned: Math.min(maxTokens, ids.length) };
  }
  const tokens = new TokenStream(seed);
  if (ignoreEos) return { tokens, planned: maxTokens };
  const natural = 1 + Math.floor(-Math.log(1 - new Rng(seed ^ 0xa5a5).next()) * Math.max(0, o.naturalOutputTokens - 1));
  return { tokens, planned: Math.min(maxTokens, Math.max(minTokens, natural)) };
}
