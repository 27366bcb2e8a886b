import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { checkEvalDir, collectEvalResults, formatAggJson, formatEvalTables, requireDirectory } from '../evals/index.js';
import type { EvalRow } from '../evals/index.js';
import { pyFloat } from '../pycompat/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { pathOption, pathArgument, startedIn } from './paths.js';

/** Where the eval report commands read and write; tests pass their own. */
export interface EvalReportIo {
  env?: Readonly<Record<string, string | undefined>>;
  /** Relative paths (DIR, --thresholds, --out) start here. */
  cwd?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  setExitCode?: (code: number) => void;
}

interface CheckFlags {
  thresholds?: string;
  minScore: string;
  expectedConcs?: string;
  modelPrefix?: string;
  metricPrefix: string;
  metaEnv: string;
}

interface CollectFlags {
  out: string;
  sortBy: 'model_prefix' | 'hw';
}

const writer = (io: EvalReportIo, stream: 'stdout' | 'stderr'): ((text: string) => void) =>
  io[stream] ?? ((text) => process[stream].write(text));

/** `frontier eval check [DIR]`: the reference utils/evals/validate_scores.py on one eval directory. */
export function evalCheckCommand(io: EvalReportIo = {}): Command {
  return new Command('check')
    .description(
      "check an eval job's scores against the thresholds (the reference utils/evals/validate_scores.py): every " +
        'exact_match metric of results*.json ≥ models.<prefix>.<task>, else default.<task>, else --min-score; ' +
        "a batched run's meta_env.json must cover every requested concurrency. Exit 1 on any FAIL",
    )
    .addArgument(
      pathArgument('[dir]', 'the eval directory: meta_env.json and results*.json, as an eval job leaves them').default('.'),
    )
    .addOption(pathOption('--thresholds <file>', 'thresholds YAML (default: the built-in reference utils/evals/thresholds.yaml)'))
    .option('--min-score <score>', 'threshold for tasks with none configured', '0.85')
    .option('--expected-concs <list>', 'concurrencies the workflow requested, space-separated (e.g. "16 64 180")')
    .option(
      '--model-prefix <prefix>',
      "model prefix for per-model thresholds (default: meta_env.json's infmax_model_prefix, else $MODEL_PREFIX)",
    )
    .option('--metric-prefix <prefix>', 'check only metrics whose name starts with this', 'exact_match,')
    .option('--meta-env <file>', 'the metadata file, relative to DIR', 'meta_env.json')
    .action((dir: string, flags: CheckFlags) => {
      let minScore: number;
      try {
        minScore = pyFloat(flags.minScore, '--min-score');
      } catch {
        throw new UserError(`--min-score ${flags.minScore}: expected a number (e.g. 0.85)`);
      }
      const cwd = io.cwd ?? startedIn();
      const result = checkEvalDir(dir, {
        cwd,
        env: io.env ?? process.env,
        minScore,
        metricPrefix: flags.metricPrefix,
        metaEnv: flags.metaEnv,
        ...(flags.thresholds === undefined ? {} : { thresholdsFile: flags.thresholds }),
        ...(flags.expectedConcs === undefined ? {} : { expectedConcs: flags.expectedConcs }),
        ...(flags.modelPrefix === undefined ? {} : { modelPrefix: flags.modelPrefix }),
      });
      const out = writer(io, 'stdout');
      const err = writer(io, 'stderr');
      for (const line of result.lines) (line.stream === 'stdout' ? out : err)(`${line.text}\n`);
      if (result.exitCode !== 0) (io.setExitCode ?? ((code) => (process.exitCode = code)))(result.exitCode);
    });
}

/** `frontier eval collect DIRS...`: the reference utils/collect_eval_results.py. */
export function evalCollectCommand(io: EvalReportIo = {}): Command {
  return new Command('collect')
    .description(
      'aggregate downloaded eval artifacts (the reference utils/collect_eval_results.py): one row per task result ' +
        '→ agg_eval_all.json, and the single-node and multi-node tables on stdout',
    )
    .addArgument(
      pathArgument('<dirs...>', 'folders of eval artifacts (each artifact a subfolder with meta_env.json, or one flat artifact)'),
    )
    .addOption(
      pathOption('--out <file>', 'where to write the rows (json.dump(rows, indent=2) as the reference)').default(
        'agg_eval_all.json',
      ),
    )
    .addOption(new Option('--sort-by <key>', 'table order').choices(['model_prefix', 'hw']).default('model_prefix'))
    .action((dirs: string[], flags: CollectFlags) => {
      const cwd = io.cwd ?? startedIn();
      const rows: EvalRow[] = [];
      for (const dir of dirs) {
        requireDirectory(dir, cwd);
        rows.push(...collectEvalResults(dir, { cwd }));
      }
      writer(io, 'stdout')(formatEvalTables(rows, flags.sortBy));
      const target = resolve(cwd, flags.out);
      try {
        writeFileAtomic(target, formatAggJson(rows));
      } catch (e) {
        throw new UserError(`${flags.out}: cannot write the rows: ${(e as Error).message}`);
      }
    });
}
