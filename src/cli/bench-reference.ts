import { DEFAULT_REQUEST_DEADLINE_MS } from '../bench/index.js';
import type { BenchOptions, BenchRequest } from '../bench/index.js';
import { UserError } from '../util/user-error.js';
import { processAlive } from '../util/process-alive.js';
import { ExitCode } from '../util/exit-codes.js';

/**
 * What InferenceX's harness does around a run besides sending it: the server's profiler
 * (`benchmark_serving.py --profile`) and watching the server's process (`run_benchmark_serving
 * --server-pid`).
 */

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
): Promise<{ problem: string; hint?: string } | undefined> {
  process.stdout.write(start ? 'Starting profiler...\n' : 'Stopping profiler...\n');
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
      process.stdout.write(start ? 'Profiler started\n' : 'Profiler stopped\n');
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
export function profilerHooks(o: BenchOptions): Pick<BenchOptions, 'beforeMeasure' | 'afterMeasure'> {
  const warn = (path: string, what: string): void => {
    process.stderr.write(`frontier bench: warning: --profile: POST ${o.baseUrl}${path} failed: ${what}\n`);
  };
  let startFailed = false;
  return {
    beforeMeasure: async (first) => {
      const failed = await profileCall(o, first, true);
      startFailed = failed !== undefined;
      if (failed)
        warn(
          '/start_profile',
          `${failed.problem}${failed.hint ? `: ${failed.hint}` : ''}. The run goes on without the profiler, as the reference client’s does.`,
        );
    },
    afterMeasure: async (first) => {
      const failed = await profileCall(o, first, false);
      // Why has been said at the start.
      if (failed)
        warn(
          '/stop_profile',
          `${failed.problem}${failed.hint && !startFailed ? `: ${failed.hint}` : ''}. The profile may be missing or incomplete.`,
        );
    },
  };
}

/**
 * `--server-pid`: as `run_benchmark_serving` does, check every 2 s that the server's process
 * still runs, and when it has gone, stop the run at once with an error (no result: its numbers
 * would describe a dying server). Returns the function that stops watching.
 */
export function watchServer(pid: number): () => void {
  if (!processAlive(pid))
    throw new UserError(
      `--server-pid ${pid}: no such process; give the server's process id (in a script, $! after starting it in the background)`,
    );
  const timer = setInterval(() => {
    if (processAlive(pid)) return;
    clearInterval(timer);
    process.stderr.write(
      `\nfrontier bench: error: server process ${pid} (--server-pid) died during the benchmark; stopped without a result (see the server's log for why)\n`,
    );
    process.exit(ExitCode.FAILED);
  }, 2000);
  timer.unref();
  return () => clearInterval(timer);
}
