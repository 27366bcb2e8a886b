import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { problemAt } from './issues.js';
import type { Subject } from './issues.js';
import type { Problem } from './problems.js';
import { ENTRY_RULES } from './rules.js';
import { SAFE_NAME } from './names.js';
import { schemaProblemsOf } from './schema-check.js';
import type { MasterConfigEntry, RunnerConfig } from './schema.js';
import { isPlainMapping, parseYaml } from './yaml/index.js';
import type { YamlDocument } from './yaml/index.js';

/** Validated master configs: config key → entry, in file order then key order (as the reference merges them). */
export interface Catalog {
  entries: Map<string, MasterConfigEntry>;
  /** The document each config key was read from, for locating later findings. */
  origin: Map<string, YamlDocument>;
}

export interface Loaded<T> {
  value: T;
  problems: Problem[];
}

type ReadResult = { doc: YamlDocument; problems: Problem[] } | { doc: undefined; problems: Problem[] };

export interface LoadOptions {
  /** Directory relative paths are read from (default: the working directory); messages keep the path as given. */
  baseDir?: string;
  /** Read a file another way (e.g. from a git revision); undefined means it does not exist. */
  readFile?: (path: string) => Promise<Buffer | string | undefined>;
}

/** Read and parse one YAML file; a missing or unreadable file is a problem, not an exception. */
export async function readYamlFile(
  path: string,
  missingMessage: string,
  hint: string,
  options: LoadOptions = {},
): Promise<ReadResult> {
  let content: Buffer | string | undefined;
  try {
    // Read at once: a catalog file is small, and the thread pool's start costs more than the read.
    content = options.readFile ? await options.readFile(path) : readFileSync(resolve(options.baseDir ?? '.', path));
    if (content === undefined) throw Object.assign(new Error(missingMessage), { code: 'ENOENT' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? missingMessage
        : code === 'EISDIR'
          ? `'${path}' is a directory, not a YAML file`
          : `cannot read '${path}': ${(e as Error).message}`;
    return { doc: undefined, problems: [{ severity: 'error', rule: 'file', file: path, line: 0, col: 0, message, hint }] };
  }
  const doc = await parseYaml(content, path);
  return { doc, problems: doc.problems };
}

/**
 * Load master-config files (`configs/*-master.yaml`) and validate every entry: schema,
 * cross-field rules and file-level rules (a mapping, no `*` in keys, no key in two files).
 */
export async function loadMasterConfigs(paths: readonly string[], options: LoadOptions = {}): Promise<Loaded<Catalog>> {
  const catalog: Catalog = { entries: new Map(), origin: new Map() };
  const problems: Problem[] = [];
  const reads = await Promise.all(
    paths.map((path) =>
      readYamlFile(
        path,
        `Input file '${path}' does not exist.`,
        'check the path; InferenceX keeps master configs in configs/*-master.yaml',
        options,
      ),
    ),
  );
  for (const [i, path] of paths.entries()) {
    const read = reads[i]!;
    problems.push(...read.problems);
    const { doc } = read;
    if (!doc || read.problems.length > 0) continue;
    if (!isPlainMapping(doc.value)) {
      problems.push({
        severity: 'error',
        rule: 'file',
        file: path,
        line: 1,
        col: 1,
        message: `Config file '${path}' must contain a dictionary`,
        hint: 'a master config maps config keys to entries: `my-key:` followed by image, model, …',
      });
      continue;
    }
    const duplicates: { key: string; first: YamlDocument }[] = [];
    for (const [key, entry] of Object.entries(doc.value)) {
      const subject: Subject = { doc, base: [key], key };
      if (key.includes('*')) {
        problems.push(
          problemAt(subject, [], `Wildcard '*' is not allowed in master config keys: '${key}'`, {
            rule: 'config-key',
            hint: "'*' is reserved for config-key globs in perf-changelog.yaml; rename the key",
          }),
        );
      } else if (!SAFE_NAME.test(key)) {
        problems.push(
          problemAt(subject, [], `config key '${key}' cannot be part of a file name`, {
            rule: 'config-key',
            hint: 'use letters, digits, ".", "_" and "-", starting with a letter or digit, e.g. dsr1-fp8-h200-sglang',
          }),
        );
      }
      const first = catalog.origin.get(key);
      if (first) {
        duplicates.push({ key, first });
        continue;
      }
      catalog.origin.set(key, doc);
      const validated = await validateEntry(subject, entry, problems);
      if (validated) catalog.entries.set(key, validated);
    }
    if (duplicates.length > 0) {
      const { key, first } = duplicates[0]!;
      const firstPos = first.locate([key]);
      const names = duplicates.map((d) => d.key).sort();
      problems.push(
        problemAt({ doc, base: [key] }, [], `Duplicate configuration keys found in '${path}': ${names.join(', ')}`, {
          rule: 'duplicate-config-key',
          hint: `"${key}" is first defined at ${first.file}:${firstPos.line}; config keys must be unique across master-config files`,
        }),
      );
    }
  }
  return { value: catalog, problems };
}

async function validateEntry(subject: Subject, entry: unknown, problems: Problem[]): Promise<MasterConfigEntry | undefined> {
  const multinode = isPlainMapping(entry) && entry.multinode === true;
  const schemaProblems = await schemaProblemsOf(multinode ? 'multiNodeEntry' : 'singleNodeEntry', subject, entry);
  if (schemaProblems.length > 0) {
    problems.push(...schemaProblems);
    return undefined;
  }
  // The schema has no defaults or transforms, so the raw value is the validated entry; keeping it
  // (not zod's copy) preserves the file's key order, which the matrix output depends on.
  const config = entry as MasterConfigEntry;
  let valid = true;
  for (const rule of ENTRY_RULES) {
    for (const finding of rule.check(config)) {
      valid = false;
      problems.push(problemAt(subject, finding.path, finding.message, { rule: rule.id, hint: finding.hint }));
    }
  }
  return valid ? config : undefined;
}

/** Load and validate runners.yaml (`labels` and optional `hardware`). */
export async function loadRunners(path: string, options: LoadOptions = {}): Promise<Loaded<RunnerConfig | undefined>> {
  const read = await readYamlFile(
    path,
    `Runner config file '${path}' does not exist.`,
    'pass --runner-config, or run from the repository root so configs/runners.yaml is found',
    options,
  );
  const { doc } = read;
  if (!doc || read.problems.length > 0) return { value: undefined, problems: read.problems };
  const subject: Subject = { doc, base: [] };
  if (!isPlainMapping(doc.value) || !isPlainMapping(doc.value.labels)) {
    const problem = problemAt(
      subject,
      isPlainMapping(doc.value) ? ['labels'] : [],
      'Runner config must define a labels mapping',
      {
        rule: 'runners',
        hint: 'runners.yaml has two sections: labels (label → runner names) and hardware (label → facts)',
      },
    );
    return { value: undefined, problems: [problem] };
  }
  const problems = await schemaProblemsOf('runners', subject, doc.value);
  return problems.length > 0 ? { value: undefined, problems } : { value: doc.value as RunnerConfig, problems };
}
