import { setTimeout as sleep } from 'node:timers/promises';
import { Client, specDecodeCounters } from '../bench/index.js';
import type { SpecDecodeCounters } from '../bench/index.js';
import { estimateAl, fillTemplate } from '../specdec/collect.js';
import type { CollectedCell, RequestWindow } from '../specdec/collect.js';
import type { ThinkingMode } from '../specdec/golden.js';
import type { SpeedBenchPrompt } from '../specdec/speedbench.js';
import { UserError } from '../util/user-error.js';
import { freePort } from './free-port.js';
import { startProcesses } from './local.js';
import type { RunningProcesses } from './local.js';
import { waitReady } from './ready.js';

/**
 * `frontier al collect`: the acceptance length of each (thinking mode, draft length) cell, as
 * InferenceX's SPEED-Bench collectors measure it (benchmarks/single_node/speedbench/*.sh): the
 * server's cumulative `vllm:spec_decode_num_accepted_tokens` and `…_num_drafts` counters are read
 * before and after the category's prompts, and AL = 1 + Δaccepted / Δdrafts. The prompts go one at
 * a time (the collectors' CONCURRENCY=1), and the counters are also read after each, so each
 * request's share of the window is known: that is what the cell's confidence interval is built
 * from (specdec/collect.ts, estimateAl).
 *
 * A draft length is fixed when an engine starts (num_speculative_tokens), so each draft length
 * needs its own server: `serve`, a shell command template, starts one per draft length (and per
 * thinking mode when the command names {thinking}) and stops it after its cells, as the
 * collectors restart vLLM per cell; or `url` names {draft} to reach servers already running, one
 * per draft length. Either way the server's own counters must agree: the per-position counter
 * has one series per draft position, so a server running another draft length is caught.
 */

export interface AlCollectOptions {
  /** The server's URL template (default with `serve`: http://127.0.0.1:{port}). */
  url: string;
  /** The server's start command template, run with `sh -c`; undefined: the servers are already up. */
  serve: string | undefined;
  model: string;
  draftLengths: readonly number[];
  modes: readonly ThinkingMode[];
  prompts: readonly SpeedBenchPrompt[];
  outputLen: number;
  temperature: number;
  topP?: number | undefined;
  /** chat_template_kwargs per mode; a mode without is sent without any. */
  kwargs: Partial<Record<ThinkingMode, Record<string, unknown>>>;
  apiKey?: string | undefined;
  /** How long a started server may take to answer /health. */
  readyTimeoutS: number;
  /** Where the started servers' logs go (server_mtp<n>.log, or server_<on|off>_mtp<n>.log). */
  logDir: string;
  /** The longest wait, after a cell's last request, for the counters to stop moving (an engine exports them asynchronously). */
  settleMs?: number | undefined;
  /** The longest wait for the next byte of a response. */
  requestTimeoutS?: number | undefined;
  progress?: ((line: string) => void) | undefined;
}

export interface MeasuredCell extends CollectedCell {
  url: string;
  /** Each request's share of the counters, in order. */
  windows: RequestWindow[];
}

/** A cell that cannot be measured (its server did not start or went away): it is N/A, the others go on. */
class CellFailure extends Error {}

const DEFAULT_SETTLE_MS = 10_000;
const SETTLE_POLL_MS = 500;

/** The run's server starts: one per distinct command (or URL), in draft-length order, with the cells each serves. */
function starts(o: AlCollectOptions): { draft: number; mode: ThinkingMode; cells: { mode: ThinkingMode; draft: number }[] }[] {
  const out: { key: string; draft: number; mode: ThinkingMode; cells: { mode: ThinkingMode; draft: number }[] }[] = [];
  for (const draft of o.draftLengths)
    for (const mode of o.modes) {
      const values = { draft, thinking: mode, model: o.model };
      const key = `${o.serve === undefined ? '' : fillTemplate(o.serve, values)}\n${fillTemplate(o.url, values)}`;
      const same = out.find((s) => s.key === key);
      if (same) same.cells.push({ mode, draft });
      else out.push({ key, draft, mode, cells: [{ mode, draft }] });
    }
  return out;
}

const MODE = (m: ThinkingMode): string => (m === 'thinking_on' ? 'on' : 'off');

export async function collectAl(o: AlCollectOptions): Promise<MeasuredCell[]> {
  const say = o.progress ?? (() => {});
  const results: MeasuredCell[] = [];
  const needsPort = o.serve !== undefined && (o.serve.includes('{port}') || o.url.includes('{port}'));
  for (const start of starts(o)) {
    const port = needsPort ? await freePort() : undefined;
    const values = { draft: start.draft, thinking: start.mode, model: o.model, port };
    const url = fillTemplate(o.url, values).replace(/\/+$/, '');
    const failAll = (error: string): void => {
      for (const c of start.cells) {
        say(`${c.mode} draft ${c.draft}: N/A (${error})`);
        results.push({
          mode: c.mode,
          draftLength: c.draft,
          estimate: undefined,
          requests: 0,
          failedRequests: 0,
          error,
          url,
          windows: [],
        });
      }
    };
    let running: RunningProcesses | undefined;
    const name = o.serve?.includes('{thinking}') ? `server_${MODE(start.mode)}_mtp${start.draft}` : `server_mtp${start.draft}`;
    const exited = (): string | undefined => {
      const e = running?.exitOf(name);
      if (!e) return undefined;
      const tail = running!.logTail(name, 600).trim().split('\n').slice(-3).join(' | ');
      return `the server exited (${e.signal ?? `status ${e.code}`}); ${o.logDir}/${name}.log ends: ${tail || '(empty)'}`;
    };
    try {
      if (o.serve !== undefined) {
        const command = fillTemplate(o.serve, values);
        const which = o.serve.includes('{thinking}') ? `${start.mode} draft ${start.draft}` : `draft ${start.draft}`;
        say(`${which}: starting the server: ${command}`);
        running = startProcesses(
          [{ name, role: 'server', host: 'localhost', gpus: [], command: ['sh', '-c', command], env: {} }],
          o.logDir,
        );
        try {
          await waitReady([{ url: `${url}/health` }], {
            attempts: Math.max(1, Math.ceil((o.readyTimeoutS * 1000) / SETTLE_POLL_MS)),
            intervalMs: SETTLE_POLL_MS,
            failed: exited,
          });
        } catch (e) {
          failAll(`server not ready: ${(e as Error).message}`);
          continue;
        }
      }
      for (const c of start.cells) {
        try {
          const gone = exited();
          if (gone) throw new CellFailure(gone);
          const cell = await measureCell(o, url, c.mode, c.draft, say, exited);
          results.push(cell);
          say(`${c.mode} draft ${c.draft}: ${describeCell(cell)}`);
        } catch (e) {
          if (!(e instanceof CellFailure)) throw e;
          say(`${c.mode} draft ${c.draft}: N/A (${e.message})`);
          results.push({
            mode: c.mode,
            draftLength: c.draft,
            estimate: undefined,
            requests: 0,
            failedRequests: 0,
            error: e.message,
            url,
            windows: [],
          });
        }
      }
    } finally {
      await running?.stop();
    }
  }
  return results;
}

/** A measured cell in one line: AL ± half-width, requests, drafts. */
export function describeCell(c: CollectedCell): string {
  if (c.error !== undefined || !c.estimate) return `N/A (${c.error ?? 'no drafts'})`;
  const e = c.estimate;
  const ci = e.half === undefined ? 'no interval: one request' : `±${e.half.toFixed(3)} at ${Math.round(e.level * 100)}%`;
  const failed = c.failedRequests > 0 ? `, ${c.failedRequests} failed` : '';
  return `AL ${e.rounded} (${e.al.toFixed(4)} ${ci}; ${c.requests} requests${failed}, ${e.drafts} drafts)`;
}

async function measureCell(
  o: AlCollectOptions,
  url: string,
  mode: ThinkingMode,
  draft: number,
  say: (line: string) => void,
  exited: () => string | undefined,
): Promise<MeasuredCell> {
  const metrics = `${url}/metrics`;
  const headers = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : undefined;
  const read = (): Promise<SpecDecodeCounters> => scrape(metrics, headers, o.serve !== undefined, exited);
  const first = await read();
  checkDraftLength(url, first, draft, o.serve !== undefined, undefined);
  const client = new Client({
    baseUrl: url,
    path: '/v1/chat/completions',
    chat: true,
    model: o.model,
    apiKey: o.apiKey,
    ignoreEos: false,
    temperature: o.temperature,
    timeoutMs: (o.requestTimeoutS ?? 600) * 1000,
    extraBody: {
      ...(o.topP !== undefined ? { top_p: o.topP } : {}),
      ...(o.kwargs[mode] ? { chat_template_kwargs: o.kwargs[mode] } : {}),
    },
  });
  const windows: RequestWindow[] = [];
  let failed = 0;
  let firstError: string | undefined;
  let previous = first;
  const step = (from: SpecDecodeCounters, to: SpecDecodeCounters): RequestWindow => {
    const w = { accepted: to.acceptedTokens - from.acceptedTokens, drafts: to.drafts - from.drafts };
    if (w.accepted < 0 || w.drafts < 0)
      throw new CellFailure(`the counters at ${metrics} went backwards: the server restarted during the cell`);
    return w;
  };
  try {
    for (const [i, p] of o.prompts.entries()) {
      const r = await client.send({ prompt: p.prompt, promptLen: 0, outputLen: o.outputLen }, 0);
      if (r.error !== undefined) {
        if (/^HTTP 4\d\d/.test(r.error))
          throw new UserError(`${url}/v1/chat/completions refused the request: ${r.error}`, {
            hint: 'check --model (the served model name), --thinking-kwargs and --top-p',
          });
        failed++;
        firstError ??= r.error;
      }
      const now = await read();
      windows.push(step(previous, now));
      previous = now;
      const done = i + 1;
      if (done % 10 === 0 && done < o.prompts.length) say(`${mode} draft ${draft}: ${done}/${o.prompts.length} requests`);
    }
  } finally {
    await client.close();
  }
  // The engine may export the last requests' counts after their responses ended: wait until the counters stop moving.
  const settled = await settle(read, previous, o.settleMs ?? DEFAULT_SETTLE_MS);
  const last = windows.at(-1);
  if (last) {
    const tail = step(previous, settled);
    last.accepted += tail.accepted;
    last.drafts += tail.drafts;
  }
  checkDraftLength(url, settled, draft, o.serve !== undefined, first);
  const base = { mode, draftLength: draft, requests: windows.length, failedRequests: failed, url, windows };
  if (failed === o.prompts.length) return { ...base, estimate: undefined, error: `every request failed (${firstError})` };
  const estimate = estimateAl(windows);
  if (!estimate)
    return {
      ...base,
      estimate,
      error: 'no draft was verified: the requests generated at most one token each (raise --output-len)',
    };
  return { ...base, estimate };
}

/** Read the counters until two reads `SETTLE_POLL_MS` apart agree (at most `ms`). */
async function settle(
  read: () => Promise<SpecDecodeCounters>,
  last: SpecDecodeCounters,
  ms: number,
): Promise<SpecDecodeCounters> {
  const until = Date.now() + ms;
  let previous = last;
  while (Date.now() < until) {
    await sleep(SETTLE_POLL_MS);
    const now = await read();
    if (now.drafts === previous.drafts && now.acceptedTokens === previous.acceptedTokens) return now;
    previous = now;
  }
  return previous;
}

const NO_COUNTERS_HINT =
  'AL is read from the vLLM spec-decode counters of /metrics: start the server with speculative decoding (vLLM: --speculative-config with num_speculative_tokens {draft}; frontier sim serve: --spec-draft-tokens {draft} --spec-acceptance AL)';

/** The spec-decode counters at `url`; a server without them is a configuration error, one that is gone fails the cell. */
async function scrape(
  url: string,
  headers: Record<string, string> | undefined,
  serving: boolean,
  exited: () => string | undefined,
): Promise<SpecDecodeCounters> {
  let text: string;
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    text = await res.text();
    if (res.status !== 200)
      throw new UserError(`${url} answered HTTP ${res.status}`, { hint: `${NO_COUNTERS_HINT}; --api-key if it needs one` });
  } catch (e) {
    if (e instanceof UserError) throw e;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    const gone = exited();
    if (serving || gone) throw new CellFailure(gone ?? `cannot read ${url} (${why})`);
    throw new UserError(`cannot read ${url} (${why})`, {
      hint: 'is the server up at --url? Or let --serve start one per draft length',
    });
  }
  const counters = specDecodeCounters(text);
  if (!counters) throw new UserError(`${url} has no vllm:spec_decode_* counters`, { hint: NO_COUNTERS_HINT });
  return counters;
}

/**
 * The server must run the cell's draft length: vLLM's per-position counter has a series for each
 * draft position (0 … num_speculative_tokens − 1) from the start, and no draft carries more draft
 * tokens than the draft length.
 */
function checkDraftLength(
  url: string,
  c: SpecDecodeCounters,
  draft: number,
  serving: boolean,
  since: SpecDecodeCounters | undefined,
): void {
  const positions = c.acceptedPerPosition.size;
  const drafts = since ? c.drafts - since.drafts : 0;
  const perDraft = since && drafts > 0 ? (c.draftTokens - since.draftTokens) / drafts : undefined;
  const runs =
    positions > 0 && positions !== draft
      ? `${positions} (its per-position counter has positions 0..${positions - 1})`
      : perDraft !== undefined && perDraft > draft + 1e-9
        ? `${perDraft.toFixed(2)} per draft on average`
        : undefined;
  if (runs === undefined) return;
  throw new UserError(`${url}: the server drafts ${runs}, not the cell's ${draft} tokens`, {
    hint: serving
      ? 'does --serve pass {draft} to the engine as num_speculative_tokens?'
      : 'one server runs one draft length: put {draft} in --url to reach one server per draft length, or let --serve start one per draft length',
  });
}
