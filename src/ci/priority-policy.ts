/**
 * The CI priority policy, `configs/ci-priority.yaml` (InferenceX's file, read as it is): the base
 * score, the adjustments each job fact earns, and the labels that change the queue. InferenceX's
 * script reads it unchecked; here every key is known, every score a number, and a mistake is an
 * error at its file:line naming the key and the fix.
 */
import * as z from 'zod';
import { ProblemsError, hasErrors, isPlainMapping, problemAt, readYamlFile } from '../catalog/index.js';
import { schemaProblems } from '../catalog/schema-problems.js';
import type { Subject } from '../catalog/index.js';
import { DECIMAL_TEXT } from '../pycompat/decimal.js';

export const DEFAULT_PRIORITY_POLICY = 'configs/ci-priority.yaml';

const expect = (text: string) => ({ error: text });
// PyYAML reads `1e-05` (no dot) as a string, and the reference's Decimal(str(value)) takes it
// all the same; so does this, but only a string that is a number.
const score = z.union(
  [z.number(), z.string().trim().regex(DECIMAL_TEXT, expect('a number, e.g. 0.75'))],
  expect('a number, e.g. 0.75'),
);
const scores = (of: string) => z.record(z.string(), score, expect(`a mapping of ${of} → score adjustment`));
const names = (of: string) => z.array(z.string(expect('a label name')).min(1, expect('a label name')), expect(`a list of ${of}`));

const PolicySchema = z.strictObject({
  version: z.literal(1, expect('1 (the only policy version)')),
  'base-score': score.meta({ description: 'Every job starts here; higher runs sooner.' }),
  adjustments: z.strictObject(
    {
      event: scores('event name (push, pull_request)').optional(),
      'multi-node': score.optional(),
      agentic: score.optional(),
      'eval-only': score.optional(),
      precision: scores('precision').optional(),
      'spec-decoding': scores('speculative-decoding method').optional(),
      'framework-prefix': scores('framework prefix').optional(),
      'model-prefix': scores('model prefix').optional(),
    },
    expect('a mapping of job facts → score adjustments'),
  ),
  labels: z.strictObject(
    {
      'skip-queue': z.strictObject({ name: z.string(expect('a label name')).min(1, expect('a label name')) }),
      'checklist-complete': z.strictObject({ names: names('labels').optional(), adjustment: score.optional() }).optional(),
      patchwork: z.strictObject({ names: names('labels'), score, 'waived-by': names('labels').optional() }),
    },
    expect('a mapping with skip-queue, checklist-complete and patchwork'),
  ),
});

export type PriorityPolicyFile = z.infer<typeof PolicySchema>;

/** A checked policy and the file it came from (for messages). */
export interface PriorityPolicy extends PriorityPolicyFile {
  file: string;
}

/** Read and check the policy file; every problem in it is reported at once, each at its line. */
export async function loadPriorityPolicy(file: string = DEFAULT_PRIORITY_POLICY): Promise<PriorityPolicy> {
  const read = await readYamlFile(
    file,
    `the CI priority policy ${file} does not exist`,
    `give --policy FILE, or run from the repository root where ${DEFAULT_PRIORITY_POLICY} is`,
  );
  if (!read.doc || hasErrors(read.problems)) throw new ProblemsError(read.problems);
  const subject: Subject = { doc: read.doc, base: [] };
  const value = read.doc.value;
  if (!isPlainMapping(value)) {
    throw new ProblemsError([
      problemAt(subject, [], 'the CI priority policy must be a mapping', {
        rule: 'schema',
        hint: 'start it with version: 1, base-score:, adjustments: and labels:',
      }),
    ]);
  }
  const result = PolicySchema.safeParse(value);
  if (!result.success) throw new ProblemsError(schemaProblems(subject, PolicySchema, value, result.error.issues));
  return { ...result.data, file };
}
