import { loadSweepInputs } from '../catalog/index.js';
import type { Catalog, RunnerConfig } from '../catalog/index.js';
import {
  SCENARIO_TYPES,
  SEQ_LEN_NAMES,
  applyEvalSelection,
  formatSummary,
  generateFullSweep,
  generateTestConfig,
  summarizeMatrix,
} from '../matrix/index.js';
import type { MatrixRow, ScenarioType, SeqLenName } from '../matrix/index.js';
import { dumpsPlain } from '../pycompat/index.js';
import { UsageError, formatHelp, parseArgs } from './argparse.js';
import type { ArgSpec, ParsedArgs, ParserSpec } from './argparse.js';

/** Flags shared by both generators (the reference's parent parser), plus Frontier's --summary. */
const COMMON: ArgSpec[] = [
  {
    flags: ['--config-files'],
    dest: 'config_files',
    kind: 'many',
    type: 'path',
    required: true,
    help: 'One or more master-config files (YAML).',
  },
  {
    flags: ['--runner-config'],
    dest: 'runner_config',
    kind: 'one',
    type: 'path',
    default: 'configs/runners.yaml',
    help: 'Runner labels and hardware facts (default: configs/runners.yaml).',
  },
  { flags: ['--no-evals'], dest: 'no_evals', kind: 'flag', help: 'Skip evals (throughput benchmarks only).' },
  { flags: ['--evals-only'], dest: 'evals_only', kind: 'flag', help: 'Only the eval subset; rows get eval-only: true.' },
  {
    flags: ['--all-evals'],
    dest: 'all_evals',
    kind: 'flag',
    help: 'Every generated 8k1k row becomes an eval row (implies the eval-only output).',
  },
  {
    flags: ['--runner-node-filter'],
    dest: 'runner_node_filter',
    kind: 'one',
    help: 'Expand rows to the concrete runner nodes whose name contains this substring.',
  },
  {
    flags: ['--scenario-type'],
    dest: 'scenario_type',
    kind: 'many',
    choices: SCENARIO_TYPES,
    help: 'Scenario types to include (default: all).',
  },
  {
    flags: ['--summary'],
    dest: 'summary',
    kind: 'flag',
    help: 'Print a table of the matrix instead of the JSON rows (Frontier only).',
  },
];

const HELP: ArgSpec = { flags: ['-h', '--help'], dest: 'help', kind: 'flag', help: 'Show this help message and exit.' };
const SEQ_LENS_ARG = (help: string): ArgSpec => ({
  flags: ['--seq-lens'],
  dest: 'seq_lens',
  kind: 'many',
  choices: SEQ_LEN_NAMES,
  help,
});

export const FULL_SWEEP: ParserSpec = {
  prog: 'frontier matrix full-sweep',
  description: 'Expand every master-config entry into matrix rows, optionally filtered.',
  exclusive: [['no_evals', 'evals_only']],
  args: [
    ...COMMON,
    { flags: ['--model-prefix'], dest: 'model_prefix', kind: 'many', help: 'Keep config keys starting with any of these.' },
    { flags: ['--precision'], dest: 'precision', kind: 'many', help: 'Keep these precisions (fp4, fp8, …).' },
    { flags: ['--framework'], dest: 'framework', kind: 'many', help: 'Keep these frameworks (vllm, sglang, trt, …).' },
    {
      flags: ['--runner-type'],
      dest: 'runner_type',
      kind: 'many',
      help: 'Keep these runner labels (must exist in runners.yaml).',
    },
    SEQ_LENS_ARG('Keep these sequence-length shapes (fixed-seq-len only).'),
    {
      flags: ['--step-size'],
      dest: 'step_size',
      kind: 'one',
      type: 'int',
      default: 2,
      help: 'Multiplier between range concurrencies (default: 2).',
    },
    { flags: ['--min-conc'], dest: 'min_conc', kind: 'one', type: 'int', help: 'Drop concurrencies below this.' },
    {
      flags: ['--max-conc'],
      dest: 'max_conc',
      kind: 'one',
      type: 'int',
      help: 'Drop concurrencies above this (falls back to it when nothing is left).',
    },
    { flags: ['--max-tp'], dest: 'max_tp', kind: 'one', type: 'int', help: 'Skip single-node entries with a larger tp.' },
    { flags: ['--max-ep'], dest: 'max_ep', kind: 'one', type: 'int', help: 'Clamp single-node ep to this.' },
    { flags: ['--single-node'], dest: 'single_node', kind: 'flag', help: 'Only single-node configs (neither flag: both).' },
    { flags: ['--multi-node'], dest: 'multi_node', kind: 'flag', help: 'Only multinode configs (neither flag: both).' },
    HELP,
  ],
};

export const TEST_CONFIG: ParserSpec = {
  prog: 'frontier matrix test-config',
  description: 'Expand the given config keys (exact names or globs) fully.',
  exclusive: [['no_evals', 'evals_only']],
  args: [
    ...COMMON,
    { flags: ['--config-keys'], dest: 'config_keys', kind: 'many', required: true, help: 'Config keys or fnmatch globs (*, ?).' },
    {
      flags: ['--conc'],
      dest: 'conc',
      kind: 'many',
      type: 'int',
      help: 'Only these concurrencies (intersected with the config).',
    },
    SEQ_LENS_ARG('Only these sequence-length shapes.'),
    HELP,
  ],
};

export type MatrixCommand = 'full-sweep' | 'test-config';

/**
 * Parse the reference generator's flags, load the catalog (relative paths from `baseDir`, default
 * the working directory) and return the text to print.
 */
export async function runMatrix(command: MatrixCommand, argv: readonly string[], baseDir = '.'): Promise<string> {
  const spec = command === 'full-sweep' ? FULL_SWEEP : TEST_CONFIG;
  const args = parseArgs(spec, argv);
  if (args.help) return formatHelp(spec);
  checkArgCombinations(spec, command, args);
  const { catalog, runners } = await loadSweepInputs(args.config_files as string[], args.runner_config as string, { baseDir });
  const rows = generate(command, catalog, runners, args);
  return args.summary ? `${formatSummary(summarizeMatrix(rows))}\n` : `${dumpsPlain(rows)}\n`;
}

/** The reference's post-parse checks, in its order (usage errors, exit status 2). */
function checkArgCombinations(spec: ParserSpec, command: MatrixCommand, args: ParsedArgs): void {
  const fullSweep = command === 'full-sweep';
  const min = args.min_conc as number | undefined;
  const max = args.max_conc as number | undefined;
  if (fullSweep && (args.step_size as number) <= 1) throw new UsageError(spec, '--step-size must be greater than 1');
  if (fullSweep && min !== undefined && max !== undefined && min > max) {
    throw new UsageError(spec, '--min-conc must be less than or equal to --max-conc');
  }
  if (args.no_evals && args.all_evals) throw new UsageError(spec, '--all-evals cannot be combined with --no-evals');
}

function generate(command: MatrixCommand, catalog: Catalog, runners: RunnerConfig, args: ParsedArgs): MatrixRow[] {
  const scenarioType = args.scenario_type as ScenarioType[] | undefined;
  const seqLens = args.seq_lens as SeqLenName[] | undefined;
  const runnerNodeFilter = args.runner_node_filter as string | undefined;
  const rows =
    command === 'full-sweep'
      ? generateFullSweep(catalog.entries, runners, {
          modelPrefix: args.model_prefix as string[] | undefined,
          precision: args.precision as string[] | undefined,
          framework: args.framework as string[] | undefined,
          runnerType: args.runner_type as string[] | undefined,
          seqLens,
          stepSize: args.step_size as number,
          minConc: args.min_conc as number | undefined,
          maxConc: args.max_conc as number | undefined,
          maxTp: args.max_tp as number | undefined,
          maxEp: args.max_ep as number | undefined,
          singleNode: args.single_node as boolean,
          multiNode: args.multi_node as boolean,
          runnerNodeFilter,
          scenarioType,
        })
      : generateTestConfig(catalog.entries, runners, {
          configKeys: args.config_keys as string[],
          conc: args.conc as number[] | undefined,
          seqLens,
          runnerNodeFilter,
          scenarioType,
        });
  return applyEvalSelection(rows, {
    noEvals: args.no_evals as boolean,
    evalsOnly: args.evals_only as boolean,
    allEvals: args.all_evals as boolean,
  });
}
