import { Command } from 'commander';
import { SCHEMA_KINDS, jsonSchema } from '../catalog/index.js';
import type { SchemaKind } from '../catalog/index.js';
import { UserError } from '../util/user-error.js';
import { ciCommand } from './ci.js';
import { clustersCommand } from './clusters.js';
import { changelogCommand } from './changelog.js';
import { enterCatalog, pathArgument } from './paths.js';
import { runMatrix } from './matrix.js';
import { lintCommand, recipeCommand, reviewCommand, rulesCommand } from './review.js';
import { runBenchCommand } from './bench.js';
import { standinCommand } from './standin.js';
import { resultsCommand } from './results.js';
import { evalCommand } from './eval.js';
import { alCommand } from './al.js';
import { planCommand } from './plan.js';
import { probeCommand, runCommand } from './run.js';
import { simCommand } from './sim.js';
import { storeCommands } from './store.js';
import { telemetryCommand } from './telemetry.js';
import { tracesCommand } from './traces.js';
import { defaultCatalogFiles, formatReport, validateFiles } from './validate.js';
import { formatOption } from './options.js';

declare const FRONTIER_VERSION: string;

const PATHS_HELP = `
Paths: a path you give (and a file written by default: a run directory, the store, a report) is
relative to where you started frontier, also with -C. -C DIR says where the catalog is: what a
command reads of it by default (configs/*-master.yaml, configs/runners.yaml, perf-changelog.yaml,
clusters/, benchmarks/) is DIR's. A path inside a revision (--changelog-file) is relative to the
repository root.`;

/** The `frontier` command: every subcommand, parsed and run by `main.ts`. */
export function buildProgram(): Command {
  const program = new Command('frontier')
    .description('Continuous LLM-inference benchmarking: catalog, sweep matrix and checks for InferenceX-format configs.')
    .version(typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev')
    .option(
      '-C, --cwd <dir>',
      'where the catalog is (e.g. an InferenceX checkout): read its configs, changelog, clusters and scripts',
    )
    .addHelpText('after', PATHS_HELP)
    .hook('preAction', (_program, command) => enterCatalog(command, program.opts<{ cwd?: string }>().cwd));

  program
    .command('validate')
    .description('validate master configs and runners.yaml; every problem with file:line:col, key, field and a fix')
    .addArgument(
      pathArgument('[files...]', 'master-config and runners.yaml files (default: configs/*-master.yaml configs/runners.yaml)'),
    )
    .addOption(formatOption())
    .action(async (files: string[], opts: { format: 'text' | 'json' }) => {
      const targets = files.length > 0 ? files : defaultCatalogFiles();
      if (targets.length === 0) {
        throw new UserError('no files to validate: no configs/*-master.yaml here; pass FILES or use -C <InferenceX checkout>');
      }
      const report = await validateFiles(targets);
      process.stdout.write(opts.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      process.exitCode = report.ok ? 0 : 1;
    });

  program
    .command('schema')
    .description('print the JSON Schema of a file kind, for editors (YAML language server)')
    .addArgument(
      new Command()
        .createArgument('<kind>', 'master-config, runners, or openapi (the API)')
        .choices([...SCHEMA_KINDS, 'openapi']),
    )
    .action(async (kind: SchemaKind | 'openapi') => {
      // The API (Fastify, the store) loads only when asked for: it would slow every command's start.
      const schema = kind === 'openapi' ? await (await import('../api/index.js')).openApiDocument() : jsonSchema(kind);
      process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
    });

  const matrix = program.command('matrix').description('generate the sweep matrix (the reference generate_sweep_configs.py)');
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
        process.stdout.write(await runMatrix(name, cmd.args));
      });
  }

  program.addCommand(changelogCommand());
  program.addCommand(ciCommand());
  program.addCommand(recipeCommand());
  program.addCommand(reviewCommand());
  program.addCommand(lintCommand());
  program.addCommand(clustersCommand());
  program.addCommand(rulesCommand());
  program.addCommand(simCommand());
  program.addCommand(planCommand());
  program.addCommand(resultsCommand());
  program.addCommand(runCommand());
  program.addCommand(probeCommand());
  program.addCommand(standinCommand(), { hidden: true });
  program.addCommand(evalCommand());
  program.addCommand(alCommand());
  program.addCommand(tracesCommand());
  program.addCommand(telemetryCommand());
  for (const command of storeCommands()) program.addCommand(command);

  program
    .command('bench')
    .description(
      "benchmark an OpenAI-compatible server (the reference client's flags, e.g. --max-concurrency 64 --random-input-len 8192)",
    )
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      await runBenchCommand(cmd.args);
    });
  return program;
}
