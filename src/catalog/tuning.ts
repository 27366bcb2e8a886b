import type { EngineTuning, TuningCondition, TuningRule, TuningSettings } from './schema.js';

/**
 * Engine tuning (`engine-tuning` in Frontier's own master configs): which rules a row matches and
 * what they add up to. Rules apply in order, entry rules then the search-space entry's; every
 * matching rule applies and a later one overrides an earlier one (a flag set again takes the
 * later value; a flag removed by a later rule goes, set by a later rule comes back). Pure: the
 * matrix generator resolves each row's tuning here, catalog rules check conditions against the
 * rows an entry would generate.
 */

/** A flag's value as rendered: one word, the bare flag (`true`), or several words. */
export type TunedArg = string | true | string[];

/** What one engine process gets: flags to set, variables to set, flags to drop. */
export interface ResolvedTuningSettings {
  args?: Record<string, TunedArg>;
  env?: Record<string, string>;
  remove?: string[];
}

/**
 * A row's effective tuning. Aggregated rows have the flat settings; disaggregated rows have the
 * settings of each role in `prefill` and `decode` (common settings merged in) and nothing flat.
 */
export interface ResolvedTuning extends ResolvedTuningSettings {
  prefill?: ResolvedTuningSettings;
  decode?: ResolvedTuningSettings;
}

/** What a `when` is checked against: the row's own values (absent ones match no condition on them). */
export interface TuningFacts {
  conc?: number | undefined;
  isl?: number | undefined;
  osl?: number | undefined;
  tp?: number | undefined;
  ep?: number | undefined;
  dpAttn?: boolean | undefined;
  runner?: string | undefined;
}

/** The GPU sku a runner names: the label (or node name) up to its first "-" (h200-multinode → h200). */
export const gpuOfRunner = (runner: string): string => runner.replace(/^cluster:/, '').split('-')[0]!;

type IntCondition = NonNullable<TuningCondition['conc']>;

export function intMatches(cond: IntCondition, value: number | undefined): boolean {
  if (value === undefined) return false;
  if (typeof cond === 'number') return value === cond;
  if (Array.isArray(cond)) return cond.includes(value);
  return (cond.min === undefined || value >= cond.min) && (cond.max === undefined || value <= cond.max);
}

const names = (cond: string | string[]): string[] => (Array.isArray(cond) ? cond : [cond]);

/** Whether every condition of `when` holds for the facts (no `when`: always). */
export function whenMatches(when: TuningCondition | undefined, f: TuningFacts): boolean {
  if (!when) return true;
  if (when.conc !== undefined && !intMatches(when.conc, f.conc)) return false;
  if (when.isl !== undefined && !intMatches(when.isl, f.isl)) return false;
  if (when.osl !== undefined && !intMatches(when.osl, f.osl)) return false;
  if (when.tp !== undefined && !intMatches(when.tp, f.tp)) return false;
  if (when.ep !== undefined && !intMatches(when.ep, f.ep)) return false;
  if (when['dp-attn'] !== undefined && when['dp-attn'] !== f.dpAttn) return false;
  if (when.runner !== undefined && (f.runner === undefined || !names(when.runner).includes(f.runner))) return false;
  if (when.gpu !== undefined && (f.runner === undefined || !names(when.gpu).includes(gpuOfRunner(f.runner)))) return false;
  return true;
}

interface State {
  args: Map<string, TunedArg>;
  env: Map<string, string>;
  remove: Set<string>;
}

function applySettings(state: State, s: TuningSettings | undefined): void {
  if (!s) return;
  for (const flag of s.remove ?? []) {
    state.args.delete(flag);
    state.remove.add(flag);
  }
  for (const [flag, value] of Object.entries(s.args ?? {})) {
    state.remove.delete(flag);
    // Set again: the flag moves to the end, as it would be written last.
    state.args.delete(flag);
    state.args.set(flag, value === true ? true : Array.isArray(value) ? value.map(String) : String(value));
  }
  for (const [name, value] of Object.entries(s.env ?? {})) state.env.set(name, String(value));
}

function settingsOf(state: State): ResolvedTuningSettings | undefined {
  const out: ResolvedTuningSettings = {};
  if (state.args.size > 0) out.args = Object.fromEntries(state.args);
  if (state.env.size > 0) out.env = Object.fromEntries(state.env);
  if (state.remove.size > 0) out.remove = [...state.remove];
  return Object.keys(out).length > 0 ? out : undefined;
}

function resolveRole(rules: readonly TuningRule[], role: 'prefill' | 'decode' | undefined): ResolvedTuningSettings | undefined {
  const state: State = { args: new Map(), env: new Map(), remove: new Set() };
  for (const rule of rules) {
    applySettings(state, rule);
    if (role) applySettings(state, rule[role]);
  }
  return settingsOf(state);
}

/**
 * The tuning of a row: the rules (entry's, then search-space entry's) whose `when` holds, merged
 * in order. `disagg`: resolve per role (prefill, decode). Undefined when nothing applies, so that
 * a row without tuning is exactly the row InferenceX's generator writes.
 */
export function resolveTuning(
  rules: readonly (EngineTuning | undefined)[],
  facts: TuningFacts,
  disagg: boolean,
): ResolvedTuning | undefined {
  const matched = rules.flatMap((list) => (list ?? []).filter((rule) => whenMatches(rule.when, facts)));
  if (matched.length === 0) return undefined;
  if (!disagg) return resolveRole(matched, undefined);
  const prefill = resolveRole(matched, 'prefill');
  const decode = resolveRole(matched, 'decode');
  if (!prefill && !decode) return undefined;
  return { ...(prefill ? { prefill } : {}), ...(decode ? { decode } : {}) };
}
