import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_FAULTS, buildTopology, startSimServer } from '../../src/sim/index.js';
import type { DeploymentOptions, SimServer, SimServerOptions } from '../../src/sim/index.js';
import { tempFiles } from '../helpers.js';
import { readSse } from './sse.js';
import { waitFor } from './wait.js';

/** Helpers of the prefix-cache tests over HTTP: a server with a ground-truth log, prompts, streams, metrics. */

export const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
export const DEPLOYMENT: DeploymentOptions = { model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' };

export interface CacheServer {
  server: SimServer;
  /** Model TTFT of each of the first `n` requests, in the order they ended (ms at the server's speed), once recorded. */
  ttfts(n: number): Promise<number[]>;
}

export async function serveWithTruth(
  deployment: Partial<DeploymentOptions> = {},
  options: Partial<SimServerOptions> = {},
): Promise<CacheServer> {
  const truth = join(tempFiles({}), 'truth.jsonl');
  const server = await startSimServer({
    topology: buildTopology({ ...DEPLOYMENT, ...deployment }),
    servedModelName: MODEL,
    maxModelLen: 16384,
    speed: 1,
    seed: 1,
    naturalOutputTokens: 16,
    host: '127.0.0.1',
    port: 0,
    faults: NO_FAULTS,
    promptTokensDetails: true,
    groundTruthFile: truth,
    ...options,
  });
  return {
    server,
    // The server writes a request's record a moment after its response ends: wait for all n.
    ttfts: async (n) => {
      const lines = await waitFor(
        () => {
          const l = existsSync(truth) ? readFileSync(truth, 'utf8').trim().split('\n').filter(Boolean) : [];
          return l.length >= n && l.slice(0, n);
        },
        { what: `${n} ground-truth records in ${truth}` },
      );
      // Simulated first-token time minus arrival: what the model did, whatever the CPU's load.
      return lines
        .map((l) => JSON.parse(l) as { arrival: number; simulated_times: number[] })
        .map((t) => t.simulated_times[0]! - t.arrival);
    },
  };
}

const WORDS = (
  'the of and to in is that for it as with was on be by at this from or an are not have but had his they ' +
  'which one you were all we her she there been their has would will when more no if out so what up said'
).split(' ');

/** A prompt of about `tokens` tokens (common one-token words); different `seed`s share no leading block. */
export const text = (tokens: number, seed: number): string =>
  [`seed${seed}`, ...Array.from({ length: tokens - 1 }, (_, i) => WORDS[(i * 7 + seed * 13) % WORDS.length])].join(' ');

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export async function streamUsage(
  url: string,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Usage> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  let usage: Usage | undefined;
  await readSse(res.body!, ({ data }) => {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as { usage?: Usage | null };
    if (chunk.usage) usage = chunk.usage;
  });
  if (!usage) throw new Error('no usage chunk');
  return usage;
}

/**
 * A completions body. Token ids (`encode(text)`) spare the server its tokenizing: the time that
 * takes on a busy CPU would otherwise show in the model's TTFT, as it does on a real server.
 */
export const completion = (prompt: string | number[], maxTokens = 2): Record<string, unknown> => ({
  model: MODEL,
  prompt,
  max_tokens: maxTokens,
  ignore_eos: true,
});

/** Prometheus text → value of each sample, keyed `name{labels}` and, summed, `name`. */
export async function scrape(url: string): Promise<{ text: string; value: (key: string) => number | undefined }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([^{ ]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const [, name, labels, raw] = m;
    const v = Number(raw);
    values.set(`${name}${labels ?? ''}`, v);
    values.set(name!, (values.get(name!) ?? 0) + v);
  }
  return { text, value: (key) => values.get(key) };
}

export const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Leading tokens two token lists share. */
export function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
