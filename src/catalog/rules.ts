import { concValues } from './conc.js';
import type { PathSegment } from './problems.js';
import { gpuOfRunner, whenMatches } from './tuning.js';
import type { TuningFacts } from './tuning.js';
import type {
  AgenticCodingConfig,
  AgenticSearchSpaceEntry,
  ConcFields,
  MasterConfigEntry,
  MultiNodeSearchSpaceEntry,
  SearchSpaceEntry,
  SingleNodeSearchSpaceEntry,
  TuningRule,
  WorkerConfig,
} from './schema.js';

/**
 * Cross-field rules of a master-config entry: the reference's validators (validation.py,
 * rules 1–10 of the reference doc §2.2) plus the shape checks its generator relies on.
 * They run on entries that passed the schema, so field types can be trusted.
 */

export interface Finding {
  path: PathSegment[];
  message: string;
  hint?: string;
}

export interface EntryRule {
  id: string;
  description: string;
  check(entry: MasterConfigEntry): Finding[];
}

interface LocatedEntry<T> {
  entry: T;
  path: PathSegment[];
}

const located = new WeakMap<MasterConfigEntry, readonly LocatedEntry<SearchSpaceEntry>[]>();

/**
 * Every search-space entry with its path, fixed-seq-len first, then agentic-coding. Listed once
 * per entry object: the rules each walk them, and a validated entry does not change.
 */
export function searchSpaceEntries(config: MasterConfigEntry): readonly LocatedEntry<SearchSpaceEntry>[] {
  let entries = located.get(config);
  if (!entries) located.set(config, (entries = listSearchSpaceEntries(config)));
  return entries;
}

function listSearchSpaceEntries(config: MasterConfigEntry): LocatedEntry<SearchSpaceEntry>[] {
  const out: LocatedEntry<SearchSpaceEntry>[] = [];
  const { scenarios } = config;
  scenarios['fixed-seq-len']?.forEach((seq, i) =>
    seq['search-space'].forEach((entry, j) => out.push({ entry, path: ['scenarios', 'fixed-seq-len', i, 'search-space', j] })),
  );
  agenticEntries(config).forEach((e) => out.push(e));
  return out;
}

function agenticEntries(config: MasterConfigEntry): LocatedEntry<AgenticSearchSpaceEntry>[] {
  const out: LocatedEntry<AgenticSearchSpaceEntry>[] = [];
  config.scenarios['agentic-coding']?.forEach((agentic: AgenticCodingConfig, i) =>
    agentic['search-space'].forEach((entry, j) =>
      out.push({ entry, path: ['scenarios', 'agentic-coding', i, 'search-space', j] }),
    ),
  );
  return out;
}

function workers(entry: SearchSpaceEntry): ['prefill' | 'decode', WorkerConfig][] {
  const e = entry as Partial<MultiNodeSearchSpaceEntry>;
  const out: ['prefill' | 'decode', WorkerConfig][] = [];
  if (e.prefill) out.push(['prefill', e.prefill]);
  if (e.decode) out.push(['decode', e.decode]);
  return out;
}

const concFields: EntryRule = {
  id: 'conc-fields',
  description: 'each search-space entry has either conc-list or conc-start/conc-end, all positive, start <= end',
  check(config) {
    const out: Finding[] = [];
    for (const { entry, path } of searchSpaceEntries(config)) {
      const { 'conc-start': start, 'conc-end': end, 'conc-list': list } = entry as ConcFields;
      const hasRange = start !== undefined && end !== undefined;
      if (list !== undefined && list.length === 0) {
        out.push({
          path: [...path, 'conc-list'],
          message: 'conc-list is empty',
          hint: 'list at least one concurrency, or use conc-start/conc-end',
        });
        continue;
      }
      if (hasRange && list !== undefined) {
        out.push({
          path: [...path, 'conc-list'],
          message: 'conc-list and conc-start/conc-end are both set',
          hint: 'use either a list or a range, not both',
        });
        continue;
      }
      if (!hasRange && list === undefined) {
        const missing =
          start === undefined && end === undefined
            ? 'conc-list or conc-start/conc-end'
            : start === undefined
              ? 'conc-start'
              : 'conc-end';
        out.push({
          path,
          message: `missing ${missing}`,
          hint: 'give the concurrencies to sweep: conc-list: [1, 4, 16] or conc-start: 1 with conc-end: 64',
        });
        continue;
      }
      if (hasRange) {
        if (start <= 0 || end <= 0) {
          out.push({
            path: [...path, start <= 0 ? 'conc-start' : 'conc-end'],
            message: `conc-start and conc-end must be greater than 0, got ${start} and ${end}`,
            hint: 'a concurrency is a number of simultaneous requests: use values >= 1',
          });
        } else if (start > end) {
          out.push({
            path: [...path, 'conc-start'],
            message: `conc-start (${start}) must be <= conc-end (${end})`,
            hint: 'swap the two values',
          });
        }
      }
      list?.forEach((c, k) => {
        if (c <= 0) {
          out.push({
            path: [...path, 'conc-list', k],
            message: `conc-list entries must be greater than 0, got ${c}`,
            hint: 'a concurrency is a number of simultaneous requests: use values >= 1',
          });
        }
      });
    }
    return out;
  },
};

const tpDivisibleByDcp: EntryRule = {
  id: 'tp-dcp',
  description: 'tp is divisible by dcp-size (single-node entries and every worker)',
  check(config) {
    const out: Finding[] = [];
    const check = (tp: number | undefined, dcp: number | undefined, path: PathSegment[]): void => {
      if (tp !== undefined && dcp !== undefined && tp % dcp !== 0) {
        out.push({
          path: [...path, 'dcp-size'],
          message: `tp (${tp}) must be divisible by dcp-size (${dcp})`,
          hint: 'choose a dcp-size that divides tp',
        });
      }
    };
    for (const { entry, path } of searchSpaceEntries(config)) {
      const single = entry as { tp?: number; 'dcp-size'?: number };
      check(single.tp, single['dcp-size'], path);
      for (const [role, worker] of workers(entry)) check(worker.tp, worker['dcp-size'], [...path, role]);
    }
    return out;
  },
};

const workerHardwarePair: EntryRule = {
  id: 'worker-hardware-pair',
  description: 'prefill and decode set hardware together or not at all',
  check(config) {
    const out: Finding[] = [];
    for (const { entry, path } of searchSpaceEntries(config)) {
      const e = entry as Partial<MultiNodeSearchSpaceEntry>;
      if (!e.prefill || !e.decode) continue;
      if (Boolean(e.prefill.hardware) !== Boolean(e.decode.hardware)) {
        const missing = e.prefill.hardware ? 'decode' : 'prefill';
        out.push({
          path: [...path, missing],
          message: `hardware is set on ${missing === 'decode' ? 'prefill' : 'decode'} but not on ${missing}`,
          hint: 'set hardware on both prefill and decode, or on neither',
        });
      }
    }
    return out;
  },
};

const kvOffloadFields: EntryRule = {
  id: 'kv-offload-fields',
  description: 'kv-offload-backend is given exactly when kv-offloading is not "none"',
  check(config) {
    const out: Finding[] = [];
    for (const { entry, path } of agenticEntries(config)) {
      const mode = entry['kv-offloading'];
      const backend = entry['kv-offload-backend'];
      if (backend !== undefined && (mode === undefined || mode === 'none')) {
        out.push({
          path: [...path, 'kv-offload-backend'],
          message:
            mode === undefined
              ? 'kv-offload-backend requires kv-offloading'
              : 'kv-offload-backend is set but kv-offloading is "none"',
          hint: 'set kv-offloading: dram, or remove kv-offload-backend',
        });
      } else if (mode !== undefined && mode !== 'none' && backend === undefined) {
        out.push({
          path: [...path, 'kv-offloading'],
          message: `kv-offloading is "${mode}" but kv-offload-backend is missing`,
          hint: 'add kv-offload-backend: { name: <backend> } (hicache, mooncake, vllm-simple, native, lmcache)',
        });
      }
    }
    return out;
  },
};

const agenticTopology: EntryRule = {
  id: 'agentic-topology',
  description: 'agentic entries use exactly one shape (tp, or prefill+decode) matching multinode',
  check(config) {
    const out: Finding[] = [];
    for (const { entry, path } of agenticEntries(config)) {
      const hasTp = entry.tp !== undefined;
      const hasPrefill = entry.prefill !== undefined;
      const hasDecode = entry.decode !== undefined;
      if (hasTp === (hasPrefill || hasDecode) || hasPrefill !== hasDecode) {
        out.push({
          path,
          message: 'an agentic search-space entry needs exactly one of tp, or both prefill and decode',
          hint: config.multinode ? 'multinode entries describe prefill and decode workers' : 'single-node entries give tp',
        });
        continue;
      }
      if (hasTp) {
        if (config.multinode) {
          out.push({
            path: [...path, 'tp'],
            message: 'a multinode entry needs prefill and decode workers, not tp',
            hint: 'replace tp with prefill: {…} and decode: {…}, or set multinode: false',
          });
        }
        if (entry['kv-offloading'] === undefined) {
          out.push({
            path,
            message: 'a single-node agentic entry must set kv-offloading',
            hint: 'add kv-offloading: none (or dram with kv-offload-backend)',
          });
        }
        continue;
      }
      if (!config.multinode) {
        out.push({
          path: [...path, 'prefill'],
          message: 'a single-node entry cannot have prefill/decode workers',
          hint: 'give tp instead, or set multinode: true',
        });
      }
      for (const field of ['pp', 'dcp-size', 'pcp-size'] as const) {
        if (entry[field] !== undefined) {
          out.push({
            path: [...path, field],
            message: `a multinode agentic entry cannot set ${field}`,
            hint: `set ${field} inside prefill and decode instead`,
          });
        }
      }
    }
    return out;
  },
};

const dramUtilization: EntryRule = {
  id: 'dram-utilization',
  description: 'kv-offloading: dram needs dram-utilization on its agentic-coding scenario',
  check(config) {
    const out: Finding[] = [];
    config.scenarios['agentic-coding']?.forEach((agentic, i) => {
      const j = agentic['search-space'].findIndex((e) => e['kv-offloading'] === 'dram');
      if (j !== -1 && agentic['dram-utilization'] === undefined) {
        out.push({
          path: ['scenarios', 'agentic-coding', i, 'search-space', j, 'kv-offloading'],
          message: 'kv-offloading: dram requires dram-utilization on the agentic-coding scenario',
          hint: 'add dram-utilization: 0.9 (a fraction in (0, 1]) next to search-space',
        });
      }
    });
    return out;
  },
};

const atLeastOneScenario: EntryRule = {
  id: 'at-least-one-scenario',
  description: 'scenarios has a non-empty fixed-seq-len or agentic-coding list',
  check(config) {
    const { scenarios } = config;
    if (scenarios['fixed-seq-len']?.length || scenarios['agentic-coding']?.length) return [];
    return [
      {
        path: ['scenarios'],
        message: 'no scenario: fixed-seq-len and agentic-coding are both missing or empty',
        hint: 'add a fixed-seq-len entry (isl, osl, search-space) or an agentic-coding entry',
      },
    ];
  },
};

const agenticRunnerCluster: EntryRule = {
  id: 'agentic-runner-cluster',
  description: 'configs with agentic-coding scenarios use a cluster:<name> runner',
  check(config) {
    if (!config.scenarios['agentic-coding']?.length || config.runner.startsWith('cluster:')) return [];
    return [
      {
        path: ['runner'],
        message: `agentic configs must use a cluster:<name> runner, got "${config.runner}"`,
        hint: 'every agentic point must run on one exact hardware fleet: use a cluster: label from runners.yaml',
      },
    ];
  },
};

const componentScope: EntryRule = {
  id: 'component-scope',
  description: 'router and kv-p2p-transfer are set at one level; kv-p2p-transfer only on multinode; disagg needs kv-p2p-transfer',
  check(config) {
    const out: Finding[] = [];
    const entries = searchSpaceEntries(config);
    const topTransfer = config.multinode ? config['kv-p2p-transfer'] : undefined;
    for (const field of ['router', 'kv-p2p-transfer'] as const) {
      const top = field === 'router' ? config.router : topTransfer;
      const inEntry = entries.find((e) => (e.entry as Record<string, unknown>)[field] !== undefined);
      if (top !== undefined && inEntry) {
        out.push({
          path: [...inEntry.path, field],
          message: `${field} is set both at the top level and in search-space entries`,
          hint: `declare ${field} either once at the top level or in the search-space entries, not both`,
        });
      }
    }
    if (!config.multinode) {
      const inEntry = entries.find((e) => (e.entry as Record<string, unknown>)['kv-p2p-transfer'] !== undefined);
      if (inEntry) {
        out.push({
          path: [...inEntry.path, 'kv-p2p-transfer'],
          message: 'kv-p2p-transfer is only valid when multinode is true',
          hint: 'remove it: single-node engines do not transfer KV between nodes',
        });
      }
    }
    if (config.multinode && config.disagg === true && topTransfer === undefined) {
      const missing = entries.find((e) => (e.entry as Record<string, unknown>)['kv-p2p-transfer'] === undefined);
      if (missing || entries.length === 0) {
        out.push({
          path: missing ? missing.path : ['disagg'],
          message: 'disagg: true requires kv-p2p-transfer at the top level or in every search-space entry',
          hint: 'add kv-p2p-transfer: nixl (or mooncake, mori, ucx) at the top level',
        });
      }
    }
    return out;
  },
};

const additionalSettings: EntryRule = {
  id: 'additional-settings',
  description: 'additional-settings are KEY=VALUE strings with a shell-safe key',
  check(config) {
    const out: Finding[] = [];
    for (const { entry, path } of searchSpaceEntries(config)) {
      for (const [role, worker] of workers(entry)) {
        worker['additional-settings']?.forEach((setting, k) => {
          if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(setting)) {
            out.push({
              path: [...path, role, 'additional-settings', k],
              message: `"${setting}" is not a KEY=VALUE setting`,
              hint: 'write NAME=value; the launcher exports each setting as an environment variable',
            });
          }
        });
      }
    }
    return out;
  },
};

/** Concurrencies a full sweep (step 2) gives an entry; none when its conc fields are invalid (conc-fields reports those). */
function sweptConcs(entry: ConcFields): number[] {
  const { 'conc-start': start, 'conc-end': end, 'conc-list': list } = entry;
  if (list !== undefined) return start === undefined && end === undefined ? list : [];
  if (start === undefined || end === undefined || start <= 0 || start > end) return [];
  return concValues(entry, 2);
}

const CONDITION_ROLE_HINT =
  'a multinode row holds its prefill and decode shapes and all its concurrencies in one launch: put the rule in the search-space entry it is for (split the entry to tune some concurrencies differently)';

const engineTuning: EntryRule = {
  id: 'engine-tuning',
  description:
    'engine-tuning rules: prefill/decode settings only in disaggregated entries, conditions a row can have, and each condition matching some row of its scope',
  check(config) {
    const out: Finding[] = [];
    const disagg = config.multinode && config.disagg === true;
    const fixed = config.scenarios['fixed-seq-len'] ?? [];
    // Facts of every row a full sweep (step 2) generates, per search-space entry (runner: the label).
    const factsOf = (seq: { isl: number; osl: number }, entry: SearchSpaceEntry): TuningFacts[] => {
      if (config.multinode) return [{ isl: seq.isl, osl: seq.osl, runner: config.runner }];
      const e = entry as SingleNodeSearchSpaceEntry;
      return sweptConcs(e).map((conc) => ({
        conc,
        isl: seq.isl,
        osl: seq.osl,
        tp: e.tp,
        ep: e.ep ?? 1,
        dpAttn: e['dp-attn'] ?? false,
        runner: config.runner,
      }));
    };
    const checkRules = (rules: TuningRule[] | undefined, path: PathSegment[], facts: TuningFacts[], scope: string): void => {
      rules?.forEach((rule, i) => {
        const at = [...path, 'engine-tuning', i];
        for (const role of ['prefill', 'decode'] as const) {
          if (rule[role] !== undefined && !disagg)
            out.push({
              path: [...at, role],
              message: `${role} settings need a disaggregated entry (multinode: true, disagg: true)`,
              hint: "write them as the rule's own args, env and remove: those apply to every engine process of the entry",
            });
        }
        const when = rule.when;
        if (!when) return;
        if (config.multinode) {
          const perRow = (['conc', 'tp', 'ep', 'dp-attn'] as const).filter((k) => when[k] !== undefined);
          for (const k of perRow)
            out.push({ path: [...at, 'when', k], message: `a multinode entry cannot tune by ${k}`, hint: CONDITION_ROLE_HINT });
          if (perRow.length > 0) return;
        }
        // A runner condition may name a node (--runner-node-filter), which the catalog does not list.
        const checkable = { ...when, runner: undefined };
        if (facts.length > 0 && !facts.some((f) => whenMatches(checkable, f)))
          out.push({
            path: [...at, 'when'],
            message: `the condition matches no row of ${scope}`,
            hint: `rows here have ${describeFacts(facts)}; widen the condition or remove the rule`,
          });
      });
    };
    const all: TuningFacts[] = [];
    fixed.forEach((seq, i) =>
      seq['search-space'].forEach((entry, j) => {
        const facts = factsOf(seq, entry);
        all.push(...facts);
        const e = entry as { 'engine-tuning'?: TuningRule[] };
        checkRules(e['engine-tuning'], ['scenarios', 'fixed-seq-len', i, 'search-space', j], facts, 'this search-space entry');
      }),
    );
    checkRules(config['engine-tuning'], [], all, 'the entry (its fixed-seq-len search spaces)');
    return out;
  },
};

function describeFacts(facts: TuningFacts[]): string {
  const values = <T>(pick: (f: TuningFacts) => T | undefined): string =>
    [...new Set(facts.map(pick).filter((v) => v !== undefined))].join(', ');
  const parts = [
    `conc ${values((f) => f.conc)}`,
    `isl/osl ${values((f) => (f.isl === undefined ? undefined : `${f.isl}/${f.osl}`))}`,
    `tp ${values((f) => f.tp)}`,
    `ep ${values((f) => f.ep)}`,
    `dp-attn ${values((f) => f.dpAttn)}`,
    `gpu ${values((f) => (f.runner === undefined ? undefined : gpuOfRunner(f.runner)))}`,
  ];
  return parts.filter((p) => !/ $/.test(p)).join('; ');
}

/** All entry rules, in the order their findings are reported. */
export const ENTRY_RULES: readonly EntryRule[] = [
  atLeastOneScenario,
  agenticRunnerCluster,
  componentScope,
  concFields,
  tpDivisibleByDcp,
  workerHardwarePair,
  kvOffloadFields,
  agenticTopology,
  dramUtilization,
  additionalSettings,
  engineTuning,
];
