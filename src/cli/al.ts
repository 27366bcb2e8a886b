import { Command } from 'commander';
import { collectAl, describeCell } from '../launch/al-collect.js';
import type { MeasuredCell } from '../launch/al-collect.js';
import { PLACEHOLDERS, goldenYaml, modelKeyOf, parseDraftLengths, parseKwargs, parseThinking } from '../specdec/collect.js';
import { GOLDEN_DIR, GoldenError, THINKING_MODES, curvesFor, loadGolden } from '../specdec/golden.js';
import type { GoldenFile, ThinkingMode } from '../specdec/golden.js';
import { QUALITATIVE_FILE, readSpeedBench, speedBenchFile } from '../specdec/speedbench.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { ExitCode } from '../util/exit-codes.js';
import { textTable } from '../util/text-table.js';
import { UserError } from '../util/user-error.js';
import { pathOption } from './paths.js';
import { formatOption, numberArg } from './options.js';

declare const FRONTIER_VERSION: string;
const VERSION = typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev';

async function goldenFiles(dir: string | undefined): ReturnType<typeof loadGolden> {
  try {
    return await loadGolden(dir);
  } catch (e) {
    if (e instanceof GoldenError) throw new UserError(e.message);
    throw e;
  }
}

function showCurves(files: GoldenFile[], model: string): string {
  const curves = curvesFor(files, model);
  if (curves.length === 0) {
    const known = [...new Set(files.flatMap((f) => f.curves.map((c) => c.model)))].join(', ');
    throw new UserError(`no golden AL curve for ${model} (curves: ${known}); name a model key or an InferenceX model prefix`);
  }
  const out: string[] = [];
  for (const file of files.filter((f) => f.curves.some((c) => curves.includes(c)))) {
    const mine = file.curves.filter((c) => curves.includes(c));
    out.push(`${mine[0]!.model}  ${file.file}`);
    if (file.measuredOn) out.push(`  measured on ${file.measuredOn}`);
    if (file.sourceRun) out.push(`  source run ${file.sourceRun}`);
    for (const mode of THINKING_MODES) {
      const kwargs = file.chatTemplateKwargs[mode];
      if (kwargs && mine.some((c) => c.mode === mode)) out.push(`  ${mode} chat_template_kwargs ${JSON.stringify(kwargs)}`);
    }
    const lengths = [...new Set(mine.flatMap((c) => [...c.points.map((p) => p.draftLength), ...c.unmeasured]))].sort(
      (a, b) => a - b,
    );
    const heads = mine.map((c) => c.mode ?? 'AL');
    out.push(`  ${['draft', ...heads].map((h) => h.padStart(14)).join('')}`);
    for (const n of lengths) {
      const cells = mine.map((c) => c.points.find((p) => p.draftLength === n)?.al.toFixed(2) ?? '—');
      out.push(`  ${[String(n), ...cells].map((h) => h.padStart(14)).join('')}`);
    }
    out.push('');
  }
  return out.join('\n');
}

export function alCommand(): Command {
  const al = new Command('al').description("InferenceX's golden acceptance-length curves (speculative decoding)");
  const dirOption = pathOption(
    '--dir <dir>',
    `folder of curve files (default: ${GOLDEN_DIR}/ here, else the built-in copy)`,
    'catalog',
  );
  al.command('show')
    .description('print the golden AL of a model at each draft length and thinking mode')
    .argument('<model>', 'model key (deepseek-v4-pro) or InferenceX model prefix (dsv4)')
    .addOption(dirOption)
    .addOption(formatOption())
    .action(async (model: string, flags: { dir?: string; format: string }) => {
      const { files } = await goldenFiles(flags.dir);
      if (flags.format === 'json') {
        const curves = curvesFor(files, model);
        if (curves.length === 0) showCurves(files, model);
        process.stdout.write(`${JSON.stringify(curves, null, 2)}\n`);
      } else process.stdout.write(showCurves(files, model));
    });
  al.command('list')
    .description('list the curve files and their models')
    .addOption(dirOption)
    .action(async (flags: { dir?: string }) => {
      const { files, from } = await goldenFiles(flags.dir);
      const lines = files.map((f) => {
        const models = [...new Set(f.curves.map((c) => c.model))].join(', ');
        const modes = [...new Set(f.curves.map((c) => c.mode ?? 'no mode'))].join(', ');
        return `${f.file}  ${models}  (${modes})`;
      });
      process.stdout.write(`${lines.join('\n')}\n${files.length} files from ${from}\n`);
    });
  addCollectCommand(al);
  return al;
}

/** InferenceX's thinking-on chat_template_kwargs default (speedbench-al.yml's thinking-kwargs input). */
export const DEFAULT_THINKING_KWARGS = '{"thinking": true, "reasoning_effort": "high"}';

interface CollectFlags {
  model: string;
  url?: string;
  serve?: string;
  draftLengths: string;
  thinking: string;
  data: string;
  category: string;
  outputLen: number;
  numPrompts?: number;
  thinkingKwargs: string;
  thinkingOffKwargs?: string;
  temperature: number;
  topP?: number;
  modelKey?: string;
  measuredOn?: string;
  sourceRun?: string;
  out: string;
  logDir: string;
  readyTimeout: number;
  apiKey?: string;
  format: string;
}

function addCollectCommand(al: Command): void {
  al.command('collect')
    .description(
      "measure a model's golden AL curve on SPEED-Bench from the server's spec-decode counters, as InferenceX's speedbench-al.yml does, and write it in InferenceX's format",
    )
    .requiredOption('--model <name>', "the served model the requests name; the file's key is its basename, lower-cased")
    .option(
      '--url <url>',
      `the server (OpenAI API and /metrics); may name ${PLACEHOLDERS.join(' ')} to reach one server per draft length (default with --serve: http://127.0.0.1:{port})`,
    )
    .option(
      '--serve <command>',
      'start the server for each draft length with this shell command and stop it after, as InferenceX restarts vLLM per cell: {draft} is num_speculative_tokens, {port} a free port, {model} --model, {thinking} on/off (naming it starts one per cell)',
    )
    .option('--draft-lengths <list>', 'the draft lengths (num_speculative_tokens): 1..8, 1,2,4', '1..8')
    .option('--thinking <modes>', 'the thinking modes: on, off, or on,off', 'on,off')
    .addOption(
      pathOption(
        '--data <path>',
        `SPEED-Bench, prepared locally: the folder NeMo-Skills' speed-bench prepare.py wrote (its ${QUALITATIVE_FILE}) or a .jsonl`,
      ).default('speed_bench_data'),
    )
    .option('--category <name>', 'the SPEED-Bench category', 'coding')
    .option('--output-len <n>', 'max_tokens of each request', numberArg({ integer: true, min: 1 }), 4096)
    .option('--num-prompts <n>', "the category's first n prompts (default: every one)", numberArg({ integer: true, min: 1 }))
    .option('--thinking-kwargs <json>', 'chat_template_kwargs of the thinking-on requests', DEFAULT_THINKING_KWARGS)
    .option('--thinking-off-kwargs <json>', 'chat_template_kwargs of the thinking-off requests (default: none sent)')
    .option('--temperature <t>', 'sampling temperature', numberArg({ min: 0 }), 1)
    .option('--top-p <p>', 'top_p (default: not sent)', numberArg({ min: 0, max: 1 }))
    .option('--model-key <key>', "the file's top-level key (default: --model's basename, lower-cased)")
    .option('--measured-on <text>', 'what the header says it was measured on, e.g. "B300, vLLM MTP" (default: --model)')
    .option('--source-run <url>', 'the GitHub Actions run, written as the first line as InferenceX commits the file')
    .addOption(pathOption('--out <file>', 'the golden file to write').default('speedbench-reference-al.yaml'))
    .addOption(pathOption('--log-dir <dir>', "with --serve: the servers' logs").default('speedbench_results'))
    .option('--ready-timeout <s>', 'with --serve: seconds a server may take to come up', numberArg({ min: 1 }), 3600)
    .option('--api-key <key>', 'bearer token (default: $OPENAI_API_KEY)')
    .addOption(formatOption())
    .action(async (flags: CollectFlags) => {
      process.exitCode = await collect(flags);
    });
}

async function collect(f: CollectFlags): Promise<number> {
  if (f.url === undefined && f.serve === undefined)
    throw new UserError('al collect needs a server: --url of a running one, or --serve to start one per draft length', {
      hint: `e.g. --serve "vllm serve {model} --port {port} --speculative-config '{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": {draft}}'"`,
    });
  const url = f.url ?? 'http://127.0.0.1:{port}';
  if (!/^https?:\/\//.test(url)) throw new UserError(`--url ${url}: expected an http:// or https:// URL`);
  if (f.serve === undefined && url.includes('{port}'))
    throw new UserError(`--url ${url}: {port} is a port --serve picks; without --serve, name the server's port`);
  if (f.serve !== undefined && url.includes('{port}') && !f.serve.includes('{port}'))
    throw new UserError(`--serve does not name {port}, the port --url ${url} reaches`, {
      hint: "put the engine's port flag in the command (vLLM: --port {port}), or pass --url with the port it serves on",
    });
  const draftLengths = parseDraftLengths(f.draftLengths);
  const modes = parseThinking(f.thinking);
  const kwargsText: Partial<Record<ThinkingMode, string>> = {
    thinking_on: f.thinkingKwargs,
    ...(f.thinkingOffKwargs !== undefined ? { thinking_off: f.thinkingOffKwargs } : {}),
  };
  const kwargs = {
    thinking_on: parseKwargs('--thinking-kwargs', f.thinkingKwargs),
    ...(f.thinkingOffKwargs !== undefined ? { thinking_off: parseKwargs('--thinking-off-kwargs', f.thinkingOffKwargs) } : {}),
  };
  const data = readSpeedBench(speedBenchFile(f.data), f.category);
  const prompts = data.prompts.slice(0, f.numPrompts ?? data.prompts.length);
  const modelKey = f.modelKey ?? modelKeyOf(f.model);
  const say = (line: string): void => {
    process.stderr.write(`frontier al collect: ${line}\n`);
  };
  const multiTurn = prompts.filter((p) => p.laterTurns > 0).length;
  say(
    `${prompts.length} ${f.category} prompts from ${data.file}${multiTurn > 0 ? ` (${multiTurn} multi-turn: their first turn is sent)` : ''}; ` +
      `${modes.length * draftLengths.length} cells`,
  );
  const cells = await collectAl({
    url,
    serve: f.serve,
    model: f.model,
    draftLengths,
    modes,
    prompts,
    outputLen: f.outputLen,
    temperature: f.temperature,
    topP: f.topP,
    kwargs,
    apiKey: f.apiKey ?? (process.env.OPENAI_API_KEY || undefined),
    readyTimeoutS: f.readyTimeout,
    logDir: f.logDir,
    progress: say,
  });
  const yaml = goldenYaml(
    {
      modelKey,
      measuredOn: f.measuredOn ?? f.model,
      category: f.category,
      temperature: f.temperature,
      topP: f.topP,
      outputLen: f.outputLen,
      kwargs: kwargsText,
      modes,
      draftLengths,
      sourceRun: f.sourceRun,
      version: VERSION,
    },
    cells,
  );
  writeFileAtomic(f.out, yaml);
  const failed = cells.filter((c) => c.error !== undefined);
  if (f.format === 'json') process.stdout.write(`${JSON.stringify(collectJson(f, modelKey, prompts.length, cells), null, 2)}\n`);
  else process.stdout.write(collectText(f, modelKey, prompts.length, cells));
  if (failed.length > 0)
    process.stderr.write(
      `frontier al collect: ${failed.length} of ${cells.length} cells are N/A in ${f.out}: ${failed.map((c) => `${c.mode} draft ${c.draftLength}`).join(', ')}\n`,
    );
  return failed.length > 0 ? ExitCode.FAILED : ExitCode.OK;
}

function collectText(f: CollectFlags, modelKey: string, prompts: number, cells: MeasuredCell[]): string {
  const rows = cells.map((c) => {
    const e = c.estimate;
    const ci = e?.half === undefined ? '—' : `[${(e.al - e.half).toFixed(3)}, ${(e.al + e.half).toFixed(3)}]`;
    return c.error !== undefined || !e
      ? [c.mode, String(c.draftLength), 'N/A', '—', String(c.requests), '—', c.error ?? '']
      : [
          c.mode,
          String(c.draftLength),
          e.rounded,
          ci,
          String(c.requests),
          String(e.drafts),
          c.failedRequests > 0 ? `${c.failedRequests} failed` : '',
        ];
  });
  return [
    `${modelKey}: SPEED-Bench ${f.category}, ${prompts} prompts, output_len ${f.outputLen}; AL = 1 + accepted / drafts, 95% CI over the prompts`,
    ...textTable([['thinking', 'draft', 'AL', '95% CI', 'requests', 'drafts', ''], ...rows], {
      align: ['left', 'right', 'right', 'left', 'right', 'right', 'left'],
    }).map((l) => `  ${l}`),
    `wrote ${f.out}`,
    '',
  ].join('\n');
}

function collectJson(f: CollectFlags, modelKey: string, prompts: number, cells: MeasuredCell[]): unknown {
  return {
    modelKey,
    model: f.model,
    category: f.category,
    prompts,
    outputLen: f.outputLen,
    out: f.out,
    cells: cells.map((c) => ({
      thinking: c.mode,
      draftLength: c.draftLength,
      value: c.error === undefined && c.estimate ? Number(c.estimate.rounded) : null,
      al: c.estimate?.al ?? null,
      ci: c.estimate?.half === undefined ? null : [c.estimate.al - c.estimate.half, c.estimate.al + c.estimate.half],
      level: c.estimate?.level ?? null,
      requests: c.requests,
      failedRequests: c.failedRequests,
      drafts: c.estimate?.drafts ?? null,
      acceptedTokens: c.estimate?.accepted ?? null,
      summary: describeCell(c),
      error: c.error ?? null,
    })),
  };
}
