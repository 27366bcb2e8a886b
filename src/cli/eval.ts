import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import {
  answerKeys,
  builtinTasks,
  concValid,
  evalInDir,
  loadTasks,
  readTaskFile,
  MAX_NUM_FEWSHOT,
  maxTokensFor,
  metaEnvOf,
} from '../evals/index.js';
import type { EvalConcResult, LoadedTask } from '../evals/index.js';
import { rowEvalTasks } from '../launch/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import { POSITIVE_INT, parseNumber } from './options.js';
import { UserError } from '../util/user-error.js';
import { firstServedModel } from '../bench/server-probe.js';
import { evalCheckCommand, evalCollectCommand } from './eval-report.js';
import { pathOption } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

declare const FRONTIER_VERSION: string;

interface RunFlags {
  task?: string[];
  data?: string;
  baseUrl?: string;
  host: string;
  port: string;
  model?: string;
  endpoint: 'chat' | 'completions';
  apiKey?: string;
  limit?: string;
  concurrency: string[];
  maxTokens?: string;
  maxModelLen?: string;
  temperature?: string;
  topP?: string;
  fewshotSeed: string;
  numFewshot?: string;
  timeout: string;
  maxRetries: string;
  retryBackoff: string;
  out: string;
  resume?: boolean;
  row?: string;
  runner?: string;
}

const positiveInt = (flag: string, value: string): number => parseNumber(flag, value, POSITIVE_INT);
const nonNegative = (flag: string, value: string): number => parseNumber(flag, value, { min: 0 });

function readRow(file: string): SingleNodeRow | MultiNodeRow {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError(`--row ${file}: ${(e as Error).message}; pass a matrix row (what \`frontier matrix\` prints)`);
  }
  const row = (Array.isArray(value) ? value[0] : value) as Record<string, unknown> | undefined;
  const missing = ['model', 'model-prefix', 'precision', 'framework', 'runner', 'isl', 'osl'].filter(
    (k) => row?.[k] === undefined,
  );
  if (missing.length > 0) throw new UserError(`--row ${file}: not a matrix row (missing ${missing.join(', ')})`);
  return row as unknown as SingleNodeRow | MultiNodeRow;
}

const fmt = (x: number): string => (Number.isNaN(x) ? 'N/A' : x.toFixed(4));

/** One line per concurrency, task and metric: the score, its stderr, docs, repeats, failures, validity. */
export function summaryLines(results: EvalConcResult[]): string[] {
  const lines = ['conc  task                      metric                              score ± stderr   n     rep  failed  valid'];
  for (const { conc, results: tasks } of results) {
    for (const r of tasks) {
      const valid = r.interrupted
        ? 'interrupted'
        : r.valid
          ? 'yes'
          : r.unscored
            ? `no (${r.unscored})`
            : `no (${r.failed} of ${r.requests} requests failed: ${Object.entries(r.failures)
                .map(([k, v]) => `${k} ×${v}`)
                .join(', ')})`;
      for (const [key, a] of Object.entries(r.metrics))
        lines.push(
          `${String(conc).padStart(4)}  ${r.task.task.padEnd(25)} ${key.padEnd(35)} ${fmt(a.mean)} ± ${fmt(a.stderr)}  ${String(r.samples.length).padEnd(5)} ${String(r.task.repeats).padEnd(4)} ${String(r.failed).padEnd(7)} ${valid}`,
        );
    }
  }
  return lines;
}

const collectList = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...value.split(',').filter(Boolean),
];

function addRunOptions(cmd: Command, o: { taskFlag: boolean }): Command {
  if (o.taskFlag)
    cmd.option(
      '--task <task>',
      'a task: a built-in name (frontier eval tasks) or an lm-eval task YAML; repeat or comma-separate for several',
      collectList,
    );
  return cmd
    .addOption(
      pathOption(
        '--data <dir>',
        'the datasets, laid out as the hub exports them (GSM8K: else $FRONTIER_GSM8K, else downloaded once into the cache)',
      ),
    )
    .option('--base-url <url>', 'the server, e.g. http://127.0.0.1:8000 (default: http://HOST:PORT)')
    .option('--host <host>', 'server host', '127.0.0.1')
    .option('--port <port>', 'server port', '8000')
    .option('--model <name>', 'model id (default: the first of /v1/models)')
    .addOption(
      new Option('--endpoint <kind>', 'chat completions, as the reference, or completions')
        .choices(['chat', 'completions'])
        .default('chat'),
    )
    .option('--api-key <key>', 'bearer token (default: $OPENAI_API_KEY)')
    .option('--limit <n>', 'only the first N documents of each task')
    .option('--concurrency <c...>', 'concurrent requests; several values: one result per concurrency (batched)', ['64'])
    .option(
      '--max-tokens <n>',
      'generation budget (default: the reference rule from the context length, capped by a task’s max_gen_toks)',
    )
    .option('--max-model-len <n>', 'the server’s context length (default: /v1/models max_model_len, else 16384)')
    .option('--temperature <t>', 'sampling temperature for every task (default: each task’s generation_kwargs)')
    .option('--top-p <p>', 'top_p for every task (default: each task’s, else 1)')
    .option('--fewshot-seed <n>', 'seed of the few-shot draws', '1234')
    .option('--num-fewshot <n>', 'few-shot examples per prompt (default: each task’s num_fewshot)')
    .option('--timeout <s>', 'per-request timeout (seconds without a byte)', '1800')
    .option('--max-retries <n>', 'retries of a request after a connection error, timeout, 429 or 5xx', '5')
    .option('--retry-backoff <s>', 'first wait before a retry, doubled each time (max 30 s)', '1')
    .addOption(pathOption('--out <dir>', 'where results_*.json, samples_<task>_*.jsonl (and meta_env.json) go').default('.'))
    .option('--resume', 'continue the interrupted eval in --out: keep its finished samples')
    .addOption(pathOption('--row <file>', 'the matrix row evaluated: writes meta_env.json with its identity'))
    .option('--runner <type>', 'the hardware for meta_env.json (default: the row’s runner)');
}

/** The tasks asked for, read and loaded with their data (where it comes from said on stderr). */
const loadTasksLogged = (names: readonly string[], data: string | undefined): Promise<LoadedTask[]> =>
  loadTasks(names, data, (line) => void process.stderr.write(`${line}\n`));

async function runEvals(f: RunFlags, taskNames: readonly string[]): Promise<void> {
  const apiKey = f.apiKey ?? process.env.OPENAI_API_KEY;
  const baseUrl = f.baseUrl ?? `http://${f.host}:${f.port}`;
  const concurrencies = f.concurrency
    .flatMap((c) => c.split(/[\s,]+/))
    .filter(Boolean)
    .map((c) => positiveInt('--concurrency', c));
  const row = f.row ? readRow(f.row) : undefined;
  const tasks = await loadTasksLogged(taskNames, f.data);
  let model = f.model;
  let maxLength = f.maxModelLen ? positiveInt('--max-model-len', f.maxModelLen) : undefined;
  if (!model || (!f.maxTokens && maxLength === undefined)) {
    const served = await firstServedModel(baseUrl, apiKey, 'pass --model and --max-tokens');
    model ??= served.id;
    maxLength ??= served.maxModelLen;
  }
  const maxTokens = f.maxTokens ? positiveInt('--max-tokens', f.maxTokens) : maxTokensFor(maxLength ?? 16384);
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const tty = process.stderr.isTTY === true;
  let results: EvalConcResult[];
  try {
    results = await evalInDir({
      dir: resolve(f.out),
      baseUrl,
      model,
      endpoint: f.endpoint,
      apiKey,
      tasks,
      limit: f.limit ? positiveInt('--limit', f.limit) : undefined,
      concurrencies,
      maxTokens,
      maxLength,
      temperature: f.temperature === undefined ? undefined : nonNegative('--temperature', f.temperature),
      topP: f.topP === undefined ? undefined : parseNumber('--top-p', f.topP, { min: 0, max: 1 }),
      fewshotSeed: nonNegative('--fewshot-seed', f.fewshotSeed),
      numFewshot:
        f.numFewshot === undefined
          ? undefined
          : parseNumber('--num-fewshot', f.numFewshot, { min: 0, max: MAX_NUM_FEWSHOT, integer: true }),
      timeoutMs: nonNegative('--timeout', f.timeout) * 1000,
      maxRetries: nonNegative('--max-retries', f.maxRetries),
      backoffMs: nonNegative('--retry-backoff', f.retryBackoff) * 1000,
      resume: f.resume,
      frontierVersion: typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev',
      meta: row ? (m) => metaEnvOf(row, { hw: f.runner ?? row.runner, ...m }) : undefined,
      onProgress: tty ? (c, t, d, n) => process.stderr.write(`\rconc ${c}: ${t} ${d}/${n} documents`) : undefined,
      signal: controller.signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (tty) process.stderr.write('\n');
  process.stdout.write(
    `${tasks.map((t) => t.spec.task).join(', ')} · ${model} · ${maxTokens} max tokens\n${summaryLines(results).join('\n')}\n`,
  );
  for (const r of results) if (r.files) process.stdout.write(`results written to ${r.files.results}\n`);
  const interrupted = controller.signal.aborted || results.some((r) => r.files === undefined);
  if (interrupted) process.stdout.write(`interrupted: finished samples kept; continue with --resume --out ${f.out}\n`);
  process.exitCode = interrupted ? ExitCode.INTERRUPTED : results.every(concValid) ? ExitCode.OK : ExitCode.FAILED;
}

function runCommand(): Command {
  return addRunOptions(
    new Command('run').description(
      'lm-eval generation tasks (GSM8K, GPQA-diamond, AIME-style… or any task YAML of the supported subset) against an OpenAI-compatible server',
    ),
    { taskFlag: true },
  ).action(async (f: RunFlags) => {
    // Without --task, the tasks the row asks for (its eval-tasks, else GSM8K).
    const tasks = f.task ?? (f.row ? rowEvalTasks(readRow(f.row)) : undefined);
    if (!tasks || tasks.length === 0)
      throw new UserError('pass --task NAME|FILE (frontier eval tasks lists the built-in ones), or --row FILE', {
        exitCode: ExitCode.USAGE,
      });
    await runEvals(f, tasks);
  });
}

function gsm8kCommand(): Command {
  return addRunOptions(new Command('gsm8k').description('GSM8K as InferenceX runs it (frontier eval run --task gsm8k)'), {
    taskFlag: false,
  })
    .addOption(pathOption('--dataset <dir>', 'the same as --data'))
    .action(async (f: RunFlags & { dataset?: string }) => runEvals({ ...f, data: f.data ?? f.dataset }, ['gsm8k']));
}

function tasksCommand(): Command {
  return new Command('tasks').description('the built-in tasks and their files').action(() => {
    const byFile = new Map<string, string[]>();
    for (const [name, file] of builtinTasks()) byFile.set(file, [...(byFile.get(file) ?? []), name]);
    for (const [file, names] of byFile) {
      const spec = readTaskFile(file);
      const shots = spec.numFewshot > 0 ? `${spec.numFewshot}-shot` : '0-shot';
      const reps = spec.repeats > 1 ? `, ${spec.repeats} samples per problem` : '';
      process.stdout.write(
        `${names.join(', ')}\n  ${spec.dataset.path}${spec.dataset.name ? ` (${spec.dataset.name})` : ''}, ${spec.evalSplit} split, ${shots}${reps}\n  ${file}\n`,
      );
    }
  });
}

function answerKeysCommand(): Command {
  return new Command('answer-keys')
    .description('answer keys for the simulator’s evals double (frontier sim serve --answers FILE --accuracy P)')
    .option('--task <task>', 'a built-in task or a task YAML; repeat for several', collectList)
    .addOption(pathOption('--data <dir>', 'the datasets, laid out as the hub exports them'))
    .addOption(pathOption('--out <file>', 'where to write them (default: stdout)'))
    .action(async (f: { task?: string[]; data?: string; out?: string }) => {
      if (!f.task || f.task.length === 0) throw new UserError('pass --task NAME|FILE', { exitCode: ExitCode.USAGE });
      const lines = (await loadTasksLogged(f.task, f.data)).flatMap((t) => answerKeys(t).map((k) => JSON.stringify(k)));
      const text = `${lines.join('\n')}\n`;
      if (f.out) writeFileAtomic(f.out, text, { mkdir: true });
      else process.stdout.write(text);
    });
}

export function evalCommand(): Command {
  return new Command('eval')
    .description('accuracy evals: run lm-eval tasks against a server, check scores against thresholds, collect results')
    .addCommand(runCommand())
    .addCommand(gsm8kCommand())
    .addCommand(tasksCommand())
    .addCommand(answerKeysCommand())
    .addCommand(evalCheckCommand())
    .addCommand(evalCollectCommand());
}
