import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { evalInDir, maxTokensFor, metaEnvOf, resolveGsm8k } from '../evals/index.js';
import type { EvalConcResult } from '../evals/index.js';
import type { MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import { POSITIVE_INT, parseNumber } from './options.js';
import { UserError } from '../util/user-error.js';
import { firstServedModel } from './served-model.js';
import { evalCheckCommand, evalCollectCommand } from './eval-report.js';

declare const FRONTIER_VERSION: string;

interface Gsm8kFlags {
  baseUrl?: string;
  host: string;
  port: string;
  model?: string;
  endpoint: 'chat' | 'completions';
  apiKey?: string;
  dataset?: string;
  limit?: string;
  concurrency: string[];
  maxTokens?: string;
  maxModelLen?: string;
  fewshotSeed: string;
  numFewshot: string;
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

const fmt = (x: number): string => x.toFixed(4);

export function summaryLines(results: EvalConcResult[]): string[] {
  const lines = ['conc  strict-match     flexible-extract  n     failed  valid'];
  for (const { conc, result: r } of results) {
    lines.push(
      `${String(conc).padStart(4)}  ${fmt(r.strict.mean)} ± ${fmt(r.strict.stderr)}  ${fmt(r.flexible.mean)} ± ${fmt(r.flexible.stderr)}  ${String(r.samples.length).padEnd(5)} ${String(r.failed).padEnd(7)} ${
        r.interrupted
          ? 'interrupted'
          : r.valid
            ? 'yes'
            : `no (${r.failed} of ${r.samples.length} requests failed: ${Object.entries(r.failures)
                .map(([k, v]) => `${k} ×${v}`)
                .join(', ')})`
      }`,
    );
  }
  return lines;
}

function gsm8kCommand(): Command {
  return new Command('gsm8k')
    .description(
      'GSM8K as InferenceX runs it (5-shot, greedy, strict-match and flexible-extract) against an OpenAI-compatible server',
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
    .option('--dataset <dir>', 'GSM8K test.jsonl and train.jsonl (default: $FRONTIER_GSM8K, else downloaded once into the cache)')
    .option('--limit <n>', 'only the first N test problems')
    .option('--concurrency <c...>', 'concurrent requests; several values: one result per concurrency (batched)', ['64'])
    .option('--max-tokens <n>', 'generation budget (default: the reference rule from the context length)')
    .option('--max-model-len <n>', 'the server’s context length (default: /v1/models max_model_len, else 16384)')
    .option('--fewshot-seed <n>', 'seed of the few-shot draws', '1234')
    .option('--num-fewshot <n>', 'few-shot examples per prompt', '5')
    .option('--timeout <s>', 'per-request timeout (seconds without a byte)', '1800')
    .option('--max-retries <n>', 'retries of a request after a connection error, timeout, 429 or 5xx', '5')
    .option('--retry-backoff <s>', 'first wait before a retry, doubled each time (max 30 s)', '1')
    .option('--out <dir>', 'where results_*.json, samples_gsm8k_*.jsonl (and meta_env.json) go', '.')
    .option('--resume', 'continue the interrupted eval in --out: keep its finished samples')
    .option('--row <file>', 'the matrix row evaluated: writes meta_env.json with its identity')
    .option('--runner <type>', 'the hardware for meta_env.json (default: the row’s runner)')
    .action(async (f: Gsm8kFlags) => {
      const apiKey = f.apiKey ?? process.env.OPENAI_API_KEY;
      const baseUrl = f.baseUrl ?? `http://${f.host}:${f.port}`;
      const concurrencies = f.concurrency
        .flatMap((c) => c.split(/[\s,]+/))
        .filter(Boolean)
        .map((c) => positiveInt('--concurrency', c));
      const row = f.row ? readRow(f.row) : undefined;
      let model = f.model;
      let maxLength = f.maxModelLen ? positiveInt('--max-model-len', f.maxModelLen) : undefined;
      if (!model || (!f.maxTokens && maxLength === undefined)) {
        const served = await firstServedModel(baseUrl, apiKey, 'pass --model and --max-tokens');
        model ??= served.id;
        maxLength ??= served.maxModelLen;
      }
      const maxTokens = f.maxTokens ? positiveInt('--max-tokens', f.maxTokens) : maxTokensFor(maxLength ?? 16384);
      const data = await resolveGsm8k(f.dataset, (line) => process.stderr.write(`${line}\n`));
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
          test: data.test,
          train: data.train,
          limit: f.limit ? positiveInt('--limit', f.limit) : undefined,
          concurrencies,
          maxTokens,
          maxLength,
          fewshotSeed: nonNegative('--fewshot-seed', f.fewshotSeed),
          numFewshot: nonNegative('--num-fewshot', f.numFewshot),
          timeoutMs: nonNegative('--timeout', f.timeout) * 1000,
          maxRetries: nonNegative('--max-retries', f.maxRetries),
          backoffMs: nonNegative('--retry-backoff', f.retryBackoff) * 1000,
          resume: f.resume,
          frontierVersion: typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev',
          meta: row ? (m) => metaEnvOf(row, { hw: f.runner ?? row.runner, ...m }) : undefined,
          onProgress: tty ? (c, d, t) => process.stderr.write(`\rconc ${c}: ${d}/${t} problems`) : undefined,
          signal: controller.signal,
        });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (tty) process.stderr.write('\n');
      process.stdout.write(`gsm8k · ${model} · ${maxTokens} max tokens\n${summaryLines(results).join('\n')}\n`);
      for (const r of results) if (r.files) process.stdout.write(`results written to ${r.files.results}\n`);
      const interrupted = controller.signal.aborted || results.some((r) => r.result.interrupted);
      if (interrupted) process.stdout.write(`interrupted: finished samples kept; continue with --resume --out ${f.out}\n`);
      process.exitCode = interrupted ? 130 : results.every((r) => r.result.valid) ? 0 : 1;
    });
}

export function evalCommand(): Command {
  return new Command('eval')
    .description('accuracy evals: run GSM8K against a server, check scores against thresholds, collect results')
    .addCommand(gsm8kCommand())
    .addCommand(evalCheckCommand())
    .addCommand(evalCollectCommand());
}
