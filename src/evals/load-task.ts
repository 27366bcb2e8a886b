import { describeValue } from '../catalog/index.js';
import { availableSplits, docSource, readSplit } from './datasets.js';
import type { Doc } from './datasets.js';
import { DatasetError } from './datasets.js';
import { ensureGsm8k } from './gsm8k-download.js';
import { TaskFileError, readTaskFile } from './task-file.js';
import type { TaskSpec } from './task-file.js';
import { TemplateError } from './template.js';
import { UserError } from '../util/user-error.js';
import type { DocTemplate } from './template.js';

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

/** The tasks named (built-in names or task files), each once, loaded with their data (`data`, else each one's default). */
export async function loadTasks(
  names: readonly string[],
  data: string | undefined,
  log: (line: string) => void,
): Promise<LoadedTask[]> {
  const specs = names.map((n) => readTaskFile(n));
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.task)) throw new UserError(`task ${s.task} is asked twice`);
    seen.add(s.task);
  }
  return Promise.all(specs.map(async (s) => loadTask(s, await dataDirFor(s, data, log))));
}

export async function loadTask(spec: TaskSpec, dataDir: string): Promise<LoadedTask> {
  const read = async (split: string): Promise<Doc[]> => {
    const rows = await readSplit(dataDir, spec.dataset, split);
    const docs = spec.processDocs ? spec.processDocs.apply(rows) : rows;
    checkDocs(spec, docs, split);
    return docs;
  };
  const docs = await read(spec.evalSplit);
  if (docs.length === 0)
    throw new DatasetError(`${spec.task}: the ${spec.evalSplit} split of ${spec.dataset.path} under ${dataDir} has no rows`);
  const fewshotIsEval = spec.fewshotSplit === spec.evalSplit;
  const fewshot = spec.numFewshot === 0 || spec.fewshotSplit === null ? [] : fewshotIsEval ? docs : await read(spec.fewshotSplit);
  return { spec, docs, fewshot, fewshotIsEval };
}

/**
 * Renders every doc's templates once (the renders are kept for the run), so that a row or a
 * template that cannot make a prompt is an error naming the row, the template and the field
 * before any request is sent: text where text is expected; a target may also be a number
 * (AIME's integer answers).
 */
function checkDocs(spec: TaskSpec, docs: readonly Doc[], split: string): void {
  const templates: [string, DocTemplate | undefined][] = [
    ['doc_to_text', spec.docToText],
    ['doc_to_target', spec.docToTarget],
    ['description', spec.description],
  ];
  docs.forEach((doc, i) => {
    const row = docSource(doc) ?? `the ${split} split's row ${i + 1}`;
    for (const [key, template] of templates) {
      if (!template) continue;
      let value: unknown;
      try {
        value = template.render(doc);
      } catch (e) {
        if (!(e instanceof TemplateError)) throw e;
        const odd = [...template.names]
          .filter((name) => Object.hasOwn(doc, name) && typeof doc[name] !== 'string')
          .map((name) => `field ${JSON.stringify(name)} is ${describeValue(doc[name])}`);
        throw new TaskFileError(
          `${row}: ${key} of ${spec.file} fails on this row: ${e.message}${odd.length > 0 ? ` (${odd.join(', ')})` : ''}`,
          { hint: 'fix the template, or the row' },
        );
      }
      const isTarget = key === 'doc_to_target';
      if (typeof value === 'string' || (isTarget && (typeof value === 'number' || typeof value === 'boolean'))) continue;
      const what = Object.hasOwn(doc, template.source) ? `field ${JSON.stringify(template.source)}` : `${key}'s value`;
      throw new DatasetError(
        `${row}: ${what} is ${describeValue(value)}, not ${isTarget ? 'text or a number' : 'text'} (${key} of ${spec.file})`,
        {
          hint: 'fix the row, or write the template to pick the text out of it',
        },
      );
    }
  });
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
