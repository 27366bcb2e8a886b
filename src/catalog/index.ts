export { concRange, concValues } from './conc.js';
export { loadMasterConfigs, loadRunners, readYamlFile } from './load.js';
export { checkDramBudgets, checkRunnerLabels } from './runner-checks.js';
export { loadSweepInputs } from './sweep-inputs.js';
export { defaultCatalogFiles, defaultMasterConfigs, validateFiles } from './validate-files.js';
export type { ValidateReport } from './validate-files.js';
export type { Catalog, LoadOptions, Loaded } from './load.js';
export { closest, problemAt } from './issues.js';
export type { Subject } from './issues.js';
export { ENTRY_RULES, searchSpaceEntries } from './rules.js';
export type { EntryRule, Finding } from './rules.js';
// zod's half (schema-problems.ts, json-schema.ts, schema.ts) is imported from its own modules, not
// from here: a command that reads valid files never loads it (schema-check.ts).
export { SCHEMA_KINDS } from './schema-kinds.js';
export type { SchemaKind } from './schema-kinds.js';
export { ProblemsError, describeValue, formatPath, formatProblem, hasErrors } from './problems.js';
export type { PathSegment, Problem } from './problems.js';
export { TopologyError, agenticDramGpus, singleNodeGpus, workerGpusPerNode } from './topology.js';
export { isPlainMapping, parseYaml } from './yaml/index.js';
export type { YamlDocument } from './yaml/index.js';
export { SAFE_NAME, SAFE_NAME_TEXT } from './names.js';
export type * from './schema.js';
export { gpuOfRunner, intMatches, resolveTuning, whenMatches } from './tuning.js';
export type { ResolvedTuning, ResolvedTuningSettings, TunedArg, TuningFacts } from './tuning.js';
