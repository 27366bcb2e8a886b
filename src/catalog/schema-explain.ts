import type { Subject } from './issues.js';
import type { Problem } from './problems.js';
import type { SchemaName } from './schema-shapes.js';
import { schemaProblems } from './schema-problems.js';
import { MultiNodeEntry, RunnersFile, SingleNodeEntry } from './schema.js';

const SCHEMAS = { singleNodeEntry: SingleNodeEntry, multiNodeEntry: MultiNodeEntry, runners: RunnersFile };

/** What zod finds wrong with a value the acceptor refused ([] if zod accepts it after all). */
export function explain(name: SchemaName, subject: Subject, value: unknown): Problem[] {
  const schema = SCHEMAS[name];
  const result = schema.safeParse(value);
  return result.success ? [] : schemaProblems(subject, schema, value, result.error.issues);
}
