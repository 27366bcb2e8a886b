import { Command, Option } from 'commander';
import { defaultMasterConfigs, loadMasterConfigs } from '../catalog/index.js';
import type { MasterConfigEntry } from '../catalog/index.js';
import { DEFAULT_LADDER, emitMasterConfig, emittedFiles, formatPlan, parseSla, plan } from '../planner/index.js';
import type { EmitResult, Plan } from '../planner/index.js';
import { PRECISIONS } from '../sim/index.js';
import type { Precision } from '../sim/index.js';
import { writeFilesAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { numberArg, numberListArg, formatOption } from './options.js';
import { pathOption } from './paths.js';

interface PlanFlags {
  model: string;
  hardware: string;
  isl: number;
  osl: number;
  precision: Precision;
  engine?: string;
  gpus?: number;
  maxWorkers?: number;
  sla?: string;
  conc?: number[];
  requestsPerConc?: number;
  format: 'text' | 'json';
  emit?: 'master-config';
  out?: string;
  recipesDir?: string;
  catalog?: string[];
}

/** Catalog entries to take images from: --catalog, else configs/*-master.yaml here; none when there are none. */
async function catalogEntries(files: string[] | undefined): Promise<Map<string, MasterConfigEntry>> {
  const paths = files ?? defaultMasterConfigs();
  if (paths.length === 0) return new Map();
  return (await loadMasterConfigs(paths)).value.entries;
}

export function planCommand(): Command {
  const integer = numberArg({ integer: true, min: 1 });
  return new Command('plan')
    .description(
      'predict the throughput/interactivity frontier of a model on a GPU from the simulator: every deployment tried, the Pareto frontier, why the others lost; --emit writes a master config that sweeps it',
    )
    .requiredOption('--model <name>', 'model: an id (minimax-m3, deepseek-r1…) or Hugging Face name')
    .requiredOption('--hardware <gpu>', 'GPU: h100 h200 b200 b300 gb200 gb300 mi300x mi325x mi355x')
    .requiredOption('--isl <n>', 'input tokens per request', integer)
    .requiredOption('--osl <n>', 'output tokens per request', integer)
    .addOption(new Option('--precision <p>', 'weight precision').choices(PRECISIONS).default('fp8'))
    .option('--engine <framework>', 'the serving framework as InferenceX names it (vllm, sglang, trt…; default vllm)')
    .option('--gpus <n>', 'most GPUs one deployment may use (default: two nodes)', integer)
    .option('--max-workers <n>', 'most workers of one role in a disaggregated deployment (default 2)', integer)
    .option('--sla <terms>', 'service level to mark, comma-separated: ttft<2s, tpot<20ms, e2e<30s, intvty>50')
    .option(
      '--conc <list>',
      `concurrency ladder, comma-separated (default ${DEFAULT_LADDER.join(',')})`,
      numberListArg({ integer: true, min: 1 }),
    )
    .option(
      '--requests-per-conc <n>',
      'requests per point, as a multiple of its concurrency (default 2)',
      numberArg({ min: 0.1 }),
    )
    .addOption(formatOption())
    .addOption(new Option('--emit <what>', 'also write a master config sweeping the frontier').choices(['master-config']))
    .addOption(pathOption('--out <file>', 'with --emit: the file to write (default: stdout, after the plan)'))
    .addOption(
      pathOption(
        '--recipes-dir <dir>',
        "with --emit: the srt-slurm recipes folder the disaggregated rows' recipes go to (default with --out: benchmarks/multi_node/srt-slurm-recipes/ of the tree --out is in)",
      ),
    )
    .addOption(
      pathOption(
        '--catalog <files...>',
        'with --emit: master configs to take images from (default: configs/*-master.yaml here)',
        'catalog',
      ),
    )
    .action(planAction);
}

async function planAction(flags: PlanFlags): Promise<void> {
  if (flags.out && !flags.emit) throw new UserError('--out names where --emit writes: add --emit master-config');
  if (flags.recipesDir && !flags.emit)
    throw new UserError('--recipes-dir names where --emit writes recipes: add --emit master-config');
  const sla = flags.sla === undefined ? undefined : parseSla(flags.sla);
  const ladder = flags.conc ?? [...DEFAULT_LADDER];
  const result = plan({
    model: flags.model,
    hardware: flags.hardware,
    precision: flags.precision,
    engine: flags.engine,
    isl: flags.isl,
    osl: flags.osl,
    gpus: flags.gpus,
    maxWorkers: flags.maxWorkers,
    sla,
    concurrencies: ladder,
    requestsPerConc: flags.requestsPerConc,
  });
  const emitted =
    flags.emit && result.deployments.length > 0
      ? emitMasterConfig(result, ladder, await catalogEntries(flags.catalog))
      : undefined;
  if (flags.emit && !emitted) throw new UserError('no deployment fits, so there is no frontier to emit a master config for');
  printPlan(flags, result, emitted);
  if (emitted) {
    const { files, warning } = emittedFiles(emitted, flags);
    // The config and the recipes it names: all written, or none.
    writeFilesAtomic(files, { mkdir: true });
    for (const [path] of files) process.stderr.write(`frontier plan: wrote ${path}\n`);
    if (warning) emitted.warnings.push(warning);
  }
  for (const w of emitted?.warnings ?? []) process.stderr.write(`frontier plan: warning: ${w}\n`);
}

/** The plan, and the emitted config when it is not written to a file. */
function printPlan(flags: PlanFlags, result: Plan, emitted: EmitResult | undefined): void {
  if (flags.format === 'json') {
    const { deployments, ...rest } = result;
    const data = {
      ...rest,
      deployments: deployments.map(({ candidate: _c, ...d }) => d),
      ...(emitted && !flags.out ? { masterConfig: emitted.yaml } : {}),
      ...(emitted && !flags.out && !flags.recipesDir ? { recipes: emitted.recipes } : {}),
    };
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  } else {
    process.stdout.write(formatPlan(result));
    if (emitted && !flags.out) process.stdout.write(`\n${emitted.yaml}`);
  }
}
