import * as z from 'zod';

/**
 * Cluster profiles: `clusters/<name>.yaml`, one per cluster, declaring what InferenceX's
 * per-cluster bash launchers hard-code (scheduler, partition and account, container runtime,
 * where the weights are, which srt-slurm commit runs which recipes). Keys are kebab-case like
 * the catalog's; unknown keys are errors that name the likely intended key.
 */

// The shape of a profile file; the rules between fields are checks.ts's, with positions.

const expect = (text: string) => ({ error: text });
const posInt = z.int(expect('a positive integer')).positive(expect('a positive integer'));
const nonEmpty = z.string(expect('a non-empty string')).min(1, expect('a non-empty string'));
const bool = z.boolean(expect('true or false'));

export const SCHEDULERS = ['local', 'slurm'] as const;
export const REPEAT_SCOPES = ['launch', 'point'] as const;
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
    sim: z
      .strictObject(
        {
          'run-variation': z
            .number(expect('a coefficient of variation, e.g. 0.03'))
            .min(0, expect('a coefficient of variation between 0 and 0.5'))
            .max(0.5, expect('a coefficient of variation between 0 and 0.5'))
            .optional()
            .meta({
              description: 'Launch-to-launch spread of the simulated engine (coefficient of variation; default 0: exact).',
            }),
          seed: z.int(expect('an integer')).optional().meta({ description: 'Seed of the per-launch draws (default 0).' }),
        },
        expect('a mapping (sim: run-variation, seed)'),
      )
      .optional(),
    repeats: posInt.optional().meta({ description: 'Measure every point this many times (default 1).' }),
    'repeat-scope': z
      .enum(REPEAT_SCOPES, expect(quoted(REPEAT_SCOPES)))
      .optional()
      .meta({ description: 'launch: each repeat is a fresh engine launch (default); point: repeats share one launch.' }),
    retries: z
      .int(expect('a non-negative integer'))
      .min(0, expect('a non-negative integer'))
      .optional()
      .meta({ description: 'Retries of a launch that failed for infrastructure reasons (default 1 on Slurm, 0 locally).' }),
    'exclude-nodes': z
      .array(
        z.union(
          [
            nonEmpty,
            z.strictObject(
              {
                nodes: z.array(nonEmpty, expect('a list of node names')).min(1, expect('a list of node names')),
                framework: nonEmpty.optional(),
                models: z.array(nonEmpty, expect('a list of model names')).optional(),
              },
              expect('a mapping (nodes, framework, models)'),
            ),
          ],
          expect('a node name, or a mapping { nodes, framework, models } that excludes them from those rows only'),
        ),
        expect('a list of node names (or { nodes, framework, models } mappings)'),
      )
      .optional()
      .meta({
        description:
          'Nodes no launch may use (sbatch --exclude): a name excludes it from every launch; { nodes, framework, models } only from the rows of that framework and model (InferenceX node_excludes.yaml).',
      }),
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

/** A profile file as the schema reads it (kebab-case keys). */
export type ProfileFile = z.infer<typeof ClusterProfileSchema>;
