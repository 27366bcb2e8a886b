/**
 * Runs the matching of a translated Python regex with a time bound. JavaScript's RegExp
 * backtracks: a pattern such as `^(a+)+$` on 40 characters runs for hours and cannot be
 * interrupted on the thread that runs it, where the process would answer no signal either. So every
 * match walk runs on one worker thread, which the calling thread waits for synchronously
 * (`Atomics.wait`, the answer taken with `receiveMessageOnPort`): past the bound the worker is
 * terminated (V8 interrupts the regex), the next walk starts a new one, and the caller gets a
 * PyRegexTimeoutError. The worker is unref'd, so it never keeps the process alive.
 *
 * The worker's code is the source text of the functions below (`new Worker(source, { eval: true })`),
 * so it runs the same under vitest and in the bundle; those functions use nothing outside their
 * bodies and parameters.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { UserError } from '../util/user-error.js';

/**
 * The longest one match walk (a findall or sub over one text) may run. A task-file regex takes
 * microseconds on a typical reply and at most ~30 ms on a 64 kB one (InferenceX's GSM8K and GPQA
 * regexes, findall and sub); a catastrophic one doubles with every character. 1 s leaves a wide
 * margin for the first on a loaded machine, is short enough that the process answers a signal
 * within about a second, and a task stops at its first timeout, so a hostile regex costs a run ~1 s.
 */
export const PY_REGEX_TIME_LIMIT_MS = 1000;

/**
 * How long a walk waits for the worker to take it up (a new worker's start-up: ~20 ms, seconds
 * on a loaded machine) before the worker is called broken. Not counted in PY_REGEX_TIME_LIMIT_MS.
 */
export const REGEX_WORKER_START_LIMIT_MS = 10_000;

/** A Python regex could not be run to the end on one text (past its time or V8's stack): what it would have matched is unknown. */
export class PyRegexLimitError extends UserError {}

/** A Python regex ran past PY_REGEX_TIME_LIMIT_MS on one text. */
export class PyRegexTimeoutError extends PyRegexLimitError {
  constructor(
    readonly pattern: string,
    readonly textLength: number,
  ) {
    super(
      `Python regex /${pattern}/ did not finish within ${PY_REGEX_TIME_LIMIT_MS} ms (PY_REGEX_TIME_LIMIT_MS) on a ` +
        `${textLength}-character text`,
      {
        hint: 'rewrite the pattern so that it cannot backtrack without end: no repetition of a repetition such as (a+)+ or (a|a)*',
      },
    );
  }
}

/** A match as the worker sends it: [index, whole match, group 1, …] (undefined: the group did not take part). */
export type RawMatch = [number, string, ...(string | undefined)[]];

/** One walk: the translation, its flags, whether an empty match may come before a longer one there, the group names. */
export interface MatchRequest {
  js: string;
  flags: string;
  mayPreferEmpty: boolean;
  names: readonly string[];
  text: string;
}

type MatchReply = { matches: RawMatch[] } | { error: { name: string; message: string } };

/** The shared state word: the caller sets WAITING before posting, the worker RUNNING when it starts, DONE with its reply posted. */
const STATE = { WAITING: 0, RUNNING: 1, DONE: 2 } as const;

/**
 * Every match of the pattern in the text, as `_sre` walks them for findall and sub: an empty match
 * may follow a non-empty one; after an empty match the next one must not be empty at the same place.
 * Runs in the worker from its source.
 */
function walkMatches(search: RegExp, nonEmpty: RegExp | undefined, names: readonly string[], s: string): RawMatch[] {
  const out: RawMatch[] = [];
  let pos = 0;
  let mustAdvance = false;
  while (pos <= s.length) {
    let m: RegExpExecArray | null = null;
    if (mustAdvance) {
      if (nonEmpty) {
        nonEmpty.lastIndex = pos;
        m = nonEmpty.exec(s);
      }
      if (!m) {
        const next = pos + ((s.codePointAt(pos) ?? 0) > 0xffff ? 2 : 1);
        if (next > s.length) break;
        search.lastIndex = next;
      }
    } else search.lastIndex = pos;
    m ??= search.exec(s);
    if (!m) break;
    const groups = m.groups;
    out.push([m.index, m[0], ...names.slice(1).map((name) => groups?.[name])]);
    mustAdvance = m[0].length === 0;
    pos = m.index + m[0].length;
  }
  return out;
}

/** The worker's body: answers each request on its port, with the state word set around the walk. Runs in the worker from its source. */
function serveMatches(
  threads: typeof import('node:worker_threads'),
  walk: typeof walkMatches,
  state: typeof STATE,
  burstMs: number,
): void {
  const { port, word } = threads.workerData as { port: MessagePort; word: Int32Array };
  const compiled = new Map<string, [RegExp, RegExp | undefined]>();
  const serve = (r: MatchRequest): void => {
    Atomics.store(word, 0, state.RUNNING);
    Atomics.notify(word, 0);
    let reply: MatchReply;
    try {
      const key = `${r.flags} ${r.mayPreferEmpty} ${r.js}`;
      let pair = compiled.get(key);
      if (!pair) {
        // Group 1 holds the rest of the input where the match starts; the match is empty iff that rest follows it.
        // Costs a scan to the end at each try, so only where it can find something.
        const nonEmpty = r.mayPreferEmpty ? new RegExp(`(?=([^]*))(?:${r.js})(?!\\1)`, `${r.flags}y`) : undefined;
        pair = [new RegExp(r.js, `${r.flags}g`), nonEmpty];
        compiled.set(key, pair);
      }
      reply = { matches: walk(pair[0], pair[1], r.names, r.text) };
    } catch (e) {
      reply = { error: { name: (e as Error).name, message: (e as Error).message } };
    }
    port.postMessage(reply);
    Atomics.store(word, 0, state.DONE);
    Atomics.notify(word, 0);
  };
  // Scoring asks in bursts: the next request is taken straight off the port for a while after
  // each answer, saving the thread's wake-up (~0.1 ms, more than most walks take).
  port.on('message', (r: MatchRequest) => {
    serve(r);
    for (let until = performance.now() + burstMs; performance.now() < until;) {
      const next = threads.receiveMessageOnPort(port);
      if (next) {
        serve(next.message as MatchRequest);
        until = performance.now() + burstMs;
      }
    }
  });
}

/**
 * How long each side polls before it sleeps: a walk usually takes microseconds, a wake-up ~0.1 ms.
 * Only with a second CPU to poll on: on one (taskset, a container's quota of one), the poller
 * would hold the CPU the other side needs, and each burst would stall the caller's event loop
 * (the eval client at conc 64 took 74% longer than the server's time, against ~5% without).
 */
const CAN_POLL = availableParallelism() > 1;
const WORKER_POLL_MS = CAN_POLL ? 2 : 0;
const CALLER_POLL_MS = CAN_POLL ? 0.2 : 0;

const WORKER_SOURCE = `(${serveMatches.toString()})(require('node:worker_threads'), ${walkMatches.toString()}, ${JSON.stringify(STATE)}, ${WORKER_POLL_MS});`;

interface RegexWorker {
  worker: Worker;
  port: MessagePort;
  word: Int32Array;
}

let current: RegexWorker | undefined;

function regexWorker(): RegexWorker {
  if (current) return current;
  const { port1, port2 } = new MessageChannel();
  const word = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, word }, transferList: [port2] });
  worker.unref();
  const started: RegexWorker = { worker, port: port1, word };
  // A worker that dies on its own (out of memory) is replaced at the next walk.
  worker.on('error', () => stop(started));
  current = started;
  return started;
}

function stop(w: RegexWorker): void {
  if (current === w) current = undefined;
  w.port.close();
  void w.worker.terminate();
}

/**
 * Whether the state word leaves `value` within `ms`. A wake-up can be a notify meant for the
 * previous state (the worker stores, then notifies), so the word itself is checked until the deadline.
 */
function leavesWithin(word: Int32Array, value: number, ms: number): boolean {
  const deadline = performance.now() + ms;
  for (const poll = performance.now() + CALLER_POLL_MS; performance.now() < poll;)
    if (Atomics.load(word, 0) !== value) return true;
  for (;;) {
    if (Atomics.load(word, 0) !== value) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(word, 0, value, left);
  }
}

/** The matches of one walk, computed on the regex worker within PY_REGEX_TIME_LIMIT_MS; `pattern` names the regex in the error. */
export function boundedMatches(request: MatchRequest, pattern: string): RawMatch[] {
  const w = regexWorker();
  Atomics.store(w.word, 0, STATE.WAITING);
  w.port.postMessage(request);
  if (!leavesWithin(w.word, STATE.WAITING, REGEX_WORKER_START_LIMIT_MS)) {
    stop(w);
    throw new Error(`the regex worker did not start within ${REGEX_WORKER_START_LIMIT_MS} ms (REGEX_WORKER_START_LIMIT_MS)`);
  }
  if (!leavesWithin(w.word, STATE.RUNNING, PY_REGEX_TIME_LIMIT_MS)) {
    stop(w);
    throw new PyRegexTimeoutError(pattern, request.text.length);
  }
  const reply = receiveMessageOnPort(w.port)?.message as MatchReply | undefined;
  if (!reply) throw new Error('the regex worker finished without a reply (a bug)');
  if ('error' in reply) {
    // V8's backtracking stack has a fixed size: a long enough text overflows it (~10 MB for `^(a|b)*$`).
    if (reply.error.name === 'RangeError')
      throw new PyRegexLimitError(
        `Python regex /${pattern}/ ran out of V8's regex stack (${reply.error.message}) on a ${request.text.length}-character text`,
        {
          hint: 'match a shorter text (extract the answer first) or a pattern that repeats single characters, such as [ab]* for (a|b)*',
        },
      );
    throw Object.assign(new Error(reply.error.message), { name: reply.error.name });
  }
  return reply.matches;
}
