/**
 * A downloaded sweep's artifacts (`gh run download`: one folder per artifact), read into what the
 * reuse validation looks at. Reading is all this module does; the checks are pure (validate.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { UserError } from '../../util/user-error.js';
import { readJsonFile } from '../../util/json-file.js';
import { isDir } from '../../util/fs-kind.js';

export interface JsonFile {
  /** Relative to the artifacts folder, with `/`. */
  path: string;
  data: unknown;
}

export type EvalMeta = { kind: 'missing' } | { kind: 'invalid'; error: string } | { kind: 'ok'; value: unknown };

/** A raw eval artifact (`eval_*`, not the aggregate or the logs): its metadata and result files. */
export interface RawEvalDir {
  name: string;
  meta: EvalMeta;
  /** The names of its `results*.json` files (lm-eval's output). */
  resultFiles: string[];
}

export interface ArtifactSet {
  /** results_bmk/*.json: the aggregate of fixed-sequence (and agentic) rows. */
  resultsBmk: JsonFile[] | undefined;
  /** bmk_agentic_*\/**\/*.json: agentic point results. */
  agenticPoints: JsonFile[];
  /** agentic_*: the raw agentic artifacts, by folder name. */
  rawAgenticDirs: string[];
  rawEvals: RawEvalDir[];
  /** eval_results_all/*.json, or undefined when there is no such folder. */
  evalAggregate: JsonFile[] | undefined;
  /** run-stats/*.json file names. */
  runStats: string[];
}

const sorted = (names: string[]): string[] => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const readJsonAt = (root: string, path: string): JsonFile => ({
  path: relative(root, path).split(sep).join('/'),
  data: readJsonFile(path, { hint: 'download the artifact again (gh run download RUN_ID -n NAME)' }),
});

const jsonFilesIn = (root: string, dir: string): JsonFile[] =>
  isDir(dir)
    ? sorted(readdirSync(dir).filter((n) => n.endsWith('.json') && !isDir(join(dir, n)))).map((n) =>
        readJsonAt(root, join(dir, n)),
      )
    : [];

function jsonFilesUnder(root: string, dir: string): JsonFile[] {
  const out: JsonFile[] = [];
  for (const name of sorted(readdirSync(dir))) {
    const path = join(dir, name);
    if (isDir(path)) out.push(...jsonFilesUnder(root, path));
    else if (name.endsWith('.json')) out.push(readJsonAt(root, path));
  }
  return out;
}

/** Raw eval artifacts: `eval_*` except the aggregate and the server-log and GPU-metric uploads. */
export const isRawEvalDir = (name: string): boolean =>
  name.startsWith('eval_') &&
  name !== 'eval_results_all' &&
  !name.startsWith('eval_server_logs_') &&
  !name.startsWith('eval_gpu_metrics_');

function rawEval(dir: string, name: string): RawEvalDir {
  const metaPath = join(dir, 'meta_env.json');
  let meta: EvalMeta;
  if (!existsSync(metaPath) || isDir(metaPath)) meta = { kind: 'missing' };
  else {
    try {
      meta = { kind: 'ok', value: JSON.parse(readFileSync(metaPath, 'utf8')) };
    } catch (e) {
      meta = { kind: 'invalid', error: (e as Error).message };
    }
  }
  const resultFiles = sorted(readdirSync(dir).filter((n) => n.startsWith('results') && n.endsWith('.json')));
  return { name, meta, resultFiles };
}

export function readArtifactSet(root: string): ArtifactSet {
  if (!isDir(root))
    throw new UserError(`artifacts directory does not exist: ${root}`, {
      hint: 'download the source run’s artifacts first: gh run download RUN_ID -D DIR',
    });
  const top = sorted(readdirSync(root)).filter((n) => isDir(join(root, n)));
  return {
    resultsBmk: isDir(join(root, 'results_bmk')) ? jsonFilesIn(root, join(root, 'results_bmk')) : undefined,
    agenticPoints: top.filter((n) => n.startsWith('bmk_agentic_')).flatMap((n) => jsonFilesUnder(root, join(root, n))),
    rawAgenticDirs: top.filter((n) => n.startsWith('agentic_')),
    rawEvals: top.filter(isRawEvalDir).map((n) => rawEval(join(root, n), n)),
    evalAggregate: isDir(join(root, 'eval_results_all')) ? jsonFilesIn(root, join(root, 'eval_results_all')) : undefined,
    runStats: isDir(join(root, 'run-stats'))
      ? sorted(readdirSync(join(root, 'run-stats')).filter((n) => n.endsWith('.json')))
      : [],
  };
}
