import { UserError } from '../../util/user-error.js';

/**
 * What AIPerf's `aiperf profile` becomes under the stand-ins: `frontier bench --trace` with the same
 * command line (it takes AIPerf's flag names and refuses unknown ones by name), the public dataset
 * replaced by the local corpus the run replays ($FRONTIER_AGENTIC_TRACES), and the AIPerf
 * environment switches InferenceX's scripts set as the flags that mean the same.
 */

/** AIPerf settings InferenceX's benchmark_lib.sh passes through the environment, and their flags. */
const ENV_SWITCHES: readonly { variable: string; on: readonly string[]; flag: string }[] = [
  { variable: 'AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES', on: ['1', 'true'], flag: '--live-assistant' },
  { variable: 'AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID', on: ['1', 'true'], flag: '--dynamo-session-header' },
];

/** `aiperf ARGS…` as `frontier bench` arguments. */
export function aiperfBenchArgs(args: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const [command, ...rest] = args;
  if (command !== 'profile')
    throw new UserError(`aiperf ${command ?? ''}: the stand-in runs \`aiperf profile\` only (as frontier bench --trace)`);
  const out: string[] = [];
  let dataset: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--public-dataset') dataset = rest[++i];
    else if (a.startsWith('--public-dataset=')) dataset = a.slice('--public-dataset='.length);
    else out.push(a);
  }
  if (dataset === undefined)
    throw new UserError('aiperf profile: no --public-dataset', {
      hint: "the stand-in replays the run's corpus in place of an AIPerf public dataset; other AIPerf inputs are not supported",
    });
  const traces = env.FRONTIER_AGENTIC_TRACES;
  if (!traces)
    throw new UserError(`aiperf profile --public-dataset ${dataset}: no local corpus to replay in its place`, {
      hint: 'give frontier run --traces FILE (frontier traces synth makes one)',
    });
  const switches = ENV_SWITCHES.filter((s) => s.on.includes(env[s.variable] ?? '')).map((s) => s.flag);
  return ['--trace', traces, ...out, ...switches];
}
