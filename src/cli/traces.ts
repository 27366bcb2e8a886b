import { Command } from 'commander';
import {
  capTraces,
  corpusStats,
  DEFAULT_SYNTH_OPTIONS,
  formatWekaTraces,
  readTraceFile,
  statsSvg,
  synthTraces,
} from '../traces/index.js';
import type { CorpusStats, ParseOptions, SynthOptions } from '../traces/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { textTable } from '../util/text-table.js';
import { numberArg, formatOption } from './options.js';
import { pathOption, pathArgument } from './paths.js';

const integer = (min: number) => numberArg({ integer: true, min });
const number = (min: number, max = Infinity) => numberArg({ min, max });
const d = DEFAULT_SYNTH_OPTIONS;

interface ReadFlags {
  blockSize?: number;
  allowLeadingSubagents?: boolean;
}

const readOptions = (flags: ReadFlags): ParseOptions => ({
  ...(flags.blockSize !== undefined ? { blockSize: flags.blockSize } : {}),
  leadingSubagents: flags.allowLeadingSubagents === true,
});

function withReadFlags(command: Command): Command {
  return command
    .option('--block-size <tokens>', 'tokens per hash block of a hash_ids block trace (default 512, as Mooncake)', integer(1))
    .option('--allow-leading-subagents', 'accept Weka traces that open with a subagent (a capped corpus)');
}

const digitsOf = (unit: string): number => (unit === 'share' ? 3 : unit === 'seconds' ? 2 : 1);

function figure(v: number, digits: number): string {
  if (!Number.isFinite(v)) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

/** The stats as a text table, one distribution a row. */
export function formatStatsText(stats: CorpusStats, file: string): string {
  const head = [
    `${file}: ${stats.traces} traces, ${stats.requests} requests, ${stats.subagents} subagents`,
    `tokens: ${stats.inputTokens} in, ${stats.outputTokens} out; block reuse (theoretical cache hit rate): ${figure(stats.blockReuse, 3)}`,
    '',
  ];
  const rows = [
    ['distribution', 'unit', 'count', 'mean', 'p50', 'p90', 'p99', 'max'],
    ...stats.distributions.map((dist) => {
      const s = dist.summary;
      const k = digitsOf(dist.unit);
      return [dist.key, dist.unit, String(s.count), ...[s.mean, s.p50, s.p90, s.p99, s.max].map((v) => figure(v, k))];
    }),
  ];
  return `${[...head, ...textTable(rows, { align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'] })].join('\n')}\n`;
}

const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);

/** The stats as JSON (NaN, for a distribution with no values, as null). */
export function statsJson(stats: CorpusStats): Record<string, unknown> {
  return {
    traces: stats.traces,
    requests: stats.requests,
    subagents: stats.subagents,
    input_tokens: stats.inputTokens,
    output_tokens: stats.outputTokens,
    block_reuse: finite(stats.blockReuse),
    distributions: Object.fromEntries(
      stats.distributions.map((dist) => [
        dist.key,
        {
          label: dist.label,
          unit: dist.unit,
          ...Object.fromEntries(Object.entries(dist.summary).map(([k, v]) => [k, finite(v)])),
        },
      ]),
    ),
  };
}

interface SynthFlags {
  out: string;
  traces: number;
  seed: number;
  meanTurns: number;
  blockSize: number;
  maxContext: number;
  subagentRate: number;
  fanout: number;
  subagentTurns: number;
  compactionRate: number;
  meanGap: number;
  humanGapShare: number;
  humanGap: number;
  maxGap: number;
  meanDelta: number;
  meanOutput: number;
  systemTokens: number;
  scale: number;
  model: string;
}

function synthCommand(): Command {
  return new Command('synth')
    .description('write a seeded synthetic corpus of coding-agent sessions as a Weka traces.jsonl')
    .addOption(pathOption('-o, --out <file>', 'where to write it ("-": standard output)').default('traces.jsonl'))
    .option('--traces <n>', 'traces (sessions)', integer(1), d.traces)
    .option('--seed <n>', 'random seed: the same seed writes the same corpus', integer(0), d.seed)
    .option('--mean-turns <n>', 'mean main-agent turns per trace', number(1), d.meanTurns)
    .option('--block-size <tokens>', 'tokens per hash block', integer(1), d.blockSize)
    .option('--max-context <tokens>', 'context at which the agent compacts', integer(1), d.maxContext)
    .option('--subagent-rate <p>', 'probability that a main turn fans out subagents', number(0, 1), d.subagentRate)
    .option('--fanout <n>', 'mean subagents spawned together', number(1), d.meanFanout)
    .option('--subagent-turns <n>', 'mean turns of a subagent', number(1), d.meanSubagentTurns)
    .option(
      '--compaction-rate <p>',
      'probability per turn of a compaction before the context is full',
      number(0, 1),
      d.compactionRate,
    )
    .option('--mean-gap <s>', 'mean tool gap, seconds (lognormal)', number(0), d.meanGap)
    .option('--human-gap-share <p>', 'share of main-agent gaps that are a human pause', number(0, 1), d.humanGapShare)
    .option('--human-gap <s>', 'mean human pause, seconds (lognormal)', number(0), d.meanHumanGap)
    .option('--max-gap <s>', 'longest gap, seconds', number(0), d.maxGap)
    .option('--mean-delta <tokens>', 'mean new tokens (user message or tool result) per turn', number(1), d.meanDelta)
    .option('--mean-output <tokens>', 'mean output tokens per request', number(1), d.meanOutput)
    .option('--system-tokens <tokens>', "the main agent's system prompt", integer(1), d.systemTokens)
    .option(
      '--scale <x>',
      'multiply token sizes, the context cap and turn counts (0.05: a tiny corpus for tests)',
      number(0.001),
      d.scale,
    )
    .option('--model <name>', 'the main agent model name', d.model)
    .action((flags: SynthFlags) => {
      const options: Partial<SynthOptions> = {
        traces: flags.traces,
        seed: flags.seed,
        meanTurns: flags.meanTurns,
        blockSize: flags.blockSize,
        maxContext: flags.maxContext,
        subagentRate: flags.subagentRate,
        meanFanout: flags.fanout,
        meanSubagentTurns: flags.subagentTurns,
        compactionRate: flags.compactionRate,
        meanGap: flags.meanGap,
        humanGapShare: flags.humanGapShare,
        meanHumanGap: flags.humanGap,
        maxGap: flags.maxGap,
        meanDelta: flags.meanDelta,
        meanOutput: flags.meanOutput,
        systemTokens: flags.systemTokens,
        scale: flags.scale,
        model: flags.model,
        file: flags.out,
      };
      const traces = synthTraces(options);
      const text = formatWekaTraces(traces);
      if (flags.out === '-') process.stdout.write(text);
      else {
        writeFileAtomic(flags.out, text, { mkdir: true });
        const stats = corpusStats(traces);
        process.stderr.write(
          `wrote ${traces.length} traces (${stats.requests} requests, ${stats.subagents} subagents) to ${flags.out}\n`,
        );
      }
    });
}

function statsCommand(): Command {
  return withReadFlags(
    new Command('stats')
      .description('the distributions of a trace file: requests, turns, subagents, tokens, prefix reuse, idle gaps')
      .addArgument(pathArgument('<file>', 'a Weka traces.jsonl or trace JSON, or a hash_ids block trace'))
      .addOption(formatOption())
      .addOption(pathOption('--plot <file.svg>', 'also draw the histograms as an SVG')),
  ).action(async (file: string, flags: ReadFlags & { format: string; plot?: string }) => {
    const stats = corpusStats(await readTraceFile(file, readOptions(flags)));
    process.stdout.write(
      flags.format === 'json' ? `${JSON.stringify(statsJson(stats), null, 2)}\n` : formatStatsText(stats, file),
    );
    if (flags.plot) writeFileAtomic(flags.plot, statsSvg(stats, file), { mkdir: true });
  });
}

function capCommand(): Command {
  return withReadFlags(
    new Command('cap')
      .description("drop requests over a token cap, keeping the timeline (InferenceX's 256k dataset variant); writes Weka JSONL")
      .addArgument(pathArgument('<in>', 'the trace file to cap'))
      .addArgument(pathArgument('<out>', 'where to write the capped traces.jsonl'))
      .requiredOption(
        '--max-tokens <n>',
        'the most input + output tokens a request may have (256000 for the 256k variant)',
        integer(1),
      )
      .option('--input-only', 'cap input tokens only (the base build’s --base-max-isl)'),
  ).action(async (input: string, out: string, flags: ReadFlags & { maxTokens: number; inputOnly?: boolean }) => {
    const traces = await readTraceFile(input, readOptions(flags));
    const capped = capTraces(traces, { maxTokens: flags.maxTokens, inputOnly: flags.inputOnly === true });
    writeFileAtomic(out, formatWekaTraces(capped.traces), { mkdir: true });
    process.stderr.write(`kept ${capped.traces.length} traces, dropped ${capped.dropped} (empty after the cap) -> ${out}\n`);
  });
}

export function tracesCommand(): Command {
  return new Command('traces')
    .description('recorded agent sessions: synthesize a corpus, read its distributions, cap it')
    .addCommand(synthCommand())
    .addCommand(statsCommand())
    .addCommand(capCommand());
}
