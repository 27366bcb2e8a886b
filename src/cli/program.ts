import { Command } from 'commander';
import { ExitCode } from '../util/exit-codes.js';
import { UserError } from '../util/user-error.js';
import { enterCatalog, pathArgument } from './paths.js';
import { formatOption } from './options.js';
import type { SchemaKind } from '../catalog/index.js';

declare const FRONTIER_VERSION: string;

const PATHS_HELP = `
Paths: a path you give (and a file written by default: a run directory, the store, a report) is
relative to where you started frontier, also with -C. -C DIR says where the catalog is: what a
command reads of it by default (configs/*-master.yaml, configs/runners.yaml, perf-changelog.yaml,
clusters/, benchmarks/) is DIR's. A path inside a revision (--changelog-file) is relative to the
repository root.`;

/**
 * The top-level commands, in the order help lists them, each built by importing its module when it
 * runs: a command loads its own code only, so start-up does not grow with the number of commands.
 */
const COMMANDS: readonly { name: string; build: () => Promise<Command>; hidden?: boolean }[] = [
  { name: 'validate', build: async () => validateCommand() },
  { name: 'schema', build: schemaCommand },
  { name: 'matrix', build: async () => matrixCommand() },
  { name: 'changelog', build: async () => (await import('./changelog.js')).changelogCommand() },
  { name: 'ci', build: async () => (await import('./ci.js')).ciCommand() },
  { name: 'recipe', build: async () => (await import('./review.js')).recipeCommand() },
  { name: 'review', build: async () => (await import('./review.js')).reviewCommand() },
  { name: 'lint', build: async () => (await import('./review.js')).lintCommand() },
  { name: 'clusters', build: async () => (await import('./clusters.js')).clustersCommand() },
  { name: 'rules', build: async () => (await import('./review.js')).rulesCommand() },
  { name: 'sim', build: async () => (await import('./sim.js')).simCommand() },
  { name: 'plan', build: async () => (await import('./plan.js')).planCommand() },
  { name: 'results', build: async () => (await import('./results.js')).resultsCommand() },
  { name: 'run', build: async () => (await import('./run.js')).runCommand() },
  { name: 'probe', build: async () => (await import('./run.js')).probeCommand() },
  { name: 'standin', build: async () => (await import('./standin.js')).standinCommand(), hidden: true },
  { name: 'eval', build: async () => (await import('./eval.js')).evalCommand() },
  { name: 'al', build: async () => (await import('./al.js')).alCommand() },
  { name: 'traces', build: async () => (await import('./traces.js')).tracesCommand() },
  { name: 'telemetry', build: async () => (await import('./telemetry.js')).telemetryCommand() },
  ...['ingest', 'serve', 'token', 'compare', 'nodes', 'store'].map((name) => ({
    name,
    build: async () => (await import('./store.js')).storeCommands().find((c) => c.name() === name)!,
  })),
  { name: 'runs', build: async () => (await import('./runs.js')).runsCommand() },
  { name: 'mcp', build: async () => (await import('./mcp.js')).mcpCommand() },
  { name: 'bench', build: async () => benchCommand() },
];

/**
 * What the arguments ask for, read as Commander reads the root's (`-C DIR` in its forms, then the
 * first operand): `version` for -V/--version, which Commander answers there and then; the
 * top-level command that runs (also `help <command>`'s); undefined for anything else (the root's
 * help, an unknown command or option), which needs every command.
 */
export function requested(args: readonly string[]): { version: true } | { command: string } | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-V' || arg === '--version') return { version: true };
    if (arg === '-C' || arg === '--cwd') i++;
    else if (arg.startsWith('--cwd=') || (arg.startsWith('-C') && arg.length > 2)) continue;
    else if (arg.length > 1 && arg.startsWith('-') && arg !== '--') return undefined;
    else {
      const operands = args.slice(arg === '--' ? i + 1 : i);
      const name = operands[0] === 'help' ? operands[1] : operands[0];
      return COMMANDS.some((c) => c.name === name) ? { command: name! } : undefined;
    }
  }
  return undefined;
}

/**
 * The `frontier` command, parsed and run by `main.ts`: with `only`, the one top-level command that
 * runs (the others are not even loaded); without, every command.
 */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('frontier')
    .description('Continuous LLM-inference benchmarking: catalog, sweep matrix and checks for InferenceX-format configs.')
    .version(typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev')
    .option(
      '-C, --cwd <dir>',
      'where the catalog is (e.g. an InferenceX checkout): read its configs, changelog, clusters and scripts',
    )
    .addHelpText('after', PATHS_HELP)
    .hook('preAction', (_program, command) => enterCatalog(command, program.opts<{ cwd?: string }>().cwd));
  const commands = COMMANDS.filter((c) => only === undefined || c.name === only);
  const built = await Promise.all(commands.map(async (c) => ({ command: await c.build(), hidden: c.hidden })));
  for (const { command, hidden } of built) program.addCommand(command, { hidden });
  return program;
}

function validateCommand(): Command {
  return new Command('validate')
    .description('validate master configs and runners.yaml; every problem with file:line:col, key, field and a fix')
    .addArgument(
      pathArgument('[files...]', 'master-config and runners.yaml files (default: configs/*-master.yaml configs/runners.yaml)'),
    )
    .addOption(formatOption())
    .action(async (files: string[], opts: { format: 'text' | 'json' }) => {
      const { defaultCatalogFiles, formatReport, validateFiles } = await import('./validate.js');
      const targets = files.length > 0 ? files : defaultCatalogFiles();
      if (targets.length === 0) {
        throw new UserError('no files to validate: no configs/*-master.yaml here; pass FILES or use -C <InferenceX checkout>');
      }
      const report = await validateFiles(targets);
      process.stdout.write(opts.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      process.exitCode = report.ok ? ExitCode.OK : ExitCode.FAILED;
    });
}

async function schemaCommand(): Promise<Command> {
  const { SCHEMA_KINDS } = await import('../catalog/index.js');
  const { jsonSchema } = await import('../catalog/json-schema.js');
  return new Command('schema')
    .description('print the JSON Schema of a file kind, for editors (YAML language server)')
    .addArgument(
      new Command()
        .createArgument('<kind>', 'master-config, runners, or openapi (the API)')
        .choices([...SCHEMA_KINDS, 'openapi']),
    )
    .action(async (kind: SchemaKind | 'openapi') => {
      // The API (Fastify, the store) loads only when asked for.
      const schema = kind === 'openapi' ? await (await import('../api/index.js')).openApiDocument() : jsonSchema(kind);
      process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
    });
}

function matrixCommand(): Command {
  const matrix = new Command('matrix').description('generate the sweep matrix (the reference generate_sweep_configs.py)');
  for (const name of ['full-sweep', 'test-config'] as const) {
    matrix
      .command(name)
      .description(
        name === 'full-sweep' ? 'every config, narrowed by filters' : 'the given config keys (or globs), fully expanded',
      )
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument('[args...]')
      .action(async (_args: string[], _opts: unknown, cmd: Command) => {
        const { runMatrix } = await import('./matrix.js');
        process.stdout.write(await runMatrix(name, cmd.args));
      });
  }
  return matrix;
}

function benchCommand(): Command {
  return new Command('bench')
    .description(
      "benchmark an OpenAI-compatible server (the reference client's flags, e.g. --max-concurrency 64 --random-input-len 8192)",
    )
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      const { runBenchCommand } = await import('./bench.js');
      await runBenchCommand(cmd.args);
    });
}
