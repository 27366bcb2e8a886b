import type {
  AgenticSearchSpaceEntry,
  ComponentMetadata,
  MasterConfigEntry,
  MultiNodeSearchSpaceEntry,
  RunnerConfig,
  SingleNodeSearchSpaceEntry,
  WorkerConfig,
} from '../catalog/index.js';
import { resolveTuning } from '../catalog/tuning.js';
import { concRange, concValues } from '../catalog/conc.js';
import { SEQ_LENS, seqLenName } from './conc.js';
import type { SeqLenName } from './conc.js';
import { agenticDramOffloadGb } from './dram.js';
import { expandConfigKeys } from './keys.js';
import { MatrixError } from './types.js';
import type {
  MatrixRow,
  MultiNodeAgenticRow,
  MultiNodeRow,
  RowWorker,
  ScenarioType,
  SingleNodeAgenticRow,
  SingleNodeRow,
  SpecDecoding,
} from './types.js';

/** Agentic trace replays run for an hour per point. */
export const DEFAULT_AGENTIC_DURATION_SECONDS = 3600;

export type Configs = ReadonlyMap<string, MasterConfigEntry>;

export interface FullSweepOptions {
  /** Keep config keys starting with any of these (a prefix of the key, not the model-prefix field). */
  modelPrefix?: string[] | undefined;
  precision?: string[] | undefined;
  framework?: string[] | undefined;
  /** Exact runner labels; each must be a label in runners.yaml. */
  runnerType?: string[] | undefined;
  seqLens?: SeqLenName[] | undefined;
  stepSize?: number | undefined;
  minConc?: number | undefined;
  maxConc?: number | undefined;
  maxTp?: number | undefined;
  maxEp?: number | undefined;
  /** Neither set means both. */
  singleNode?: boolean | undefined;
  multiNode?: boolean | undefined;
  runnerNodeFilter?: string | undefined;
  scenarioType?: ScenarioType[] | undefined;
}

export interface TestConfigOptions {
  configKeys: string[];
  conc?: number[] | undefined;
  seqLens?: SeqLenName[] | undefined;
  runnerNodeFilter?: string | undefined;
  scenarioType?: ScenarioType[] | undefined;
}

/**
 * How one generator chooses configs, runners and concurrencies. The expansion into rows is
 * shared; full-sweep and test-config differ only here.
 */
interface SweepPolicy {
  scenarioTypes: Set<ScenarioType> | undefined;
  seqLens: Set<string> | undefined;
  /** Runner values for a config's rows, or undefined to skip the config. */
  runners(config: MasterConfigEntry): string[] | undefined;
  includeNodeType(multinode: boolean): boolean;
  /** Concurrencies and ep of a single-node fixed-seq-len entry, or undefined to skip it. */
  singleFixed(entry: SingleNodeSearchSpaceEntry): { concs: number[]; ep: number | undefined } | undefined;
  multiFixed(entry: MultiNodeSearchSpaceEntry): number[] | undefined;
  /** Concurrencies of an agentic entry (the entry is skipped when empty). */
  agentic(entry: AgenticSearchSpaceEntry): number[];
}

/** `full-sweep`: every config, narrowed by filters. */
export function generateFullSweep(configs: Configs, runners: RunnerConfig, options: FullSweepOptions = {}): MatrixRow[] {
  const step = options.stepSize ?? 2;
  const { minConc, maxConc, maxTp, maxEp } = options;
  if (step <= 1) throw new MatrixError('step_size must be greater than 1');
  if (minConc !== undefined && maxConc !== undefined && minConc > maxConc) {
    throw new MatrixError('min_conc must be less than or equal to max_conc');
  }
  if (options.runnerType?.length) {
    const valid = new Set(Object.keys(runners.labels));
    const invalid = [...new Set(options.runnerType)].filter((r) => !valid.has(r)).sort();
    if (invalid.length > 0) {
      throw new MatrixError(
        `Invalid runner type(s): {${invalid.map((r) => `'${r}'`).join(', ')}}. Valid runner types are: ${[...valid].sort().join(', ')}`,
      );
    }
  }
  const bothNodeTypes = !options.singleNode && !options.multiNode;
  const nodeFilter = options.runnerNodeFilter;

  const policy: SweepPolicy = {
    scenarioTypes: options.scenarioType?.length ? new Set(options.scenarioType) : undefined,
    seqLens: seqLenSet(options.seqLens),
    runners(config) {
      if (!nodeFilter) return [config.runner];
      const nodes = (runners.labels[config.runner] ?? []).filter((n) => n.includes(nodeFilter));
      return nodes.length > 0 ? nodes : undefined;
    },
    includeNodeType: (multinode) => bothNodeTypes || (multinode ? options.multiNode === true : options.singleNode === true),
    singleFixed(entry) {
      if (maxTp !== undefined && (maxTp <= 0 || entry.tp > maxTp)) return undefined;
      let ep = entry.ep;
      if (maxEp !== undefined) {
        if (maxEp <= 0) return undefined;
        if (ep !== undefined && ep > maxEp) ep = maxEp;
      }
      const list = entry['conc-list'];
      if (list) {
        let concs = [...list];
        if (minConc !== undefined) {
          if (minConc <= 0) return undefined;
          concs = concs.filter((c) => c >= minConc);
          if (concs.length === 0) return undefined;
        }
        if (maxConc !== undefined) {
          if (maxConc <= 0) return undefined;
          const kept = concs.filter((c) => c <= maxConc);
          concs = kept.length > 0 ? kept : [maxConc];
        }
        return { concs, ep };
      }
      let start = entry['conc-start']!;
      let end = entry['conc-end']!;
      if (minConc !== undefined) {
        if (minConc <= 0 || end < minConc) return undefined;
        start = Math.max(start, minConc);
      }
      if (maxConc !== undefined) {
        if (maxConc <= 0) return undefined;
        if (start > maxConc) start = end = maxConc;
        else end = Math.min(end, maxConc);
      }
      return { concs: concRange(start, end, step), ep };
    },
    multiFixed(entry) {
      let concs = concValues(entry, step);
      if (minConc !== undefined) {
        if (minConc <= 0) return undefined;
        concs = concs.filter((c) => c >= minConc);
        if (concs.length === 0) return undefined;
      }
      if (maxConc !== undefined) {
        const kept = concs.filter((c) => c <= maxConc);
        if (kept.length > 0) concs = kept;
        else if (maxConc > 0) concs = [maxConc];
        else return undefined;
      }
      return concs;
    },
    agentic(entry) {
      return concValues(entry, step).filter(
        (c) => (minConc === undefined || c >= minConc) && (maxConc === undefined || c <= maxConc),
      );
    },
  };

  const selected: [string, MasterConfigEntry][] = [];
  for (const [key, config] of configs) {
    if (options.modelPrefix?.length && !options.modelPrefix.some((p) => key.startsWith(p))) continue;
    if (options.precision?.length && !options.precision.includes(config.precision)) continue;
    if (options.framework?.length && !options.framework.includes(config.framework)) continue;
    if (options.runnerType?.length && !options.runnerType.includes(config.runner)) continue;
    selected.push([key, config]);
  }
  return expand(selected, policy, runners);
}

/** `test-config`: the named keys (or globs), fully expanded, optionally narrowed to some concurrencies. */
export function generateTestConfig(configs: Configs, runners: RunnerConfig, options: TestConfigOptions): MatrixRow[] {
  const keys = expandConfigKeys(options.configKeys, [...configs.keys()]);
  const only = options.conc?.length ? new Set(options.conc) : undefined;
  const intersect = (concs: number[]): number[] => (only ? concs.filter((c) => only.has(c)) : concs);
  const nodeFilter = options.runnerNodeFilter;
  const policy: SweepPolicy = {
    scenarioTypes: options.scenarioType?.length ? new Set(options.scenarioType) : undefined,
    seqLens: seqLenSet(options.seqLens),
    runners(config) {
      if (!nodeFilter) return [config.runner];
      // The label itself counts as a candidate when it contains the filter.
      const candidates = [
        ...(config.runner.includes(nodeFilter) ? [config.runner] : []),
        ...(runners.labels[config.runner] ?? []),
      ];
      const matches = [...new Set(candidates.filter((n) => n.includes(nodeFilter)))];
      return matches.length > 0 ? matches : undefined;
    },
    includeNodeType: () => true,
    singleFixed(entry) {
      const concs = intersect(concValues(entry, 2));
      return concs.length > 0 ? { concs, ep: entry.ep } : undefined;
    },
    multiFixed(entry) {
      const concs = intersect(concValues(entry, 2));
      return concs.length > 0 ? concs : undefined;
    },
    agentic: (entry) => intersect(concValues(entry, 2)),
  };
  return expand(
    keys.map((k) => [k, configs.get(k)!]),
    policy,
    runners,
  );
}

function seqLenSet(names: SeqLenName[] | undefined): Set<string> | undefined {
  return names?.length ? new Set(names.map((n) => SEQ_LENS[n].join('/'))) : undefined;
}

/** Expand configs into rows: fixed-seq-len entries first, then agentic-coding, per config. */
function expand(configs: [string, MasterConfigEntry][], policy: SweepPolicy, runners: RunnerConfig): MatrixRow[] {
  const rows: MatrixRow[] = [];
  for (const [, config] of configs) {
    const runnerValues = policy.runners(config);
    if (!runnerValues) continue;
    if (!policy.includeNodeType(config.multinode)) continue;
    const fixed =
      policy.scenarioTypes && !policy.scenarioTypes.has('fixed-seq-len') ? [] : (config.scenarios['fixed-seq-len'] ?? []);
    for (const seq of fixed) {
      if (policy.seqLens && !policy.seqLens.has(`${seq.isl}/${seq.osl}`)) continue;
      for (const entry of seq['search-space']) {
        if (config.multinode) {
          const concs = policy.multiFixed(entry as MultiNodeSearchSpaceEntry);
          if (concs)
            for (const runner of runnerValues)
              rows.push(multiNodeRow(config, seq, entry as MultiNodeSearchSpaceEntry, runner, concs));
        } else {
          const picked = policy.singleFixed(entry as SingleNodeSearchSpaceEntry);
          if (!picked) continue;
          for (const conc of picked.concs) {
            for (const runner of runnerValues) {
              rows.push(singleNodeRow(config, seq, entry as SingleNodeSearchSpaceEntry, runner, conc, picked.ep));
            }
          }
        }
      }
    }
    const agenticConfigs =
      policy.scenarioTypes && !policy.scenarioTypes.has('agentic-coding') ? [] : (config.scenarios['agentic-coding'] ?? []);
    for (const agentic of agenticConfigs) {
      for (const entry of agentic['search-space']) {
        const dramGb = agenticDramOffloadGb(agentic, entry, config.runner, runners);
        const concs = policy.agentic(entry);
        if (concs.length === 0) continue;
        if (config.multinode) {
          for (const runner of runnerValues) {
            // One allocation per concurrency.
            for (const conc of concs) rows.push(multiNodeAgenticRow(config, entry, runner, [conc], dramGb));
          }
        } else {
          for (const conc of concs) {
            for (const runner of runnerValues) rows.push(singleNodeAgenticRow(config, entry, runner, conc, dramGb));
          }
        }
      }
    }
  }
  return rows;
}

/** router and kv-p2p-transfer, from the entry or else the config's top level. */
function withComponents<T extends MatrixRow>(
  row: T,
  entry: { router?: ComponentMetadata | undefined; 'kv-p2p-transfer'?: string | undefined },
  config: MasterConfigEntry,
): T {
  const router = entry.router ?? config.router;
  if (router !== undefined) row.router = router;
  const transfer = entry['kv-p2p-transfer'] ?? (config.multinode ? config['kv-p2p-transfer'] : undefined);
  if (transfer !== undefined) row['kv-p2p-transfer'] = transfer;
  if (config['eval-tasks'] !== undefined) row['eval-tasks'] = config['eval-tasks'];
  return row;
}

export function rowWorker(worker: WorkerConfig): RowWorker {
  return { ...worker, pp: worker.pp ?? 1, 'dcp-size': worker['dcp-size'] ?? 1, 'pcp-size': worker['pcp-size'] ?? 1 };
}

// Each builder writes its row as one object literal, identity fields included: building rows
// with an object spread (`...identity(config, runner)`) made the full sweep ~30 ms slower.

function singleNodeRow(
  config: MasterConfigEntry,
  seq: { isl: number; osl: number },
  entry: SingleNodeSearchSpaceEntry,
  runner: string,
  conc: number,
  ep: number | undefined,
): SingleNodeRow {
  const row: SingleNodeRow = {
    image: config.image,
    model: config.model,
    'model-prefix': config['model-prefix'],
    precision: config.precision,
    framework: config.framework,
    runner,
    isl: seq.isl,
    osl: seq.osl,
    tp: entry.tp,
    pp: entry.pp ?? 1,
    'dcp-size': entry['dcp-size'] ?? 1,
    'pcp-size': entry['pcp-size'] ?? 1,
    conc,
    'max-model-len': seq.isl + seq.osl + 256,
    ep: ep ?? 1,
    'dp-attn': entry['dp-attn'] ?? false,
    'spec-decoding': entry['spec-decoding'] ?? 'none',
    'exp-name': `${config['model-prefix']}_${seqLenName(seq.isl, seq.osl)}`,
    disagg: false,
    'run-eval': false,
  };
  withComponents(row, entry, config);
  if (config['engine-tuning'] !== undefined || entry['engine-tuning'] !== undefined) {
    const facts = { conc, isl: row.isl, osl: row.osl, tp: row.tp, ep: row.ep, dpAttn: row['dp-attn'], runner };
    const tuning = resolveTuning([config['engine-tuning'], entry['engine-tuning']], facts, false);
    if (tuning) row['engine-tuning'] = tuning;
  }
  return row;
}

function multiNodeRow(
  config: MasterConfigEntry,
  seq: { isl: number; osl: number },
  entry: MultiNodeSearchSpaceEntry,
  runner: string,
  concs: number[],
): MultiNodeRow {
  const row: MultiNodeRow = {
    image: config.image,
    model: config.model,
    'model-prefix': config['model-prefix'],
    precision: config.precision,
    framework: config.framework,
    runner,
    isl: seq.isl,
    osl: seq.osl,
    'spec-decoding': entry['spec-decoding'] ?? 'none',
    prefill: rowWorker(entry.prefill),
    decode: rowWorker(entry.decode),
    conc: concs,
    'max-model-len': seq.isl + seq.osl + 256,
    'exp-name': `${config['model-prefix']}_${seqLenName(seq.isl, seq.osl)}`,
    disagg: config.multinode ? (config.disagg ?? false) : false,
    'run-eval': false,
  };
  withComponents(row, entry, config);
  if (config['engine-tuning'] !== undefined || entry['engine-tuning'] !== undefined) {
    // A multinode row serves all its concurrencies and both shapes in one launch: no conc, tp, ep or dp-attn conditions.
    const facts = { isl: row.isl, osl: row.osl, runner };
    const tuning = resolveTuning([config['engine-tuning'], entry['engine-tuning']], facts, row.disagg);
    if (tuning) row['engine-tuning'] = tuning;
  }
  return row;
}

function kvOffloadTag(entry: AgenticSearchSpaceEntry): string {
  const mode = entry['kv-offloading'] ?? 'none';
  return mode === 'none' ? 'kvnone' : `kv${mode}-${entry['kv-offload-backend']!.name}`;
}

function singleNodeAgenticRow(
  config: MasterConfigEntry,
  entry: AgenticSearchSpaceEntry,
  runner: string,
  conc: number,
  dramGb: number,
): SingleNodeAgenticRow {
  const tp = entry.tp!;
  const spec: SpecDecoding = entry['spec-decoding'] ?? 'none';
  const row: SingleNodeAgenticRow = {
    image: config.image,
    model: config.model,
    'model-prefix': config['model-prefix'],
    precision: config.precision,
    framework: config.framework,
    runner,
    tp,
    pp: entry.pp ?? 1,
    'dcp-size': entry['dcp-size'] ?? 1,
    'pcp-size': entry['pcp-size'] ?? 1,
    ep: entry.ep ?? 1,
    'dp-attn': entry['dp-attn'] ?? false,
    'spec-decoding': spec,
    conc,
    'kv-offloading': entry['kv-offloading']!,
    'total-cpu-dram-gb': dramGb,
    duration: DEFAULT_AGENTIC_DURATION_SECONDS,
    'exp-name': `${config['model-prefix']}_tp${tp}_conc${conc}_${kvOffloadTag(entry)}${spec !== 'none' ? `_spec-${spec}` : ''}`,
    'scenario-type': 'agentic-coding',
  };
  if (entry['kv-offload-backend'] !== undefined) row['kv-offload-backend'] = entry['kv-offload-backend'];
  return withComponents(row, entry, config);
}

function workerTag(worker: WorkerConfig, role: 'p' | 'd'): string {
  let tag = `${role}${worker['num-worker']}x${worker.tp}`;
  if (worker.ep !== 1) tag += `ep${worker.ep}`;
  if (worker['dp-attn']) tag += 'dpa';
  return tag;
}

function multiNodeAgenticRow(
  config: MasterConfigEntry,
  entry: AgenticSearchSpaceEntry,
  runner: string,
  concs: number[],
  dramGb: number,
): MultiNodeAgenticRow {
  const prefill = rowWorker(entry.prefill!);
  const decode = rowWorker(entry.decode!);
  const mode = entry['kv-offloading'] ?? 'none';
  // Historical exp-names have no offload suffix when offloading is off.
  const suffix = mode === 'none' ? '' : `_${kvOffloadTag(entry)}`;
  const row: MultiNodeAgenticRow = {
    image: config.image,
    model: config.model,
    'model-prefix': config['model-prefix'],
    precision: config.precision,
    framework: config.framework,
    runner,
    'spec-decoding': entry['spec-decoding'] ?? 'none',
    prefill,
    decode,
    conc: concs,
    'kv-offloading': mode,
    'total-cpu-dram-gb': dramGb,
    duration: DEFAULT_AGENTIC_DURATION_SECONDS,
    'exp-name': `${config['model-prefix']}_${workerTag(prefill, 'p')}_${workerTag(decode, 'd')}_conc${concs.join('x')}${suffix}`,
    disagg: config.multinode ? (config.disagg ?? false) : false,
    'scenario-type': 'agentic-coding',
  };
  if (entry['kv-offload-backend'] !== undefined) row['kv-offload-backend'] = entry['kv-offload-backend'];
  return withComponents(row, entry, config);
}
