import type { Trace, TraceEntry, TraceRequest } from './types.js';

/**
 * The request cap of InferenceX's build_weka_hf_dataset.py (`_filter_trace`: the 256k dataset
 * variant, and the base build's `--base-max-isl`): drop every request over a token cap, main
 * turns and subagent requests alike; a subagent goes only when all its requests do. The survivors
 * keep their recorded times, subagent overlap included; when anything was dropped, every time is
 * moved by one offset so the earliest survivor starts at 0, and each subagent's start, duration
 * and (on writing) total tokens are recomputed from its surviving requests. A trace that drops
 * nothing is returned as it was.
 */
export interface CapOptions {
  /** The most tokens a request may have. */
  maxTokens: number;
  /** Count input tokens only (the ISL cap), not input + output (the 256k cap). */
  inputOnly?: boolean;
}

const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** The trace without its requests over the cap, or undefined when none survives. */
export function capTrace(trace: Trace, options: CapOptions): Trace | undefined {
  const over = (r: TraceRequest): boolean => (options.inputOnly ? r.input : r.input + r.output) > options.maxTokens;
  let dropped = false;
  const surviving: TraceEntry[] = [];
  for (const entry of trace.entries) {
    if (entry.kind === 'request') {
      if (over(entry.request)) dropped = true;
      else surviving.push(entry);
      continue;
    }
    const inner = entry.subagent.requests.filter((r) => !over(r));
    if (inner.length !== entry.subagent.requests.length) dropped = true;
    if (inner.length > 0) surviving.push({ kind: 'subagent', subagent: { ...entry.subagent, requests: inner } });
  }
  if (surviving.length === 0) return undefined;
  if (!dropped) return trace;
  const times = surviving.flatMap((e) => (e.kind === 'request' ? [e.request.t] : e.subagent.requests.map((r) => r.t)));
  // Loops, not Math.min(...): a spread of a long trace's times overflows the stack.
  const origin = times.reduce((m, t) => Math.min(m, t), Infinity);
  const entries = surviving.map((e): TraceEntry => {
    if (e.kind === 'request') return { kind: 'request', request: { ...e.request, t: e.request.t - origin } };
    const requests = e.subagent.requests.map((r) => ({ ...r, t: r.t - origin }));
    const first = requests.reduce((m, r) => Math.min(m, r.t), Infinity);
    const lastEnd = requests.reduce((m, r) => Math.max(m, r.t + (r.apiTime ?? 0)), -Infinity);
    // The reference stores whole milliseconds: int(round((last_end - first_t) * 1000)).
    return { kind: 'subagent', subagent: { ...e.subagent, t: first, duration: ms(lastEnd - first), requests } };
  });
  return { ...trace, entries };
}

/** Every trace capped; those left with no request are dropped. */
export function capTraces(traces: readonly Trace[], options: CapOptions): { traces: Trace[]; dropped: number } {
  const kept = traces.map((t) => capTrace(t, options)).filter((t): t is Trace => t !== undefined);
  return { traces: kept, dropped: traces.length - kept.length };
}
