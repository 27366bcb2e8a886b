export { checkDramBudgets, checkRunnerLabels, loadMasterConfigs, loadRunners, readYamlFile } from './load.js';
export type { Catalog, LoadOptions, Loaded } from './load.js';
export { ENTRY_RULES, searchSpaceEntries } from './rules.js';
export type { EntryRule, Finding } from './rules.js';
export { SCHEMA_KINDS } from './schema-kinds.js';
export type { SchemaKind } from './schema-kinds.js';
/** JSON Schema export lives in './json-schema.js' (imported on demand: it is large). */
export { ProblemsError, describeValue, formatPath, formatProblem, hasErrors } from './problems.js';
export type { PathSegment, Problem } from './problems.js';
export { TopologyError, agenticDramGpus, singleNodeGpus, workerGpusPerNode } from './topology.js';
export { parseYaml } from './yaml/index.js';
export type { YamlDocument } from './yaml/index.js';
export type * from './schema.js';
