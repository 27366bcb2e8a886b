import { DEFAULT_REQUEST_DEADLINE_MS } from './client.js';
import type { BenchRequest } from './dataset.js';
import type { BenchOptions } from './run.js';

/**
 * The server's profiler around the measured requests, as `benchmark_serving.py --profile` drives
 * it. `ProfilerLog` takes its progress lines (as the reference prints them) and its warnings.
 */
export interface ProfilerLog {
  info(line: string): void;
  warn(line: string): void;
}

/** The reference's `extra_body` of its /start_profile request (SGLang reads these; vLLM ignores the body). */
const START_PROFILE_EXTRA = { num_steps: 1, merge_profiles: true, profile_by_stage: true } as const;

/**
 * The body the reference posts to /start_profile and /stop_profile: its completions request for
 * the first prompt (the reference's request function does not care which URL it posts to), with
 * `START_PROFILE_EXTRA` and `ignore_eos` on the start only, as it builds them.
 */
function profileBody(o: BenchOptions, first: BenchRequest | undefined, start: boolean): Record<string, unknown> {
  return {
    model: o.model,
    prompt: first?.prompt ?? '',
    temperature: o.temperature,
    best_of: o.bestOf ?? 1,
    max_tokens: first?.outputLen ?? 1,
    logprobs: o.logprobs ?? null,
    stream: true,
    stream_options: { include_usage: true },
    ...(start && o.ignoreEos ? { ignore_eos: true } : {}),
    ...(start ? START_PROFILE_EXTRA : {}),
  };
}

/** POST one profiler request: undefined when it succeeded, else what went wrong (and what that means). */
async function profileCall(
  o: BenchOptions,
  first: BenchRequest | undefined,
  start: boolean,
  log: ProfilerLog,
): Promise<{ problem: string; hint?: string } | undefined> {
  log.info(start ? 'Starting profiler...' : 'Stopping profiler...');
  try {
    const res = await fetch(`${o.baseUrl}${start ? '/start_profile' : '/stop_profile'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
      body: JSON.stringify(profileBody(o, first, start)),
      // Stopping writes the traces out, which can take minutes on a real engine.
      signal: AbortSignal.timeout(o.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS),
    });
    const text = (await res.text()).trim();
    if (res.ok) {
      log.info(start ? 'Profiler started' : 'Profiler stopped');
      return undefined;
    }
    if (res.status === 404 || res.status === 405)
      return {
        problem: `HTTP ${res.status}`,
        hint: 'the server has no profiler endpoints. vLLM serves /start_profile and /stop_profile only when started with VLLM_TORCH_PROFILER_DIR set (recent releases: --profiler-config); SGLang serves them always',
      };
    return { problem: `HTTP ${res.status}${text ? ` (${text.slice(0, 200)})` : ''}` };
  } catch (e) {
    const cause = (e as Error & { cause?: NodeJS.ErrnoException }).cause;
    return { problem: `could not reach the server (${cause?.code ?? cause?.message ?? (e as Error).message})` };
  }
}

/**
 * `--profile`: the profiler started after the warmups and stopped after the last measured request.
 * A failure is a warning and the run goes on, as the reference's does; the stop is sent even when
 * the start failed, as there.
 */
export function profilerHooks(o: BenchOptions, log: ProfilerLog): Pick<BenchOptions, 'beforeMeasure' | 'afterMeasure'> {
  const warn = (path: string, what: string): void => log.warn(`--profile: POST ${o.baseUrl}${path} failed: ${what}`);
  let startFailed = false;
  return {
    beforeMeasure: async (first) => {
      const failed = await profileCall(o, first, true, log);
      startFailed = failed !== undefined;
      if (failed)
        warn(
          '/start_profile',
          `${failed.problem}${failed.hint ? `: ${failed.hint}` : ''}. The run goes on without the profiler, as the reference client’s does.`,
        );
    },
    afterMeasure: async (first) => {
      const failed = await profileCall(o, first, false, log);
      // Why has been said at the start.
      if (failed)
        warn(
          '/stop_profile',
          `${failed.problem}${failed.hint && !startFailed ? `: ${failed.hint}` : ''}. The profile may be missing or incomplete.`,
        );
    },
  };
}
