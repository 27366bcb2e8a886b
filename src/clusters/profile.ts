import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as z from 'zod';
import {
  ProblemsError,
  closest,
  gpuOfRunner,
  isPlainMapping,
  parseYaml,
  problemAt,
  readYamlFile,
  schemaProblems,
} from '../catalog/index.js';
import type { LoadOptions, PathSegment, Problem, Subject, YamlDocument } from '../catalog/index.js';
import { globProblem } from './routing.js';
import type { RoutingRule } from './routing.js';

/**
 * Cluster profiles: `clusters/<name>.yaml`, one per cluster, declaring what InferenceX's
 * per-cluster bash launchers hard-code (scheduler, partition and account, container runtime,
 * where the weights are, which srt-slurm commit runs which recipes). Keys are kebab-case like
 * the catalog's; unknown keys are errors that name the likely intended key.
 */

// ---------------------------------------------------------------------------------------------
// Schema (the shape); the rules between fields are checked after it, with positions.

const expect = (text: string) => ({ error: text });
const posInt = z.int(expect('a positive integer')).positive(expect('a positive integer'));
const nonEmpty = z.string(expect('a non-empty string')).min(1, expect('a non-empty string'));
const bool = z.boolean(expect('true or false'));

export const SCHEDULERS = ['local', 'slurm'] as const;
export const CONTAINER_RUNTIMES = ['none', 'enroot', 'apptainer', 'docker'] as const;
/** Keys that only mean something to Slurm (errors on a `local` cluster). */
export const SLURM_ONLY_KEYS = ['partition', 'account', 'qos', 'reservation', 'sbatch-directives', 'srtctl'] as const;

export const DEFAULT_TIME_LIMIT_MINUTES = 60;
export const DEFAULT_HEALTH_CHECK = { attempts: 120, interval: 5 } as const;
/** On Slurm, a time limit below this needs an explicit health-check. */
export const HEALTH_CHECK_REQUIRED_BELOW_MINUTES = 90;

const quoted = (values: readonly string[]): string =>
  values.length === 2 ? `"${values[0]}" or "${values[1]}"` : `one of ${values.map((v) => `"${v}"`).join(', ')}`;

const HealthCheckSchema = z.strictObject(
  {
    attempts: posInt
      .optional()
      .meta({ description: `Health probes before giving up (default ${DEFAULT_HEALTH_CHECK.attempts}).` }),
    interval: z
      .number(expect('a positive number of seconds'))
      .positive(expect('a positive number of seconds'))
      .optional()
      .meta({ description: `Seconds between probes (default ${DEFAULT_HEALTH_CHECK.interval}).` }),
  },
  expect('a mapping with attempts and interval'),
);

const ContainerSchema = z.strictObject(
  {
    runtime: z.enum(CONTAINER_RUNTIMES, expect(quoted(CONTAINER_RUNTIMES))).optional(),
    mounts: z.array(nonEmpty, expect('a list of "src:dst[:ro]" strings')).optional(),
    'squash-dir': nonEmpty.optional(),
  },
  expect('a mapping (container: runtime, mounts, squash-dir)'),
);

const optionValue = z.union([z.string(), z.number(), z.boolean()], expect('a string, a number, or true or false'));

const ModelSchema = z.strictObject(
  { 'model-prefix': nonEmpty, precision: nonEmpty, path: nonEmpty },
  expect('a mapping with model-prefix, precision and path'),
);

const RoutingRuleSchema = z.strictObject(
  {
    match: z.strictObject(
      {
        framework: nonEmpty.optional(),
        'model-prefix': nonEmpty.optional(),
        precision: nonEmpty.optional(),
        scenario: z.enum(['fixed-seq-len', 'agentic-coding'], expect('"fixed-seq-len" or "agentic-coding"')).optional(),
        'spec-decoding': nonEmpty.optional(),
        recipe: nonEmpty.optional(),
      },
      expect('a mapping (match: framework, model-prefix, precision, scenario, spec-decoding, recipe; {} matches every recipe)'),
    ),
    toolchain: z.strictObject(
      { repo: nonEmpty, commit: z.string(expect('a full 40-hex commit, quoted')) },
      expect('a mapping with repo and commit'),
    ),
    flags: z
      .array(
        z.strictObject({ flag: nonEmpty, reason: nonEmpty }, expect('a mapping with flag and reason')),
        expect('a list of { flag, reason }'),
      )
      .optional(),
  },
  expect('a mapping (a routing rule: match, toolchain, flags)'),
);

export const ClusterProfileSchema = z.strictObject(
  {
    description: z.string(expect('a string')).optional(),
    scheduler: z.enum(SCHEDULERS, expect(quoted(SCHEDULERS))),
    runners: z.array(nonEmpty, expect('a list of runner labels')).optional(),
    nodes: posInt,
    'gpus-per-node': posInt,
    gpu: nonEmpty,
    partition: nonEmpty.optional(),
    account: nonEmpty.optional(),
    qos: nonEmpty.optional(),
    reservation: nonEmpty.optional(),
    'sbatch-directives': z.array(nonEmpty, expect('a list of sbatch options, e.g. "--exclusive"')).optional(),
    'time-limit': posInt.optional(),
    'health-check': HealthCheckSchema.optional(),
    container: ContainerSchema.optional(),
    simulate: bool.optional(),
    'inferencex-runner': nonEmpty.optional(),
    srtctl: z
      .strictObject(
        {
          root: nonEmpty,
          command: z.array(nonEmpty, expect('a command as a list, e.g. [srtctl] or [uv, run, srtctl]')).optional(),
        },
        expect('a mapping (srtctl: root, command)'),
      )
      .optional(),
    'inferencex-client': z.enum(['inferencex', 'frontier'], expect('"inferencex" or "frontier"')).optional(),
    engines: z
      .record(
        z.string(),
        z.record(z.string(), optionValue, expect('a mapping of engine option → value')),
        expect('a mapping of framework → options'),
      )
      .optional(),
    models: z.array(ModelSchema, expect('a list of { model-prefix, precision, path }')).optional(),
    routing: z.array(RoutingRuleSchema, expect('a list of routing rules')).optional(),
  },
  expect('a mapping (a cluster profile: scheduler, nodes, gpus-per-node, gpu, …)'),
);

type ProfileFile = z.infer<typeof ClusterProfileSchema>;

// ---------------------------------------------------------------------------------------------
// The profile as the rest of Frontier uses it.

export interface Pos {
  line: number;
  col: number;
}

/** Where a profile came from, and where its fields are written (for later findings). */
export interface ProfileSource {
  /** The file as given (tree-relative in a review); `(built-in)` for the embedded default. */
  file: string;
  builtin: boolean;
  /** Where a field is written, by its path in the file (`['routing', 0, 'toolchain', 'commit']`); line 0 when unknown. */
  locate(path: readonly PathSegment[]): Pos;
  /** Where a mapping key itself is written. */
  locateKey(path: readonly PathSegment[], key: string): Pos;
}

export interface Mount {
  /** Host path (may hold `${VAR}` references). */
  source: string;
  /** Path inside the container. */
  target: string;
  readOnly: boolean;
}

export interface ModelLocation {
  modelPrefix: string;
  precision: string;
  /** Where the weights are; may hold `${VAR}` references, expanded by `modelPath`. */
  path: string;
}

/**
 * srt-slurm's srtctl as the executor of multi-node recipes: `root` is its checkout (`{commit}` in
 * it stands for the routed toolchain commit), where `recipes/` and `outputs/` are; `command` runs it.
 */
export interface SrtctlSettings {
  root: string;
  command: string[];
}

export interface ClusterProfile {
  /** The file's stem: what `--cluster` names. */
  name: string;
  source: ProfileSource;
  description: string | undefined;
  scheduler: 'local' | 'slurm';
  /** Runner labels this cluster serves (empty: only by name, or as the only profile). */
  runners: string[];
  /** local: how many nodes this host stands in for; slurm: nodes available to one job. */
  nodes: number;
  gpusPerNode: number;
  /** GPU sku of the nodes, lower case (h100, b200, mi355x). */
  gpu: string;
  partition: string | undefined;
  account: string | undefined;
  qos: string | undefined;
  reservation: string | undefined;
  /** Extra `#SBATCH` options, e.g. `--exclusive`. */
  sbatchDirectives: string[];
  timeLimitMinutes: number;
  healthCheck: { attempts: number; intervalSeconds: number };
  container: { runtime: (typeof CONTAINER_RUNTIMES)[number]; mounts: Mount[]; squashDir: string | undefined };
  /** Run every GPU engine row on Frontier's simulated engine (a dry-run cluster). */
  simulate: boolean;
  /**
   * The InferenceX runner this cluster stands for (`h200-dgxc-slurm_0`): its launcher picks the
   * benchmark scripts of InferenceX rows. Default: the first runner of the row's label.
   */
  inferencexRunner: string | undefined;
  /**
   * The benchmark client InferenceX scripts call: InferenceX's own (`utils/bench_serving`), or
   * `frontier bench` with the same command line. Default: InferenceX's, frontier's on a simulating cluster.
   */
  inferencexClient: 'inferencex' | 'frontier' | undefined;
  /** Run multi-node recipes with srt-slurm's own srtctl (a Slurm cluster that does not simulate). */
  srtctl: SrtctlSettings | undefined;
  /** Per-engine options: framework → option → value. */
  engines: Record<string, Record<string, string | number | boolean>>;
  models: ModelLocation[];
  routing: RoutingRule[];
}

/** Thrown by the loaders with every problem of every file; the CLI prints it like the catalog's. */
export class ClusterProfileError extends ProblemsError {
  constructor(problems: Problem[]) {
    super(problems);
    this.name = 'ClusterProfileError';
  }
}

const BUILTIN_FILE = '(built-in)';

const builtinSource: ProfileSource = {
  file: BUILTIN_FILE,
  builtin: true,
  locate: () => ({ line: 0, col: 0 }),
  locateKey: () => ({ line: 0, col: 0 }),
};

/**
 * The embedded default, used when a catalog has no clusters/ directory: this host, one node of
 * eight H100s, engines run for real. `examples/clusters/local.yaml` spells it out.
 */
export const LOCAL_PROFILE: ClusterProfile = Object.freeze<ClusterProfile>({
  name: 'local',
  source: builtinSource,
  description: 'This host; engines run as local processes.',
  scheduler: 'local',
  runners: [],
  nodes: 1,
  gpusPerNode: 8,
  gpu: 'h100',
  partition: undefined,
  account: undefined,
  qos: undefined,
  reservation: undefined,
  sbatchDirectives: [],
  timeLimitMinutes: DEFAULT_TIME_LIMIT_MINUTES,
  healthCheck: { attempts: DEFAULT_HEALTH_CHECK.attempts, intervalSeconds: DEFAULT_HEALTH_CHECK.interval },
  container: { runtime: 'none', mounts: [], squashDir: undefined },
  simulate: false,
  inferencexRunner: undefined,
  inferencexClient: undefined,
  srtctl: undefined,
  engines: {},
  models: [],
  routing: [],
});

// ---------------------------------------------------------------------------------------------
// Reading.

/** One profile file as read: the profile (when its shape is valid) and every problem in it. */
/** The GPU a row runs on: the cluster's, or on a simulating cluster the row's own (its runner label: h200, h200-multinode → h200). */
export const gpuFor = (cluster: ClusterProfile, runner: string): string => (cluster.simulate ? gpuOfRunner(runner) : cluster.gpu);

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
/** The slowest the simulated engine runs (`frontier sim serve --speed` takes the same range). */
const SIM_MIN_SPEED = 1e-3;
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const FULL_SHA = /^[0-9a-fA-F]{40}$/;
const GIT_URL = /^((https?|ssh|git|file):\/\/\S+|[\w.-]+@[\w.-]+:\S+)$/;

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

/** `src:dst[:ro|rw]`; undefined when malformed. */
export function parseMount(spec: string): Mount | undefined {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3) return undefined;
  const [source, target, mode] = parts as [string, string, string | undefined];
  if (source === '' || !target.startsWith('/')) return undefined;
  if (mode !== undefined && mode !== 'ro' && mode !== 'rw') return undefined;
  return { source, target, readOnly: mode === 'ro' };
}

/** The rules between fields, each a located problem with a fix. */
function crossFieldProblems(subject: Subject, v: ProfileFile): Problem[] {
  const out: Problem[] = [];
  const at = (path: PathSegment[], message: string, rule: string, hint: string, keyName?: string): void => {
    out.push(problemAt(subject, path, message, { rule, hint, ...(keyName !== undefined ? { keyName } : {}) }));
  };

  if (v.gpu !== v.gpu.toLowerCase() || !/^[a-z0-9][a-z0-9-]*$/.test(v.gpu.toLowerCase())) {
    at(
      ['gpu'],
      `gpu "${v.gpu}" is not a lower-case GPU sku`,
      'schema',
      `write the sku in lower case, e.g. gpu: ${v.gpu.toLowerCase()}`,
    );
  }

  const seenRunners = new Map<string, number>();
  (v.runners ?? []).forEach((label, i) => {
    const first = seenRunners.get(label);
    if (first !== undefined) at(['runners', i], `runner "${label}" is listed twice (runners[${first}])`, 'schema', 'remove one');
    else seenRunners.set(label, i);
  });

  if (v.scheduler === 'local') {
    for (const key of SLURM_ONLY_KEYS) {
      if (v[key] === undefined) continue;
      at(
        [],
        `${key} is a Slurm setting, and this cluster's scheduler is local: a local cluster runs engines as processes on this host, never through sbatch`,
        'slurm-only',
        `remove ${key}, or set scheduler: slurm`,
        key,
      );
    }
  }

  for (const [i, directive] of (v['sbatch-directives'] ?? []).entries()) {
    const d = directive.trim();
    if (/^#SBATCH\b/i.test(d)) {
      at(
        ['sbatch-directives', i],
        `"${directive}" repeats the #SBATCH prefix`,
        'schema',
        `write the option alone: "${d.replace(/^#SBATCH\s*/i, '')}"`,
      );
      continue;
    }
    if (!d.startsWith('-')) {
      at(
        ['sbatch-directives', i],
        `"${directive}" is not an sbatch option`,
        'schema',
        'write it as sbatch takes it, e.g. "--exclusive" or "--gres=gpu:8"',
      );
      continue;
    }
    const option = /^--?([A-Za-z-]+)/.exec(d)?.[1];
    const owned: Record<string, string> = {
      partition: 'partition',
      p: 'partition',
      account: 'account',
      A: 'account',
      qos: 'qos',
      reservation: 'reservation',
      time: 'time-limit',
      t: 'time-limit',
      nodes: 'nodes',
      N: 'nodes',
    };
    const key = option !== undefined ? owned[option] : undefined;
    if (key) {
      at(
        ['sbatch-directives', i],
        `"${directive}" sets what the profile's ${key} key sets`,
        'schema',
        `use ${key}: and remove the directive`,
      );
    }
  }

  const limit = v['time-limit'] ?? DEFAULT_TIME_LIMIT_MINUTES;
  const check = v['health-check'];
  if (v.scheduler === 'slurm' && limit < HEALTH_CHECK_REQUIRED_BELOW_MINUTES && check === undefined) {
    const written = v['time-limit'] !== undefined;
    at(
      written ? ['time-limit'] : ['scheduler'],
      `a ${limit}-minute time limit${written ? '' : ' (the default)'} with no health-check: a cold model load can use up the whole allocation before the first request`,
      'time-limit',
      `add health-check: { attempts: <n>, interval: <seconds> } sized for the model load (attempts × interval under the time limit), or set time-limit: ${HEALTH_CHECK_REQUIRED_BELOW_MINUTES} or more`,
    );
  }
  const attempts = check?.attempts ?? DEFAULT_HEALTH_CHECK.attempts;
  const interval = check?.interval ?? DEFAULT_HEALTH_CHECK.interval;
  const waitSeconds = attempts * interval;
  if (waitSeconds >= limit * 60) {
    const minutes = Math.round((waitSeconds / 60) * 100) / 100;
    at(
      check ? ['health-check'] : ['time-limit'],
      `health-check waits up to ${attempts} × ${interval} s = ${minutes} min, which is not shorter than the time limit of ${limit} min: the job would be killed before the engine is declared unhealthy`,
      'health-check',
      `lower health-check attempts or interval, or raise time-limit above ${Math.ceil(minutes)}`,
    );
  }

  const container = v.container;
  const runtime = container?.runtime ?? 'none';
  if (container?.['squash-dir'] !== undefined && runtime !== 'enroot') {
    at(
      ['container'],
      `squash-dir is where enroot keeps imported images, and this cluster's container runtime is ${runtime}`,
      'container',
      'remove squash-dir, or set runtime: enroot',
      'squash-dir',
    );
  }
  if (container?.mounts !== undefined && container.mounts.length > 0 && runtime === 'none') {
    at(
      ['container'],
      'mounts need a container runtime, and runtime is none',
      'container',
      'set runtime (enroot, apptainer or docker), or remove mounts',
      'mounts',
    );
  }
  (container?.mounts ?? []).forEach((m, i) => {
    if (!parseMount(m)) {
      at(
        ['container', 'mounts', i],
        `mount "${m}" is not "src:dst[:ro]"`,
        'container',
        'write host-path:/container/path, with :ro for read-only, e.g. "/data/models:/models:ro"',
      );
    } else out.push(...envProblems(subject, ['container', 'mounts', i], m));
  });
  if (container?.['squash-dir'] !== undefined)
    out.push(...envProblems(subject, ['container', 'squash-dir'], container['squash-dir']));

  for (const [framework, options] of Object.entries(v.engines ?? {})) {
    if (framework.trim() === '')
      at(['engines'], 'an engine with an empty name', 'schema', 'name the framework, e.g. sim or llama.cpp', framework);
    for (const option of Object.keys(options)) {
      if (KEBAB.test(option)) continue;
      at(
        ['engines', framework],
        `engine option "${option}" is not kebab-case`,
        'schema',
        `write it as "${kebab(option)}"`,
        option,
      );
    }
    // The simulated engine's speed is known here; a bad one would otherwise fail only at run time.
    const speed = framework === 'sim' ? options.speed : undefined;
    if (speed !== undefined && !(typeof speed !== 'boolean' && Number(speed) >= SIM_MIN_SPEED && Number(speed) < Infinity)) {
      at(
        ['engines', framework, 'speed'],
        `sim speed ${JSON.stringify(speed)} is not a number ≥ ${SIM_MIN_SPEED}`,
        'engine-option',
        `set speed to how many times faster than real time the sim runs: a number ≥ ${SIM_MIN_SPEED} (as frontier sim serve --speed), e.g. 100`,
      );
    }
  }

  const seenModels = new Map<string, number>();
  (v.models ?? []).forEach((m, i) => {
    const id = `${m['model-prefix']}\u0000${m.precision}`;
    const first = seenModels.get(id);
    if (first !== undefined) {
      const line = subject.doc.locate(['models', first]).line;
      at(
        ['models', i],
        `a second models entry for ${m['model-prefix']} ${m.precision} (the first is models[${first}], line ${line})`,
        'duplicate-model',
        'keep one entry per model-prefix and precision',
      );
    } else seenModels.set(id, i);
    out.push(...envProblems(subject, ['models', i, 'path'], m.path));
  });

  (v.routing ?? []).forEach((rule, i) => {
    const { repo, commit } = rule.toolchain;
    if (!GIT_URL.test(repo)) {
      at(
        ['routing', i, 'toolchain', 'repo'],
        `toolchain repo "${repo}" is not a repository URL`,
        'schema',
        'write the clone URL, e.g. https://github.com/NVIDIA/srt-slurm.git',
      );
    }
    if (!FULL_SHA.test(commit)) {
      const what = /^[0-9a-fA-F]{4,39}$/.test(commit)
        ? 'a short sha, which can become ambiguous'
        : /^v?\d+(\.\d+)+/.test(commit)
          ? 'a tag, which can be moved'
          : 'a branch or tag, which moves';
      at(
        ['routing', i, 'toolchain', 'commit'],
        `toolchain commit "${commit}" is not pinned: it is ${what}, so the same recipe can run different code tomorrow`,
        'unpinned-toolchain',
        `pin the full 40-hex commit, e.g. \`git ls-remote ${GIT_URL.test(repo) ? repo : '<repo>'} ${commit || '<ref>'}\``,
      );
    }
    if (rule.match.recipe !== undefined) {
      const problem = globProblem(rule.match.recipe);
      if (problem) at(['routing', i, 'match', 'recipe'], problem.message, 'schema', problem.hint);
    }
    const flags = new Map<string, number>();
    (rule.flags ?? []).forEach((f, k) => {
      if (!KEBAB.test(f.flag)) {
        at(
          ['routing', i, 'flags', k, 'flag'],
          `flag "${f.flag}" is not a kebab-case name`,
          'schema',
          `write it without dashes in front, e.g. "${kebab(f.flag.replace(/^-+/, '')) || 'skip-preflight'}"`,
        );
      }
      if (f.reason.trim() === '') {
        at(
          ['routing', i, 'flags', k, 'reason'],
          `flag ${f.flag} has an empty reason`,
          'schema',
          'say why this route needs the flag: a reviewer reads it',
        );
      }
      if (flags.has(f.flag)) at(['routing', i, 'flags', k], `flag ${f.flag} is given twice`, 'schema', 'remove one');
      flags.set(f.flag, k);
    });
  });
  return out;
}

const kebab = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[_\s.]+/g, '-')
    .toLowerCase();

// ---------------------------------------------------------------------------------------------
// Environment references.

/** An unset (or empty) `${VAR}` in a path. */
export class EnvReferenceError extends Error {
  constructor(
    readonly variable: string,
    readonly path: string,
  ) {
    super(`environment variable ${variable} (in "${path}") is not set`);
    this.name = 'EnvReferenceError';
  }
}

const REFERENCE = /\$(?:\{([^}]*)\}?|(\$)|([A-Za-z_]\w*)|)/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function envProblems(subject: Subject, path: PathSegment[], value: string): Problem[] {
  const out: Problem[] = [];
  for (const m of value.matchAll(REFERENCE)) {
    const [whole, braced, dollar, bare] = m;
    if (dollar !== undefined) continue;
    let message: string | undefined;
    let hint = 'write ${NAME} for an environment variable, and $$ for a literal $';
    if (bare !== undefined) {
      message = `"${whole}" in "${value}" is not a reference: references are written \${${bare}}`;
      hint = `write \${${bare}}`;
    } else if (braced === undefined) message = `a lone $ in "${value}"`;
    else if (!whole.endsWith('}')) message = `"${whole}" in "${value}" is not closed`;
    else if (!VAR_NAME.test(braced)) message = `"${whole}" in "${value}" is not a variable name`;
    if (message) out.push(problemAt(subject, path, message, { rule: 'env-reference', hint }));
  }
  return out;
}

/**
 * Expand the `${VAR}` references of a path from `env` (`$$` is a literal `$`). An unset or empty
 * variable is an error: a path that silently loses a component points somewhere else.
 */
export function expandPath(path: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return path.replace(REFERENCE, (whole, braced: string | undefined, dollar: string | undefined) => {
    if (dollar !== undefined) return '$';
    if (braced === undefined || !whole.endsWith('}') || !VAR_NAME.test(braced)) {
      throw new Error(`"${whole}" in "${path}" is not a \${NAME} reference`);
    }
    const value = env[braced];
    if (value === undefined || value === '') throw new EnvReferenceError(braced, path);
    return value;
  });
}

/**
 * Where a model's weights are on this cluster (its `models` entry, expanded), or undefined when
 * the profile has none (the engine then loads the catalog's model id).
 */
export function modelPath(
  profile: ClusterProfile,
  modelPrefix: string,
  precision: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const index = profile.models.findIndex((m) => m.modelPrefix === modelPrefix && m.precision === precision);
  if (index < 0) return undefined;
  const entry = profile.models[index]!;
  try {
    return expandPath(entry.path, env);
  } catch (e) {
    if (!(e instanceof EnvReferenceError)) throw e;
    const pos = profile.source.locate(['models', index, 'path']);
    throw new ClusterProfileError([
      {
        severity: 'error',
        rule: 'env-reference',
        file: profile.source.file,
        line: pos.line,
        col: pos.col,
        path: `models[${index}].path`,
        message: `${e.message}: cluster ${profile.name} keeps ${modelPrefix} ${precision} at "${entry.path}"`,
        hint: `export ${e.variable}=<path> before running, or write the path out in the profile`,
      },
    ]);
  }
}

// ---------------------------------------------------------------------------------------------
// Loading.

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

// ---------------------------------------------------------------------------------------------
// Choosing a cluster.

const describeCluster = (p: ClusterProfile): string =>
  `${p.name} (${p.scheduler}${p.runners.length > 0 ? `; runners ${p.runners.join(', ')}` : ''})`;

function clusterError(profiles: readonly ClusterProfile[], message: string, hint: string): ClusterProfileError {
  const dirs = [...new Set(profiles.filter((p) => !p.source.builtin).map((p) => p.source.file.replace(/[^/]*$/, '')))];
  const file = dirs.length === 1 ? dirs[0]!.replace(/\/$/, '') || '.' : 'clusters';
  return new ClusterProfileError([{ severity: 'error', rule: 'cluster', file, line: 0, col: 0, message, hint }]);
}

/**
 * The cluster a row runs on: the one named, else the one whose runners include the row's
 * runner, else the only profile when it lists no runners (the embedded default). Anything else
 * is a ClusterProfileError that lists the clusters there are.
 */
export function findCluster(
  profiles: readonly ClusterProfile[],
  wanted: { name?: string | undefined; runner?: string | undefined },
): ClusterProfile {
  const available = profiles.map(describeCluster).join('; ') || 'none';
  if (wanted.name !== undefined) {
    const found = profiles.find((p) => p.name === wanted.name);
    if (found) return found;
    const near = closest(
      wanted.name,
      profiles.map((p) => p.name),
    );
    throw clusterError(
      profiles,
      `no cluster named "${wanted.name}" (clusters: ${available})`,
      near ? `did you mean --cluster ${near}?` : `name one of them, or add clusters/${wanted.name}.yaml`,
    );
  }
  if (wanted.runner !== undefined) {
    const serving = profiles.filter((p) => p.runners.includes(wanted.runner!));
    if (serving.length === 1) return serving[0]!;
    if (serving.length > 1) {
      throw clusterError(
        profiles,
        `${serving.length} clusters serve runner "${wanted.runner}": ${serving.map((p) => p.name).join(', ')}`,
        `choose one with --cluster ${serving[0]!.name}`,
      );
    }
  }
  if (profiles.length === 1 && profiles[0]!.runners.length === 0) return profiles[0]!;
  const what = wanted.runner !== undefined ? `no cluster serves runner "${wanted.runner}"` : 'no cluster was named';
  throw clusterError(
    profiles,
    `${what} (clusters: ${available})`,
    wanted.runner !== undefined
      ? `pass --cluster <name>, or add "${wanted.runner}" to the runners of a profile`
      : 'pass --cluster <name>',
  );
}
