import * as z from 'zod';
import { SAFE_NAME, SAFE_NAME_TEXT } from './names.js';

// zod compiles a fast path per object schema with new Function, which V8's code cache cannot keep.
z.config({ jitless: true });

/**
 * Schemas of InferenceX master configs and runners.yaml (reference: `utils/matrix_logic/validation.py`
 * at 843c6254f; every model there forbids extra fields). Each schema's `error` text is what was
 * expected; problems render it as `expected <text>, got <value>`.
 *
 * Deliberately stricter than the reference's lax pydantic coercion: `"4"` is not an integer,
 * `"yes"` is not a boolean, and explicit nulls are not "unset". Cross-field rules live in rules.ts.
 */

const expect = (text: string) => ({ error: text });

const posInt = (description: string) =>
  z.int(expect('a positive integer')).positive(expect('a positive integer')).meta({ description });
const nonNegInt = (description: string) =>
  z.int(expect('a non-negative integer')).nonnegative(expect('a non-negative integer')).meta({ description });
const int = (description: string) => z.int(expect('an integer')).meta({ description });
const bool = (description: string) => z.boolean(expect('true or false')).meta({ description });
const name = (description: string) =>
  z.string(expect('a non-empty string')).min(1, expect('a non-empty string')).meta({ description });

const safeName = (description: string) =>
  name(description)
    .regex(SAFE_NAME, expect(`${SAFE_NAME_TEXT} (it becomes part of file names)`))
    .meta({ description });

const SPEC_DECODING = ['mtp', 'draft_model', 'none'] as const;
const specDecoding = z
  .enum(SPEC_DECODING, expect(`one of ${SPEC_DECODING.map((s) => `"${s}"`).join(', ')}`))
  .meta({ description: 'Speculative decoding method; "none" when absent.' });

const componentVersion = name('Version of the component itself: a release, package version or source commit.').regex(
  /^(?!image:)/,
  expect('the component\'s own version (a release, package version or source commit), not an "image:" reference'),
);

export const ComponentMetadata = z
  .strictObject(
    {
      name: name('Component name, e.g. dynamo-router, sglang-router.'),
      version: componentVersion,
    },
    expect('a mapping with name and version'),
  )
  .meta({ description: 'A runtime component pinned by name and version.' });

export const KvOffloadBackend = z
  .strictObject(
    {
      name: name('KV offload backend, e.g. hicache, mooncake, vllm-simple, native, lmcache.'),
      version: componentVersion.optional(),
    },
    expect('a mapping with name and optional version'),
  )
  .meta({ description: 'KV-cache offload backend; required when kv-offloading is not "none".' });

const concFields = {
  'conc-start': int('First concurrency of a range (multiplied by the step until conc-end).').optional(),
  'conc-end': int('Last concurrency of a range (always included).').optional(),
  'conc-list': z
    .array(int('A concurrency.'), expect('a list of integers'))
    .meta({ description: 'Explicit concurrencies (exclusive with conc-start/conc-end).' })
    .optional(),
};

const parallelismDefaults = {
  pp: posInt('Pipeline parallel size (default 1).').optional(),
  'dcp-size': posInt('Decode context parallel size (default 1); must divide tp.').optional(),
  'pcp-size': posInt('Prefill context parallel size (default 1).').optional(),
};

/**
 * Per-configuration engine tuning (`engine-tuning`): Frontier's own catalogs only; InferenceX
 * keeps this in per-config scripts. A list of rules, each applied to the rows its `when` matches,
 * in order (entry rules, then the search-space entry's): docs/catalog.md "Engine tuning".
 */
export const TUNING_FLAG = /^--?[A-Za-z0-9][A-Za-z0-9._-]*$/;
const TUNING_FLAG_TEXT = 'an engine flag such as --max-num-seqs';
export const TUNING_ENV = /^[A-Za-z_][A-Za-z0-9_]*$/;

const flagKey = z
  .string(expect(TUNING_FLAG_TEXT))
  .regex(TUNING_FLAG, expect(`${TUNING_FLAG_TEXT} (a leading "-" or "--", then letters, digits, ".", "_" and "-")`));

const argValue = z
  .union(
    [z.string(), z.number(), z.literal(true), z.array(z.union([z.string(), z.number()]), expect('a list of strings or numbers'))],
    expect('a value (a string or number), true for a flag without a value, or a list of values'),
  )
  .meta({ description: "The flag's value; true renders the bare flag; a list renders several words." });

export const TuningSettings = z
  .strictObject(
    {
      args: z
        .record(flagKey, argValue, expect('a mapping of flag → value, e.g. { --max-num-seqs: 256 }'))
        .meta({
          description:
            'Engine flags: a flag the adapter renders is replaced (in place), any other is appended; true renders a bare flag.',
        })
        .optional(),
      env: z
        .record(
          z.string().regex(TUNING_ENV, expect('an environment variable name (letters, digits and "_")')),
          z.union([z.string(), z.number(), z.boolean()], expect('a string, number or boolean')),
          expect('a mapping of NAME → value'),
        )
        .meta({ description: 'Environment variables set on every engine process (they win over the cluster profile).' })
        .optional(),
      remove: z
        .array(flagKey, expect('a list of engine flags, e.g. [--enable-expert-parallel]'))
        .meta({ description: 'Flags the adapter renders by default that this configuration drops (with their values).' })
        .optional(),
    },
    expect('a mapping with args, env and/or remove'),
  )
  .meta({ description: 'Engine arguments, environment and removed flags of one role.' });

const intCondition = (what: string) =>
  z
    .union(
      [
        z.int(),
        z.array(z.int(), expect('a list of integers')).min(1, expect('a non-empty list of integers')),
        z.strictObject(
          { min: z.int(expect('an integer')).optional(), max: z.int(expect('an integer')).optional() },
          expect('a range { min: a, max: b }'),
        ),
      ],
      expect('an integer, a list of integers or a range { min: a, max: b }'),
    )
    .meta({ description: `${what}: one value, a list, or an inclusive range { min, max } (either bound optional).` });

const nameCondition = (what: string) =>
  z
    .union(
      [name(what), z.array(name(what), expect('a list of names')).min(1, expect('a non-empty list of names'))],
      expect('a name or a list of names'),
    )
    .meta({ description: what });

export const TUNING_CONDITIONS = ['conc', 'isl', 'osl', 'tp', 'ep', 'dp-attn', 'runner', 'gpu'] as const;

export const TuningCondition = z
  .strictObject(
    {
      conc: intCondition('Concurrency of the row (single-node rows: each has one)').optional(),
      isl: intCondition('Input sequence length').optional(),
      osl: intCondition('Output sequence length').optional(),
      tp: intCondition('Tensor parallel size (single-node rows)').optional(),
      ep: intCondition('Expert parallel size (single-node rows)').optional(),
      'dp-attn': bool('Data-parallel attention (single-node rows).').optional(),
      runner: nameCondition('Runner of the row: its label, or the node --runner-node-filter picked.').optional(),
      gpu: nameCondition('GPU sku the runner names: the label up to its first "-" (h200 for h200-multinode).').optional(),
    },
    expect(`a mapping of conditions (${TUNING_CONDITIONS.join(', ')})`),
  )
  .meta({ description: 'When a rule applies: every condition given must hold.' });

export const TuningRule = z
  .strictObject(
    {
      when: TuningCondition.optional(),
      ...TuningSettings.shape,
      prefill: TuningSettings.meta({ description: 'Prefill workers only (disaggregated entries).' }).optional(),
      decode: TuningSettings.meta({ description: 'Decode workers only (disaggregated entries).' }).optional(),
    },
    expect('a mapping (a tuning rule: when, args, env, remove, prefill, decode)'),
  )
  .meta({ description: 'One tuning rule: settings for every engine process, and per role, when its conditions hold.' });

export const EngineTuning = z
  .array(TuningRule, expect('a list of tuning rules (- when: …, args: …)'))
  .meta({ description: 'Frontier engine tuning: rules applied in order, later ones overriding earlier ones.' });

export const WorkerConfig = z
  .strictObject(
    {
      'num-worker': nonNegInt('Number of workers of this role; decode may be 0 (aggregated recipes).'),
      tp: posInt('Tensor parallel size of one worker.'),
      ...parallelismDefaults,
      ep: posInt('Expert parallel size of one worker.'),
      'dp-attn': bool('Data-parallel attention.'),
      hardware: name('Hardware of this role (heterogeneous disagg); set on both roles or neither.').optional(),
      'additional-settings': z
        .array(z.string(expect('a KEY=VALUE string')), expect('a list of KEY=VALUE strings'))
        .meta({ description: 'KEY=VALUE settings exported to the launcher, e.g. CONFIG_FILE=recipes/….yaml.' })
        .optional(),
    },
    expect('a mapping (a worker: num-worker, tp, ep, dp-attn)'),
  )
  .meta({ description: 'One role (prefill or decode) of a multinode topology.' });

/**
 * The prefill role: the workers that serve (all of them in an aggregated entry), so at least one.
 * Decode may be 0: InferenceX writes that for aggregated recipes, and for some disagg entries.
 */
export const PrefillWorkerConfig = WorkerConfig.extend({
  'num-worker': posInt('Number of prefill workers (in an aggregated entry, the serving workers); at least 1.'),
}).meta({ description: 'The prefill role of a multinode topology (the serving workers of an aggregated one).' });

export const SingleNodeSearchSpaceEntry = z.strictObject(
  {
    tp: posInt('Tensor parallel size.'),
    ...parallelismDefaults,
    ep: posInt('Expert parallel size (default 1).').optional(),
    'spec-decoding': specDecoding.optional(),
    'dp-attn': bool('Data-parallel attention (default false).').optional(),
    router: ComponentMetadata.optional(),
    ...concFields,
    'engine-tuning': EngineTuning.optional(),
  },
  expect('a mapping (a search-space entry)'),
);

export const MultiNodeSearchSpaceEntry = z.strictObject(
  {
    'spec-decoding': specDecoding.optional(),
    prefill: PrefillWorkerConfig,
    decode: WorkerConfig,
    router: ComponentMetadata.optional(),
    'kv-p2p-transfer': name('KV transfer between prefill and decode, e.g. nixl, mooncake, mori.').optional(),
    ...concFields,
    'engine-tuning': EngineTuning.optional(),
  },
  expect('a mapping (a search-space entry with prefill and decode)'),
);

export const AgenticSearchSpaceEntry = z.strictObject(
  {
    tp: posInt('Tensor parallel size (single-node shape).').optional(),
    ...parallelismDefaults,
    ep: posInt('Expert parallel size (default 1).').optional(),
    'dp-attn': bool('Data-parallel attention (default false).').optional(),
    'spec-decoding': specDecoding.optional(),
    prefill: PrefillWorkerConfig.optional(),
    decode: WorkerConfig.optional(),
    'kv-offloading': z
      .enum(['none', 'dram'], expect('"none" or "dram"'))
      .meta({ description: 'KV-cache offloading; required for the single-node shape.' })
      .optional(),
    'kv-offload-backend': KvOffloadBackend.optional(),
    router: ComponentMetadata.optional(),
    'kv-p2p-transfer': name('KV transfer between prefill and decode (multinode only).').optional(),
    ...concFields,
  },
  expect('a mapping (an agentic search-space entry)'),
);

const seqLen = <T extends z.ZodType>(entry: T) =>
  z.strictObject(
    {
      isl: posInt('Input sequence length in tokens.'),
      osl: posInt('Output sequence length in tokens.'),
      'search-space': z.array(entry, expect('a list of search-space entries')),
    },
    expect('a mapping with isl, osl and search-space'),
  );

export const AgenticCodingConfig = z.strictObject(
  {
    'search-space': z.array(AgenticSearchSpaceEntry, expect('a list of search-space entries')),
    'dram-utilization': z
      .number(expect('a number in (0, 1]'))
      .gt(0, expect('a number in (0, 1]'))
      .lte(1, expect('a number in (0, 1]'))
      .meta({ description: 'Fraction of the node CPU DRAM given to KV offload; required with kv-offloading: dram.' })
      .optional(),
  },
  expect('a mapping with search-space'),
);

const scenarios = <T extends z.ZodType>(fixed: T) =>
  z
    .strictObject(
      {
        'fixed-seq-len': z.array(seqLen(fixed), expect('a list of fixed-seq-len scenarios')).optional(),
        'agentic-coding': z.array(AgenticCodingConfig, expect('a list of agentic-coding scenarios')).optional(),
      },
      expect('a mapping with fixed-seq-len and/or agentic-coding'),
    )
    .meta({ description: 'Scenarios to sweep; at least one must be non-empty.' });

const common = {
  image: name('Container image; enroot refs may use # as the registry separator.'),
  model: name('Model id (Hugging Face) or served alias.'),
  'model-prefix': safeName('Model family; selects the benchmark script (dsr1, dsv4, qwen3.5, …).'),
  precision: safeName('Weight precision, e.g. fp4, fp8.'),
  framework: safeName('Serving framework, e.g. vllm, sglang, trt, dynamo-trt, sglang-disagg.'),
  runner: name('Runner label from runners.yaml; agentic scenarios need a cluster:<name> label.'),
  router: ComponentMetadata.optional(),
  'engine-tuning': EngineTuning.optional(),
  'eval-tasks': z
    .array(name('An lm-eval task: a built-in name (frontier eval tasks) or a task YAML path.'), expect('a list of eval tasks'))
    .min(1, expect('at least one task'))
    .optional()
    .meta({
      description:
        "Frontier catalogs only: the accuracy tasks this entry's eval rows run (default: GSM8K, as InferenceX). Built-in names (gsm8k, gpqa_diamond, aime) or task YAML paths.",
    }),
};

export const SingleNodeEntry = z
  .strictObject(
    {
      ...common,
      multinode: z.literal(false, expect('false for a single-node entry (true for multinode)')),
      disagg: z.literal(false, expect('false (single-node entries cannot be disaggregated)')).optional(),
      scenarios: scenarios(SingleNodeSearchSpaceEntry),
    },
    expect('a mapping (a master-config entry)'),
  )
  .meta({ title: 'Single-node master-config entry' });

export const MultiNodeEntry = z
  .strictObject(
    {
      ...common,
      multinode: z.literal(true, expect('true for a multinode entry')),
      disagg: bool('Disaggregated prefill/decode (default false); requires kv-p2p-transfer.').optional(),
      'kv-p2p-transfer': name('KV transfer for every search-space entry, e.g. nixl.').optional(),
      scenarios: scenarios(MultiNodeSearchSpaceEntry),
    },
    expect('a mapping (a master-config entry)'),
  )
  .meta({ title: 'Multinode master-config entry' });

const configKey = z
  .string()
  .regex(SAFE_NAME)
  .meta({
    description: `Config key, conventionally <model-prefix>-<precision>-<gpu>-<framework>[-mtp|-agentic…]: ${SAFE_NAME_TEXT}.`,
  });

/** A master-config file: config key → entry (JSON Schema export; loading dispatches on `multinode`). */
export const MasterConfigFile = z
  .record(configKey, z.discriminatedUnion('multinode', [SingleNodeEntry, MultiNodeEntry]))
  .meta({ title: 'InferenceX master config', description: 'configs/*-master.yaml: config key → entry.' });

export const RunnerHardware = z.strictObject(
  {
    'available-cpu-dram-mib': posInt('CPU DRAM available to one server, in MiB.'),
    'gpus-per-node': posInt('GPUs per node.'),
  },
  expect('a mapping with available-cpu-dram-mib and gpus-per-node'),
);

export const RunnersFile = z
  .strictObject(
    {
      labels: z
        .record(
          z.string(),
          z
            .array(
              z.string(expect('a runner name')).regex(SAFE_NAME, expect(`a runner name: ${SAFE_NAME_TEXT}`)),
              expect('a non-empty list of runner names'),
            )
            .min(1, expect('a non-empty list of runner names')),
          expect('a mapping of label → runner names'),
        )
        .meta({ description: 'Schedulable label → concrete runner names (<fleet>_<index>).' }),
      hardware: z
        .record(z.string(), RunnerHardware, expect('a mapping of label → hardware facts'))
        .meta({ description: 'Label → hardware facts used for agentic DRAM budgets.' })
        .optional(),
    },
    expect('a mapping with labels and hardware'),
  )
  .meta({ title: 'InferenceX runners.yaml' });

export type ComponentMetadata = z.infer<typeof ComponentMetadata>;
export type KvOffloadBackend = z.infer<typeof KvOffloadBackend>;
export type WorkerConfig = z.infer<typeof WorkerConfig>;
export type SingleNodeSearchSpaceEntry = z.infer<typeof SingleNodeSearchSpaceEntry>;
export type MultiNodeSearchSpaceEntry = z.infer<typeof MultiNodeSearchSpaceEntry>;
export type AgenticSearchSpaceEntry = z.infer<typeof AgenticSearchSpaceEntry>;
export type AgenticCodingConfig = z.infer<typeof AgenticCodingConfig>;
export type SingleNodeEntry = z.infer<typeof SingleNodeEntry>;
export type MultiNodeEntry = z.infer<typeof MultiNodeEntry>;
export type MasterConfigEntry = SingleNodeEntry | MultiNodeEntry;
export type RunnerHardware = z.infer<typeof RunnerHardware>;
export type RunnerConfig = z.infer<typeof RunnersFile>;
export type SearchSpaceEntry = SingleNodeSearchSpaceEntry | MultiNodeSearchSpaceEntry | AgenticSearchSpaceEntry;
export type TuningSettings = z.infer<typeof TuningSettings>;
export type TuningCondition = z.infer<typeof TuningCondition>;
export type TuningRule = z.infer<typeof TuningRule>;
export type EngineTuning = z.infer<typeof EngineTuning>;
export type ConcFields = Pick<SingleNodeSearchSpaceEntry, 'conc-start' | 'conc-end' | 'conc-list'>;
