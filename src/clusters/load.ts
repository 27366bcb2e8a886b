import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isPlainMapping, parseYaml, problemAt, readYamlFile } from '../catalog/index.js';
import { schemaProblems } from '../catalog/schema-problems.js';
import type { LoadOptions, Problem, Subject, YamlDocument } from '../catalog/index.js';
import { crossFieldProblems } from './checks.js';
import { ClusterProfileError, LOCAL_PROFILE, defaultRetries, parseMount } from './profile.js';
import type { ClusterProfile } from './profile.js';
import { ClusterProfileSchema, DEFAULT_HEALTH_CHECK, DEFAULT_TIME_LIMIT_MINUTES } from './schema.js';
import type { ProfileFile } from './schema.js';

// Reading profile files (each with every problem in it) and loading a clusters/ directory.

/** One profile file as read: the profile (when its shape is valid) and every problem in it. */
export interface ClusterProfileRead {
  file: string;
  name: string;
  /**
   * Undefined when the file is not a valid profile shape. A profile whose fields disagree (an
   * unpinned commit, a Slurm key on a local cluster) is still returned, with its problems, so
   * that a review can check the rest of it.
   */
  profile: ClusterProfile | undefined;
  problems: Problem[];
  /** The runner labels the file lists, as far as they can be read (also when the profile cannot). */
  runners: string[] | undefined;
}

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** A profile's name: its file stem. */
export const profileName = (file: string): string => basename(file).replace(/\.yaml$/, '');

/** Parse and check one profile from its text. */
export async function parseClusterProfile(file: string, text: string | Buffer): Promise<ClusterProfileRead> {
  return readDocument(file, await parseYaml(text, file));
}

function readDocument(file: string, doc: YamlDocument): ClusterProfileRead {
  const name = profileName(file);
  const read: ClusterProfileRead = { file, name, profile: undefined, problems: [...doc.problems], runners: undefined };
  const subject: Subject = { doc, base: [] };
  if (!NAME.test(name)) {
    read.problems.push({
      severity: 'error',
      rule: 'file',
      file,
      line: 0,
      col: 0,
      message: `cluster profile name "${name}" (the file's stem) is not a plain lower-case name`,
      hint: 'rename the file to lower-case letters, digits, ".", "_" and "-", e.g. clusters/b300-nv.yaml',
    });
  }
  // A file with YAML problems (a duplicate key, say) is not checked further: its value is not what was meant.
  const yamlErrors = doc.problems.some((p) => p.severity === 'error');
  const raw = isPlainMapping(doc.value) ? doc.value.runners : undefined;
  if (Array.isArray(raw) && raw.every((r) => typeof r === 'string')) read.runners = raw as string[];
  if (yamlErrors) return read;
  if (!isPlainMapping(doc.value)) {
    read.problems.push(
      problemAt(subject, [], 'a cluster profile must be a mapping', {
        rule: 'schema',
        hint: 'start with scheduler:, nodes:, gpus-per-node: and gpu:',
      }),
    );
    return read;
  }
  const result = ClusterProfileSchema.safeParse(doc.value);
  if (!result.success) {
    read.problems.push(...schemaProblems(subject, ClusterProfileSchema, doc.value, result.error.issues));
    return read;
  }
  const value = result.data;
  read.problems.push(...crossFieldProblems(subject, value));
  read.profile = toProfile(name, file, doc, value);
  return read;
}

function toProfile(name: string, file: string, doc: YamlDocument, v: ProfileFile): ClusterProfile {
  return {
    name,
    source: {
      file,
      builtin: false,
      locate: (path) => doc.locate(path),
      locateKey: (path, key) => doc.locateKey(path, key),
    },
    description: v.description,
    scheduler: v.scheduler,
    runners: v.runners ?? [],
    nodes: v.nodes,
    gpusPerNode: v['gpus-per-node'],
    gpu: v.gpu,
    partition: v.partition,
    account: v.account,
    qos: v.qos,
    reservation: v.reservation,
    sbatchDirectives: v['sbatch-directives'] ?? [],
    timeLimitMinutes: v['time-limit'] ?? DEFAULT_TIME_LIMIT_MINUTES,
    healthCheck: {
      attempts: v['health-check']?.attempts ?? DEFAULT_HEALTH_CHECK.attempts,
      intervalSeconds: v['health-check']?.interval ?? DEFAULT_HEALTH_CHECK.interval,
    },
    container: {
      runtime: v.container?.runtime ?? 'none',
      mounts: (v.container?.mounts ?? []).map((m) => parseMount(m) ?? { source: m, target: m, readOnly: false }),
      squashDir: v.container?.['squash-dir'],
    },
    simulate: v.simulate ?? false,
    sim: { runVariation: v.sim?.['run-variation'] ?? 0, seed: v.sim?.seed ?? 0 },
    repeats: { count: v.repeats ?? 1, scope: v['repeat-scope'] ?? 'launch' },
    retries: v.retries ?? defaultRetries(v.scheduler),
    excludeNodes: (v['exclude-nodes'] ?? []).filter((x) => typeof x === 'string'),
    excludeNodeRules: (v['exclude-nodes'] ?? [])
      .filter((x) => typeof x !== 'string')
      .map((x) => ({ nodes: x.nodes, framework: x.framework, models: x.models })),
    inferencexRunner: v['inferencex-runner'],
    inferencexClient: v['inferencex-client'],
    srtctl: v.srtctl && { root: v.srtctl.root, command: v.srtctl.command ?? ['srtctl'] },
    engines: v.engines ?? {},
    models: (v.models ?? []).map((m) => ({ modelPrefix: m['model-prefix'], precision: m.precision, path: m.path })),
    routing: (v.routing ?? []).map((r) => ({
      match: {
        framework: r.match.framework,
        modelPrefix: r.match['model-prefix'],
        precision: r.match.precision,
        scenario: r.match.scenario,
        specDecoding: r.match['spec-decoding'],
        recipe: r.match.recipe,
      },
      toolchain: { repo: r.toolchain.repo, commit: r.toolchain.commit },
      flags: r.flags ?? [],
    })),
  };
}

/** Which files of a clusters/ listing are profiles (`*.yaml`); a `.yml` file is a problem, not ignored. */
export function profileFiles(paths: readonly string[]): { files: string[]; problems: Problem[] } {
  const files: string[] = [];
  const problems: Problem[] = [];
  for (const path of [...paths].sort()) {
    if (path.endsWith('.yaml')) files.push(path);
    else if (path.endsWith('.yml')) {
      problems.push({
        severity: 'error',
        rule: 'file',
        file: path,
        line: 0,
        col: 0,
        message: 'cluster profiles are read from *.yaml files; this .yml file would be ignored',
        hint: `rename it to ${basename(path).replace(/\.yml$/, '.yaml')}`,
      });
    }
  }
  return { files, problems };
}

/** Read profile files (through `options.readFile` when given), reporting every problem; throws nothing. */
export async function readClusterProfiles(files: readonly string[], options: LoadOptions = {}): Promise<ClusterProfileRead[]> {
  return Promise.all(
    files.map(async (file): Promise<ClusterProfileRead> => {
      const read = await readYamlFile(file, `cluster profile '${file}' does not exist`, 'check the path', options);
      if (!read.doc) return { file, name: profileName(file), profile: undefined, problems: read.problems, runners: undefined };
      return readDocument(file, read.doc);
    }),
  );
}

function valid(reads: readonly ClusterProfileRead[], extra: Problem[] = []): ClusterProfile[] {
  const problems = [...extra, ...reads.flatMap((r) => r.problems)];
  if (problems.some((p) => p.severity === 'error')) throw new ClusterProfileError(problems);
  return reads.map((r) => r.profile!).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Load one profile file; throws ClusterProfileError with every problem in it. */
export async function loadClusterProfile(file: string): Promise<ClusterProfile> {
  return valid(await readClusterProfiles([file]))[0]!;
}

/**
 * Load every `*.yaml` of a clusters/ directory (name = file stem), sorted by name. Every problem
 * of every file is reported together (ClusterProfileError). A missing directory, or one without
 * profiles, gives the embedded default `local` profile.
 */
export async function loadClusterProfiles(dir: string): Promise<ClusterProfile[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [LOCAL_PROFILE];
    throw e;
  }
  const { files, problems } = profileFiles(names.map((n) => join(dir, n)));
  if (files.length === 0 && problems.length === 0) return [LOCAL_PROFILE];
  return valid(await readClusterProfiles(files), problems);
}
