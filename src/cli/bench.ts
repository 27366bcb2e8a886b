import { isAbsolute, join } from 'node:path';
import { DEFAULT_REQUEST_DEADLINE_MS, DSV4_WITHOUT_CHAT_TEMPLATE, METRICS, runBench } from '../bench/index.js';
import type { BenchOptions, BenchReport, Metric } from '../bench/index.js';
import { UsageError, formatHelp, parseArgs } from './argparse.js';
import type { ArgSpec, ParsedArgs, ParserSpec } from './argparse.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { commaList } from './options.js';
import { canTokenize, firstServedModel } from '../bench/server-probe.js';
import { isTraceBench, runTraceBenchCommand } from './bench-trace.js';
import { clockAnchorFromEnv } from '../util/virtual-clock.js';
import { profilerHooks } from '../bench/profiler.js';
import { watchProcess } from '../bench/server-watch.js';
import { ExitCode } from '../util/exit-codes.js';
import { processAlive } from '../util/process-alive.js';
import { UserError } from '../util/user-error.js';
import { userPath } from './paths.js';

/**
 * `frontier bench`: the reference client's command line (InferenceX's `benchmark_serving.py`
 * invocation) accepted as-is, plus Frontier's own spellings. A reference flag either works as
 * there, or is refused with the reason; the few that mean nothing here say why in their help.
 */
const ARGS: ArgSpec[] = [
  {
    flags: ['--backend'],
    dest: 'backend',
    kind: 'one',
    default: 'vllm',
    help: 'Server API flavour: openai-chat uses /v1/chat/completions, the rest /v1/completions.',
  },
  {
    flags: ['--base-url'],
    dest: 'base_url',
    kind: 'one',
    help: 'Server URL, e.g. http://127.0.0.1:8000 (default: http://HOST:PORT).',
  },
  { flags: ['--host'], dest: 'host', kind: 'one', default: '127.0.0.1', help: 'Server host (without --base-url).' },
  { flags: ['--port'], dest: 'port', kind: 'one', type: 'int', default: 8000, help: 'Server port (without --base-url).' },
  {
    flags: ['--endpoint'],
    dest: 'endpoint',
    kind: 'one',
    default: '/v1/completions',
    help: 'completions, chat, or an API path (/v1/completions, /v1/chat/completions).',
  },
  {
    flags: ['--model'],
    dest: 'model',
    kind: 'one',
    help: "The served model's name (default: the first of the server's /v1/models).",
  },
  {
    flags: ['--served-model-name'],
    dest: 'served_model_name',
    kind: 'one',
    help: 'The model name to send, when it differs from --model.',
  },
  {
    flags: ['--tokenizer'],
    dest: 'tokenizer',
    kind: 'one',
    help: "gpt2, server (the server's /tokenize), or a tokenizer.json (or its folder). Default: server when it can tokenize, else gpt2.",
  },
  {
    flags: ['--dataset-name'],
    dest: 'dataset_name',
    kind: 'one',
    choices: ['random', 'jsonl'],
    default: 'random',
    help: 'random (the reference dataset) or jsonl (--dataset-path).',
  },
  {
    flags: ['--dataset-path'],
    dest: 'dataset_path',
    kind: 'one',
    type: 'path',
    help: 'JSONL of prompts: strings, or {"prompt", "output_len"} objects.',
  },
  {
    flags: ['--random-input-len', '--isl'],
    dest: 'isl',
    kind: 'one',
    type: 'int',
    default: 1024,
    help: 'Input tokens per prompt (upper end of the range).',
  },
  {
    flags: ['--random-output-len', '--osl'],
    dest: 'osl',
    kind: 'one',
    type: 'int',
    default: 128,
    help: 'Output tokens per request (upper end of the range).',
  },
  {
    flags: ['--random-range-ratio', '--range-ratio'],
    dest: 'range_ratio',
    kind: 'one',
    type: 'float',
    default: 0.8,
    help: 'Lengths are uniform in [floor(L*r), L].',
  },
  {
    flags: ['--random-prefix-len'],
    dest: 'prefix_len',
    kind: 'one',
    type: 'int',
    default: 0,
    help: 'Random tokens shared by every prompt.',
  },
  {
    flags: ['--num-prompts'],
    dest: 'num_prompts',
    kind: 'one',
    type: 'int',
    help: 'Requests to measure (default: 10 × --max-concurrency, else 1000).',
  },
  {
    flags: ['--max-concurrency'],
    dest: 'max_concurrency',
    kind: 'one',
    type: 'int',
    help: 'Most requests in flight (closed loop with --request-rate inf).',
  },
  {
    flags: ['--request-rate'],
    dest: 'request_rate',
    kind: 'one',
    type: 'float',
    default: Infinity,
    help: 'Requests per second (open loop); inf sends all at once, bounded by --max-concurrency.',
  },
  {
    flags: ['--burstiness'],
    dest: 'burstiness',
    kind: 'one',
    type: 'float',
    default: 1,
    help: 'Gamma shape of the arrival gaps (1: Poisson).',
  },
  {
    flags: ['--num-warmups'],
    dest: 'num_warmups',
    kind: 'one',
    type: 'int',
    help: 'Unmeasured copies of the first request (default: 2 × --max-concurrency, else 0).',
  },
  {
    flags: ['--seed'],
    dest: 'seed',
    kind: 'one',
    type: 'int',
    default: 0,
    help: 'Seed of the dataset and the arrival schedule.',
  },
  { flags: ['--ignore-eos'], dest: 'ignore_eos', kind: 'flag', help: 'Ask the server to generate every requested token.' },
  {
    flags: ['--temperature'],
    dest: 'temperature',
    kind: 'one',
    type: 'float',
    default: 0,
    help: 'Sampling temperature sent (default 0, as the reference).',
  },
  {
    flags: ['--use-chat-template'],
    dest: 'use_chat_template',
    kind: 'flag',
    help: "Render prompts with the tokenizer's chat template (ChatML for gpt2) client-side.",
  },
  {
    flags: ['--dsv4'],
    dest: 'dsv4',
    kind: 'flag',
    help: "With --use-chat-template: frame prompts with DeepSeek-V4's encoder (the reference's encoding_dsv4.py, thinking mode) instead of the tokenizer's template.",
  },
  {
    flags: ['--percentile-metrics'],
    dest: 'percentile_metrics',
    kind: 'one',
    default: 'ttft,tpot,itl',
    help: 'Comma-separated metrics to summarise: ttft, tpot, itl, e2el.',
  },
  {
    flags: ['--metric-percentiles'],
    dest: 'metric_percentiles',
    kind: 'one',
    default: '99',
    help: 'Comma-separated percentiles, e.g. 90,99,99.9.',
  },
  {
    flags: ['--goodput'],
    dest: 'goodput',
    kind: 'many',
    help: 'SLOs as KEY:MS (ttft, tpot, e2el); a request is good when it meets all.',
  },
  { flags: ['--save-result'], dest: 'save_result', kind: 'flag', help: 'Write the result JSON.' },
  {
    flags: ['--save-detailed'],
    dest: 'save_detailed',
    kind: 'flag',
    help: 'Add per-request ttfts, itls, generated_texts and errors.',
  },
  { flags: ['--result-dir'], dest: 'result_dir', kind: 'one', type: 'path', help: 'Folder of the result file.' },
  { flags: ['--result-filename'], dest: 'result_filename', kind: 'one', help: 'Name of the result file.' },
  {
    flags: ['--result-file'],
    dest: 'result_file',
    kind: 'one',
    type: 'path',
    help: 'Path of the result file (implies --save-result).',
  },
  { flags: ['--metadata'], dest: 'metadata', kind: 'many', help: 'KEY=VALUE pairs added to the result.' },
  { flags: ['--api-key'], dest: 'api_key', kind: 'one', help: 'Bearer token (default: $OPENAI_API_KEY).' },
  {
    flags: ['--time-scale'],
    dest: 'time_scale',
    kind: 'one',
    type: 'float',
    default: 1,
    help: 'Multiply measured times by this (a simulator running k× faster than real time: k); rates are in its time.',
  },
  {
    flags: ['--max-failure-rate'],
    dest: 'max_failure_rate',
    kind: 'one',
    type: 'float',
    default: 0.05,
    help: 'Largest share of failed requests for a valid run (default 0.05).',
  },
  {
    flags: ['--expected-acceptance-length'],
    dest: 'expected_acceptance_length',
    kind: 'one',
    type: 'float',
    help: "The speculative-decoding acceptance length the server should reach (a golden AL): the run is invalid when the measured one (from the server's vLLM spec-decode counters) is far from it.",
  },
  {
    flags: ['--spec-decode-metrics-url'],
    dest: 'spec_decode_metrics_url',
    kind: 'many',
    help: 'Where to read the speculative-decoding counters (default: BASE_URL/metrics): the /metrics of each decoding server behind a router, summed.',
  },
  {
    flags: ['--timeout'],
    dest: 'timeout',
    kind: 'one',
    type: 'float',
    default: 21600,
    help: 'Seconds to wait for the next byte of a response: an idle timeout (default 6 h).',
  },
  {
    flags: ['--request-deadline'],
    dest: 'request_deadline',
    kind: 'one',
    type: 'float',
    default: DEFAULT_REQUEST_DEADLINE_MS / 1000,
    help: 'Seconds a request may take in all, however steadily the server sends (default 6 h, the reference client’s total timeout).',
  },
  {
    flags: ['--tokenizer-mode'],
    dest: 'tokenizer_mode',
    kind: 'one',
    choices: ['auto', 'slow', 'mistral', 'custom', 'deepseek_v4'],
    default: 'auto',
    help: "The reference's tokenizer loader. auto is what Frontier does; deepseek_v4 tokenizes the same (its chat template is --dsv4's); slow, mistral and custom are Python-only and refused (use --tokenizer server).",
  },
  {
    flags: ['--trust-remote-code'],
    dest: 'trust_remote_code',
    kind: 'flag',
    help: 'No effect: it lets the Python client run tokenizer code from the model repository; Frontier runs none (it reads tokenizer.json, or the server tokenizes).',
  },
  {
    flags: ['--best-of'],
    dest: 'best_of',
    kind: 'one',
    type: 'int',
    help: 'Sent as best_of in each completions request, and recorded in the result (default 1). Not with chat.',
  },
  {
    flags: ['--logprobs'],
    dest: 'logprobs',
    kind: 'one',
    type: 'int',
    help: 'Sent as logprobs (log-probabilities per token to return) in each completions request. Not with chat.',
  },
  { flags: ['--disable-tqdm'], dest: 'disable_tqdm', kind: 'flag', help: 'No progress line on the terminal.' },
  {
    flags: ['--random-num-workers'],
    dest: 'random_num_workers',
    kind: 'one',
    type: 'int',
    help: 'No effect: the Python processes the reference builds random prompts with, for speed; Frontier builds them in-process, and the prompts do not depend on it.',
  },
  {
    flags: ['--server-pid'],
    dest: 'server_pid',
    kind: 'one',
    type: 'int',
    help: "The server's process id: if it exits during the run, stop with an error (as InferenceX's run_benchmark_serving does).",
  },
  {
    flags: ['--profile'],
    dest: 'profile',
    kind: 'flag',
    help: 'POST /start_profile after the warmups and /stop_profile after the run (vLLM serves them only with VLLM_TORCH_PROFILER_DIR set).',
  },
  { flags: ['-h', '--help'], dest: 'help', kind: 'flag', help: 'Show this help message and exit.' },
];

const SPEC: ParserSpec = {
  prog: 'frontier bench',
  description:
    "Benchmark an OpenAI-compatible server with the reference client's workload and metrics (drop-in for benchmark_serving.py).",
  args: ARGS,
};

function parseList<T>(value: string, item: (s: string) => T, what: string): T[] {
  return commaList(value).map((s) => {
    try {
      return item(s);
    } catch {
      throw new UsageError(SPEC, `${what}: invalid value '${s}'`);
    }
  });
}

/** What `frontier bench`'s command line asks for. */
export interface BenchArgs {
  options: BenchOptions;
  out: string | undefined;
  metadata: Record<string, string>;
  /** Show the progress line on a terminal (not with --disable-tqdm). */
  progress: boolean;
  serverPid: number | undefined;
}

/** Parse argv into run options; flag problems are usage errors (exit 2), as argparse does. */
export async function benchOptions(argv: string[]): Promise<BenchArgs | undefined> {
  const a = parseArgs(SPEC, argv);
  if (a.help) {
    process.stdout.write(formatHelp(SPEC));
    return undefined;
  }
  if (a.dsv4 && !a.use_chat_template) throw new UsageError(SPEC, DSV4_WITHOUT_CHAT_TEMPLATE);
  const baseUrl = ((a.base_url as string | undefined) ?? `http://${a.host as string}:${a.port as number}`).replace(/\/+$/, '');
  const endpoint = a.endpoint as string;
  const path = endpoint === 'completions' ? '/v1/completions' : endpoint === 'chat' ? '/v1/chat/completions' : endpoint;
  const chat = a.backend === 'openai-chat' || path.includes('chat');
  checkCompletionsOnly(a, chat);
  checkTokenizerMode(a);
  const serverPid = a.server_pid as number | undefined;
  if (serverPid !== undefined && serverPid <= 0)
    throw new UsageError(SPEC, `argument --server-pid: must be a process id (> 0), got ${serverPid}`);
  const apiKey = (a.api_key as string | undefined) ?? process.env.OPENAI_API_KEY;
  const model =
    (a.served_model_name as string | undefined) ??
    (a.model as string | undefined) ??
    (await firstServedModel(baseUrl, apiKey)).id;
  const measured = measuredOptions(a);
  const metadata = parseMetadata(a);
  if ((a.dataset_name as string) === 'jsonl' && !a.dataset_path)
    throw new UsageError(SPEC, 'argument --dataset-path: required with --dataset-name jsonl');
  let tokenizer = a.tokenizer as string | undefined;
  if (tokenizer !== undefined && tokenizer !== 'gpt2' && tokenizer !== 'server') tokenizer = userPath(tokenizer);
  if (!tokenizer) tokenizer = (await canTokenize(baseUrl, model, apiKey)) ? 'server' : 'gpt2';
  const options = runOptions(a, { baseUrl, path, chat, model, apiKey, tokenizer, ...measured });
  if (a.profile) Object.assign(options, profilerHooks(options, PROFILER_LOG));
  return { options, out: resultFile(a, options), metadata, progress: !a.disable_tqdm, serverPid };
}

/** --best-of and --logprobs: in range, and only with the completions API (as the reference sends them). */
function checkCompletionsOnly(a: ParsedArgs, chat: boolean): void {
  for (const [flag, value, min] of [
    ['--best-of', a.best_of as number | undefined, 1],
    ['--logprobs', a.logprobs as number | undefined, 0],
  ] as const) {
    if (value === undefined) continue;
    if (value < min) throw new UsageError(SPEC, `argument ${flag}: must be an integer >= ${min}, got ${value}`);
    if (chat)
      throw new UsageError(
        SPEC,
        `argument ${flag}: the reference client sends it only to the completions API (with chat it drops it); drop ${flag}, or bench /v1/completions (--endpoint completions, without --backend openai-chat)`,
      );
  }
}

/** --tokenizer-mode: the modes only Python has are refused; deepseek_v4's template is --dsv4's. */
function checkTokenizerMode(a: ParsedArgs): void {
  const tokenizerMode = a.tokenizer_mode as string;
  const pythonOnly: Record<string, string> = {
    slow: "transformers' slow tokenizer",
    mistral: "mistral_common's tokenizer",
    custom: "a tokenizer registered in vLLM's Python process",
  };
  if (pythonOnly[tokenizerMode])
    throw new UsageError(
      SPEC,
      `argument --tokenizer-mode: ${tokenizerMode} loads ${pythonOnly[tokenizerMode]}, which only Python has; Frontier tokenizes with a tokenizer.json, gpt2 or the server's /tokenize. Drop --tokenizer-mode, and pass --tokenizer server to count with the server's own tokenizer`,
    );
  if (tokenizerMode === 'deepseek_v4' && a.use_chat_template && !a.dsv4)
    throw new UsageError(
      SPEC,
      'argument --tokenizer-mode: deepseek_v4 with --use-chat-template renders prompts with the DeepSeek-V4 template; add --dsv4, which renders that template here',
    );
}

/** What is measured and how it is judged: the metrics and percentiles, goodput SLOs, time scale, expected AL, timeouts. */
function measuredOptions(a: ParsedArgs): {
  metrics: Metric[];
  percentiles: number[];
  goodput: Record<string, number>;
  expectedAl: number | undefined;
} {
  const metrics = parseList(
    (a.percentile_metrics as string).toLowerCase(),
    (m) => {
      if (!(METRICS as readonly string[]).includes(m)) throw new Error();
      return m as Metric;
    },
    'argument --percentile-metrics',
  );
  const percentiles = parseList(
    a.metric_percentiles as string,
    (p) => {
      const n = Number(p);
      if (p === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new Error();
      return n;
    },
    'argument --metric-percentiles',
  );
  const goodput: Record<string, number> = {};
  for (const pair of (a.goodput as string[] | undefined) ?? []) {
    const [key, value] = pair.split(':');
    if (!key || !['ttft', 'tpot', 'e2el'].includes(key) || value === undefined || !(Number(value) >= 0)) {
      throw new UsageError(SPEC, `argument --goodput: invalid SLO '${pair}' (expected ttft:MS, tpot:MS or e2el:MS)`);
    }
    goodput[key] = Number(value);
  }
  if (!((a.time_scale as number) > 0)) throw new UsageError(SPEC, 'argument --time-scale: must be > 0');
  const expectedAl = a.expected_acceptance_length as number | undefined;
  if (expectedAl !== undefined && !(expectedAl >= 1))
    throw new UsageError(SPEC, `argument --expected-acceptance-length: must be ≥ 1 (the bonus token counts), got ${expectedAl}`);
  for (const [flag, dest] of [
    ['--timeout', 'timeout'],
    ['--request-deadline', 'request_deadline'],
  ] as const)
    if (!((a[dest] as number) > 0))
      throw new UsageError(SPEC, `argument ${flag}: must be a number of seconds > 0, got ${String(a[dest])}`);
  return { metrics, percentiles, goodput, expectedAl };
}

/** --metadata KEY=VALUE pairs, added to the result. */
function parseMetadata(a: ParsedArgs): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of (a.metadata as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(SPEC, `argument --metadata: expected KEY=VALUE, got '${pair}'`);
    metadata[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return metadata;
}

function runOptions(
  a: ParsedArgs,
  o: Pick<BenchOptions, 'baseUrl' | 'path' | 'chat' | 'model' | 'apiKey' | 'tokenizer'> & ReturnType<typeof measuredOptions>,
): BenchOptions {
  const concurrency = a.max_concurrency as number | undefined;
  const numPrompts = (a.num_prompts as number | undefined) ?? (concurrency ? 10 * concurrency : 1000);
  return {
    baseUrl: o.baseUrl,
    path: o.path,
    chat: o.chat,
    model: o.model,
    apiKey: o.apiKey,
    ignoreEos: a.ignore_eos as boolean,
    bestOf: a.best_of as number | undefined,
    logprobs: a.logprobs as number | undefined,
    temperature: a.temperature as number,
    timeoutMs: (a.timeout as number) * 1000,
    requestDeadlineMs: (a.request_deadline as number) * 1000,
    concurrency,
    requestRate: a.request_rate as number,
    burstiness: a.burstiness as number,
    seed: a.seed as number,
    percentileMetrics: o.metrics,
    percentiles: o.percentiles,
    goodput: Object.keys(o.goodput).length > 0 ? o.goodput : undefined,
    backend: a.backend as string,
    tokenizer: o.tokenizer,
    dataset:
      (a.dataset_name as string) === 'jsonl'
        ? {
            kind: 'file',
            path: a.dataset_path as string,
            numPrompts: a.num_prompts as number | undefined,
            outputLen: a.osl as number,
          }
        : {
            kind: 'random',
            numPrompts,
            inputLen: a.isl as number,
            outputLen: a.osl as number,
            rangeRatio: a.range_ratio as number,
            prefixLen: a.prefix_len as number,
          },
    useChatTemplate: a.use_chat_template as boolean,
    dsv4: a.dsv4 as boolean,
    warmups: (a.num_warmups as number | undefined) ?? (concurrency ? 2 * concurrency : 0),
    maxFailureRate: a.max_failure_rate as number,
    expectedAcceptanceLength: o.expectedAl,
    specDecodeMetricsUrls: a.spec_decode_metrics_url as string[] | undefined,
    saveDetailed: a.save_detailed as boolean,
    timeScale: a.time_scale as number,
    clockAnchorMs: clockAnchorFromEnv(),
  };
}

/** Where the result goes: --result-file, else --result-dir/--result-filename (the reference's default name); none without --save-result. */
function resultFile(a: ParsedArgs, options: BenchOptions): string | undefined {
  const resultFile = a.result_file as string | undefined;
  const save = Boolean(a.save_result) || resultFile !== undefined;
  const name =
    (a.result_filename as string | undefined) ??
    `${options.backend}-${Number.isFinite(options.requestRate) ? options.requestRate : 'inf'}qps-concurrency${options.concurrency ?? 'none'}-${options.model.split('/').pop()}.json`;
  // As Python's os.path.join (the reference client's): an absolute file name ignores --result-dir.
  const dir = (a.result_dir as string | undefined) ?? '.';
  return save ? (resultFile ?? (isAbsolute(name) ? name : join(dir, name))) : undefined;
}

const line = (label: string, value: string | number): string =>
  `${label.padEnd(40)}${typeof value === 'number' ? value.toFixed(2).padStart(10) : value.padStart(10)}`;

/** The reference's end-of-run table, plus Frontier's verdict. */
export function formatReport(report: BenchReport): string {
  const r = report.result;
  const out = [
    '============ Serving Benchmark Result ============',
    line('Successful requests:', String(r.completed)),
    line('Failed requests:', String(report.metrics.failed)),
    line('Benchmark duration (s):', r.duration as number),
    line('Total input tokens:', String(r.total_input_tokens)),
    line('Total generated tokens:', String(r.total_output_tokens)),
    line('Request throughput (req/s):', r.request_throughput as number),
  ];
  if (r['request_goodput:'] !== null) out.push(line('Request goodput (req/s):', r['request_goodput:'] as number));
  out.push(
    line('Output token throughput (tok/s):', r.output_throughput as number),
    line('Total Token throughput (tok/s):', r.total_token_throughput as number),
  );
  const titles: Record<string, string> = {
    ttft: 'Time to First Token',
    tpot: 'Time per Output Token (excl. 1st token)',
    itl: 'Inter-token Latency',
    e2el: 'End-to-end Latency',
  };
  for (const metric of METRICS) {
    if (!(`mean_${metric}_ms` in r)) continue;
    out.push(
      `${'-'.repeat(Math.floor((50 - titles[metric]!.length - 2) / 2))} ${titles[metric]} ${'-'.repeat(Math.ceil((50 - titles[metric]!.length - 2) / 2))}`.slice(
        0,
        50,
      ),
    );
    for (const key of Object.keys(r).filter((k) => k.endsWith(`_${metric}_ms`))) {
      const stat = key.slice(0, key.length - metric.length - 4);
      const label = stat === 'mean' ? 'Mean' : stat === 'median' ? 'Median' : stat === 'std' ? 'Std' : stat.toUpperCase();
      out.push(line(`${label} ${metric.toUpperCase()} (ms):`, r[key] as number));
    }
  }
  out.push(...specDecodeLines(r));
  out.push('='.repeat(50));
  const f = r.frontier as {
    failures: Record<string, number>;
    failure_examples: Record<string, string>;
    retries: number;
    usage_check: { checked: number; mismatched: number; example: string | null; error: string | null };
    output_tokens_counted_by_client: number;
    client: { cpu: number; event_loop_delay_p99_ms: number };
  };
  for (const [reason, n] of Object.entries(f.failures))
    out.push(`failed ×${n}: ${reason}${f.failure_examples[reason] ? ` (e.g. ${f.failure_examples[reason]})` : ''}`);
  out.push(`retries: ${f.retries} (re-sent only when the connection could not be opened: nothing had reached the server)`);
  const u = f.usage_check;
  if (u.mismatched > 0)
    out.push(
      `note: usage disagrees with the streamed text in ${u.mismatched} of ${u.checked} requests checked (e.g. ${u.example})`,
    );
  if (u.error) out.push(`note: usage not checked against the streamed text: ${u.error}`);
  if (f.output_tokens_counted_by_client > 0)
    out.push(
      `note: ${f.output_tokens_counted_by_client} request(s) reported no usage; their output tokens were counted with the client's tokenizer`,
    );
  out.push(
    `client: ${(f.client.cpu * 100).toFixed(0)}% of a core, event-loop delay p99 ${f.client.event_loop_delay_p99_ms.toFixed(1)} ms`,
  );
  out.push(report.valid ? '✓ valid run' : `✗ invalid run: ${report.problems.join('; ')}`);
  return `${out.join('\n')}\n`;
}

/** `vllm bench serve`'s speculative-decoding section, when the server exported its counters, and the check against the expected AL. */
function specDecodeLines(r: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof r.spec_decode_acceptance_length === 'number') {
    out.push(
      '-------------- Speculative Decoding --------------',
      line('Acceptance rate (%):', r.spec_decode_acceptance_rate as number),
      line('Acceptance length:', r.spec_decode_acceptance_length),
      line('Drafts:', String(r.spec_decode_num_drafts)),
      line('Draft tokens:', String(r.spec_decode_draft_tokens)),
      line('Accepted tokens:', String(r.spec_decode_accepted_tokens)),
    );
    const perPosition = r.spec_decode_per_position_acceptance_rates as number[];
    if (perPosition.length > 0) out.push('Per-position acceptance (%):');
    perPosition.forEach((rate, i) => out.push(line(`  Position ${i}:`, rate * 100)));
  }
  const check = (r.frontier as { acceptance_length_check?: Record<string, unknown> }).acceptance_length_check;
  if (check) {
    const sigmas = check.deviation_sigmas as number | null;
    out.push(
      check.far === null
        ? `Expected acceptance length ${String(check.expected)}: ${String(check.reason)}`
        : `Expected acceptance length ${String(check.expected)}: ${check.far ? 'far from it' : 'within noise'} (${sigmas === null ? '∞' : sigmas.toFixed(1)}σ, stderr ${(check.stderr as number).toFixed(4)})`,
    );
  }
  return out;
}

const PROFILER_LOG = {
  info: (line: string) => process.stdout.write(`${line}\n`),
  warn: (line: string) => process.stderr.write(`frontier bench: warning: ${line}\n`),
};

/**
 * `--server-pid`: stop the run at once with an error when the server's process exits (no result:
 * its numbers would describe a dying server). Returns the function that stops watching.
 */
function watchServer(pid: number): () => void {
  if (!processAlive(pid))
    throw new UserError(
      `--server-pid ${pid}: no such process; give the server's process id (in a script, $! after starting it in the background)`,
    );
  return watchProcess(pid, () => {
    process.stderr.write(
      `\nfrontier bench: error: server process ${pid} (--server-pid) died during the benchmark; stopped without a result (see the server's log for why)\n`,
    );
    process.exit(ExitCode.FAILED);
  });
}

export async function runBenchCommand(argv: string[]): Promise<BenchReport | undefined> {
  if (isTraceBench(argv)) {
    await runTraceBenchCommand(argv);
    return undefined;
  }
  const parsed = await benchOptions(argv);
  if (!parsed) return undefined;
  const { options, out, metadata, progress, serverPid } = parsed;
  const tty = process.stderr.isTTY && progress;
  if (tty) {
    options.onProgress = (done, total, tokens, ms) => {
      const rate = tokens / Math.max(ms / 1000, 1e-3);
      const eta = done > 0 ? ((total - done) * ms) / done / 1000 : NaN;
      process.stderr.write(
        `\r  ${done}/${total} requests · ${Math.round(rate).toLocaleString('en-US')} tok/s · ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)} s` : '…'}   `,
      );
    };
  }
  const unwatch = serverPid === undefined ? undefined : watchServer(serverPid);
  const report = await runBench(options).finally(() => unwatch?.());
  if (tty) process.stderr.write('\n');
  Object.assign(report.result, metadata);
  // The result first: nothing after the run may lose it.
  if (out) writeFileAtomic(out, JSON.stringify(report.result), { mkdir: true });
  process.stdout.write(formatReport(report));
  if (out) process.stderr.write(`result written to ${out}\n`);
  process.exitCode = report.valid ? ExitCode.OK : ExitCode.FAILED;
  return report;
}
