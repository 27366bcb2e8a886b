import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from '../cluster.js';
import { sendErrorAnswer, sendJson } from '../http.js';
import { prometheusText } from '../metrics.js';
import type { ClusterPower } from '../power.js';
import { TOKENIZER, VOCAB_SIZE, decode, encode, renderChat } from '../tokens.js';
import type { SimClock } from './clock.js';
import type { GenerationHandler } from './generation.js';
import type { SimProfiler } from './profiler.js';
import { BadRequest, messagesOf, promptOf, readJson } from './request.js';

export interface ServerRoutesOptions {
  servedModelName: string;
  maxModelLen: number;
  clock: SimClock;
  cluster: Cluster;
  power: ClusterPower;
  /** Requests completed, by finish reason. */
  finishedReasons: ReadonlyMap<string, number>;
  isLoaded: () => boolean;
  generate: GenerationHandler;
  /** Set when the profiler endpoints are served (VLLM_TORCH_PROFILER_DIR). */
  profiler?: SimProfiler | undefined;
}

/** The server's endpoints, as vLLM's: a request, with the time it arrived (epoch ms), to its handler. */
export function createServerRoutes(
  o: ServerRoutesOptions,
): (req: IncomingMessage, res: ServerResponse, received: number) => Promise<void> {
  const { maxModelLen } = o;
  return async (req, res, received) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && url === '/health') {
      if (!o.isLoaded()) return sendJson(res, 503, { status: 'loading' });
      return sendJson(res, 200, { status: 'ok' });
    }
    if (req.method === 'GET' && url === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [
          {
            id: o.servedModelName,
            object: 'model',
            created: Math.floor(o.clock.epoch0 / 1000),
            owned_by: 'frontier-sim',
            root: o.servedModelName,
            parent: null,
            max_model_len: maxModelLen,
          },
        ],
      });
    }
    if (req.method === 'GET' && url === '/sim/gpus') {
      // The simulated GPUs' board power now (power.ts), for the fake nvidia-smi / amd-smi / DCGM exporter.
      // At a given wall time (?wallMs=, a sampler's tick) when it is not in the future: a reading
      // does not wait on the event loop's lag. The meter never runs backwards: an earlier time
      // than it has reached reads its latest state.
      const asked = Number(new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('wallMs'));
      const wallMs = Number.isFinite(asked) && asked > 0 ? Math.min(asked, Date.now()) : Date.now();
      const virtualMs = o.clock.virtualOf(wallMs);
      return sendJson(res, 200, { wallMs, virtualMs, speed: o.clock.speed, gpus: o.power.readings(virtualMs) });
    }
    if (req.method === 'GET' && url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(prometheusText(o.servedModelName, o.cluster.stats(), o.finishedReasons));
      return;
    }
    if (o.profiler && req.method === 'POST' && (url === '/start_profile' || url === '/stop_profile')) {
      req.resume();
      if (url === '/start_profile') o.profiler.start();
      else o.profiler.stop();
      res.writeHead(200, { 'content-length': 0 }).end();
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
      o.generate(res, body, url === '/v1/chat/completions', received);
      return;
    }
    throw new BadRequest(`no route ${req.method} ${url}`, 404);
  };
}

/** A failed request's answer: vLLM's JSON error, or a cut connection once a response has begun. */
export function sendError(res: ServerResponse, e: unknown): void {
  const status = e instanceof BadRequest ? e.status : 500;
  sendErrorAnswer(res, status, e instanceof Error ? e.message : String(e));
}
