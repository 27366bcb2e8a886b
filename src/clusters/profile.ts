import { ProblemsError, gpuOfRunner } from '../catalog/index.js';
import type { PathSegment, Problem } from '../catalog/index.js';
import type { RoutingRule } from './route.js';
import { DEFAULT_HEALTH_CHECK, DEFAULT_TIME_LIMIT_MINUTES } from './schema.js';
import type { CONTAINER_RUNTIMES, REPEAT_SCOPES } from './schema.js';

// The profile as the rest of Frontier uses it (schema.ts is the file's shape, load.ts reads it).

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

/** `runVariation`: coefficient of variation of the per-launch performance factor (0: exact); `seed` of its draws. */
export interface SimVariation {
  runVariation: number;
  seed: number;
}

/** `launch`: each repeat is a fresh engine launch (launch-to-launch variation); `point`: repeats share one launch. */
export type RepeatScope = (typeof REPEAT_SCOPES)[number];

export interface RepeatSettings {
  count: number;
  scope: RepeatScope;
}

/**
 * Nodes excluded from some rows only: those of `framework` (if given) whose model is one of
 * `models` (if given; the Hugging Face name or its last part, InferenceX's MODEL_NAME).
 */
export interface ExcludeNodeRule {
  nodes: string[];
  framework: string | undefined;
  models: string[] | undefined;
}

/** A cluster's default retries: one on Slurm (a bad node is common), none locally. */
export const defaultRetries = (scheduler: 'local' | 'slurm'): number => (scheduler === 'slurm' ? 1 : 0);

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
  /** The simulated engine's launch-to-launch spread: each launch draws a seeded performance factor (per node). */
  sim: SimVariation;
  /** How each point is measured more than once (`repeats` 1: once). */
  repeats: RepeatSettings;
  /** Retries of a launch that failed for infrastructure reasons (never of an invalid measurement). */
  retries: number;
  /** Nodes no launch may use (`exclude-nodes`' plain names). */
  excludeNodes: string[];
  /** Nodes some rows may not use (`exclude-nodes`' mappings: InferenceX's node_excludes.yaml rules). */
  excludeNodeRules: ExcludeNodeRule[];
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
  sim: { runVariation: 0, seed: 0 },
  repeats: { count: 1, scope: 'launch' },
  retries: 0,
  excludeNodes: [],
  excludeNodeRules: [],
  inferencexRunner: undefined,
  inferencexClient: undefined,
  srtctl: undefined,
  engines: {},
  models: [],
  routing: [],
});

/** The GPU a row runs on: the cluster's, or on a simulating cluster the row's own (its runner label: h200, h200-multinode → h200). */
export const gpuFor = (cluster: ClusterProfile, runner: string): string => (cluster.simulate ? gpuOfRunner(runner) : cluster.gpu);

/** `src:dst[:ro|rw]`; undefined when malformed. */
export function parseMount(spec: string): Mount | undefined {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3) return undefined;
  const [source, target, mode] = parts as [string, string, string | undefined];
  if (source === '' || !target.startsWith('/')) return undefined;
  if (mode !== undefined && mode !== 'ro' && mode !== 'rw') return undefined;
  return { source, target, readOnly: mode === 'ro' };
}

/** The last part of a model's name, as InferenceX’s launchers make MODEL_NAME from MODEL. */
const modelName = (model: string): string => model.slice(model.lastIndexOf('/') + 1);

/** Whether an exclusion rule covers a row of `framework` and `model`. */
export const ruleCovers = (rule: ExcludeNodeRule, row: { framework: string; model: string }): boolean =>
  (rule.framework === undefined || rule.framework === row.framework) &&
  (rule.models === undefined || rule.models.includes(row.model) || rule.models.includes(modelName(row.model)));

/** `--exclude=a,b` (or `-x a,b`) among the profile's sbatch-directives: those nodes are excluded too. */
const directiveExcludes = (directives: readonly string[]): string[] =>
  directives.flatMap((d) => {
    const m = /^(?:--exclude=|--exclude\s+|-x\s*)(\S+)$/.exec(d.trim());
    return m ? m[1]!.split(',').filter(Boolean) : [];
  });

/**
 * The nodes a launch of `row` may not use on this cluster: `exclude-nodes`' names, the rules that
 * cover the row, and an `--exclude` among the sbatch-directives (which a command line's
 * `--exclude` would otherwise override). Sorted, each once.
 */
export function excludedNodesFor(cluster: ClusterProfile, row: { framework: string; model: string }): string[] {
  const nodes = [
    ...cluster.excludeNodes,
    ...cluster.excludeNodeRules.filter((r) => ruleCovers(r, row)).flatMap((r) => r.nodes),
    ...directiveExcludes(cluster.sbatchDirectives),
  ];
  return [...new Set(nodes)].sort();
}
