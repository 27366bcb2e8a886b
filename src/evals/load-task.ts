import { availableSplits, readSplit } from './datasets.js';
import type { Doc } from './datasets.js';
import { DatasetError } from './datasets.js';
import { ensureGsm8k } from './gsm8k-download.js';
import type { TaskSpec } from './task-file.js';

/**
 * A task with its documents: the eval split and the few-shot pool, read from the local data
 * folder (`--data DIR`, laid out as the hub exports datasets) and mapped through process_docs.
 */

export interface LoadedTask {
  spec: TaskSpec;
  docs: Doc[];
  fewshot: Doc[];
  /** The few-shot pool is the eval split (a doc is then never its own shot). */
  fewshotIsEval: boolean;
}

export async function loadTask(spec: TaskSpec, dataDir: string): Promise<LoadedTask> {
  const read = async (split: string): Promise<Doc[]> => {
    const rows = await readSplit(dataDir, spec.dataset, split);
    return spec.processDocs ? spec.processDocs.apply(rows) : rows;
  };
  const docs = await read(spec.evalSplit);
  if (docs.length === 0)
    throw new DatasetError(`${spec.task}: the ${spec.evalSplit} split of ${spec.dataset.path} under ${dataDir} has no rows`);
  const fewshotIsEval = spec.fewshotSplit === spec.evalSplit;
  const fewshot = spec.numFewshot === 0 || spec.fewshotSplit === null ? [] : fewshotIsEval ? docs : await read(spec.fewshotSplit);
  return { spec, docs, fewshot, fewshotIsEval };
}

/** The GSM8K of InferenceX's task file, which Frontier can fetch itself (the pinned openai/grade-school-math files). */
const isGsm8k = (spec: TaskSpec): boolean => spec.dataset.path === 'openai/gsm8k';

/**
 * Where a task's data is: `--data DIR`; GSM8K when DIR does not hold it: `$FRONTIER_GSM8K`, else
 * the download cache. Nothing else is downloaded: other datasets must be supplied.
 */
export async function dataDirFor(spec: TaskSpec, data: string | undefined, log?: (line: string) => void): Promise<string> {
  if (data !== undefined && (!isGsm8k(spec) || availableSplits(data, spec.dataset).includes(spec.evalSplit))) return data;
  if (isGsm8k(spec)) return process.env.FRONTIER_GSM8K ?? (await ensureGsm8k({ log }));
  throw new DatasetError(
    `${spec.task} needs its data (${spec.dataset.path}${spec.dataset.name ? `, config ${spec.dataset.name}` : ''}): pass --data DIR`,
    {
      hint: `DIR holds the files as the hub exports them, e.g. DIR/${spec.dataset.path}/… (docs/evals.md, "Datasets")`,
    },
  );
}
