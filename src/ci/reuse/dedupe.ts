/**
 * Reruns of a flaky eval leave several raw `eval_*` artifacts and aggregate rows for one eval;
 * the validation would refuse them as duplicates. Before validating, keep the latest result of
 * each eval (by lm-eval's result timestamp) and drop the superseded ones. Only evals with a
 * timestamped result are touched: duplicates that cannot be ordered stay, for the validation to
 * refuse. Fixed-sequence and agentic artifacts are never touched.
 */
import type { ArtifactSet, JsonFile, RawEvalDir } from './artifact-set.js';
import type { Identity } from './identity.js';
import { asInt, evalKey, identityText } from './identity.js';
import { identityRepr } from './py-repr.js';

type Row = Record<string, unknown>;

/** lm-eval's `results_<ISO with dashes>.json`: fixed width, so it sorts as text. */
const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?/;
/** A batched result file's concurrency suffix (`…_conc64.json`, `…_conc64_1.json`). */
const CONC_SUFFIX = /_conc(\d+)(?:_\d+)?\.json$/;

const timestampOf = (name: string): string | undefined => TIMESTAMP.exec(name)?.[0];
const concOf = (name: string): number | undefined => {
  const m = CONC_SUFFIX.exec(name);
  return m ? Number.parseInt(m[1]!, 10) : undefined;
};

interface Contribution {
  key: Identity;
  /** The batched concurrency; undefined for a one-eval artifact. */
  conc: number | undefined;
}

function contributions(dir: RawEvalDir): { items: Contribution[]; meta: Row; batched: boolean } {
  const meta = dir.meta.kind === 'ok' ? dir.meta.value : undefined;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return { items: [], meta: {}, batched: false };
  const m = meta as Row;
  if (!Array.isArray(m.eval_concs)) return { items: [{ key: evalKey(m), conc: undefined }], meta: m, batched: false };
  if (!Array.isArray(m.completed_eval_concs)) return { items: [], meta: m, batched: true };
  return {
    items: m.completed_eval_concs.map((conc: unknown) => ({ key: evalKey({ ...m, conc }), conc: asInt(conc) })),
    meta: m,
    batched: true,
  };
}

/** For each eval, the raw artifact holding its latest result (by timestamp, then name). */
export function evalWinners(set: ArtifactSet): Map<string, string> {
  const best = new Map<string, [stamp: string, name: string]>();
  for (const dir of set.rawEvals) {
    const { items, batched } = contributions(dir);
    for (const file of dir.resultFiles) {
      const stamp = timestampOf(file);
      if (stamp === undefined) continue;
      const conc = concOf(file);
      for (const c of items) {
        // A batched result file names its concurrency: it competes for that eval only.
        if (batched && conc !== undefined && c.conc !== conc) continue;
        const k = identityText(c.key);
        const cur = best.get(k);
        if (cur === undefined || stamp > cur[0] || (stamp === cur[0] && dir.name > cur[1])) best.set(k, [stamp, dir.name]);
      }
    }
  }
  return new Map([...best].map(([k, [, name]]) => [k, name]));
}

/** What deduplication changes: files rewritten or removed (paths relative to the artifacts folder). */
export interface DedupePlan {
  /** Aggregate files with their kept rows, and meta_env.json files with their kept concurrencies. */
  rewrite: { path: string; data: unknown; indent: boolean }[];
  removeDirs: string[];
  removeFiles: string[];
  /** The reference's change log lines. */
  messages: string[];
}

function dedupeAggregate(file: JsonFile, winners: Map<string, string>): { kept: unknown[]; message?: string } | undefined {
  if (!Array.isArray(file.data)) return undefined;
  const data = file.data as unknown[];
  const groups = new Map<string, number[]>();
  const keep = new Set<number>();
  data.forEach((row, i) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) keep.add(i);
    else {
      const k = identityText(evalKey(row as Row));
      groups.set(k, [...(groups.get(k) ?? []), i]);
    }
  });
  const sourceOf = (i: number): string => {
    const s = (data[i] as Row).source;
    return typeof s === 'string' ? s : s === undefined || s === null || s === '' ? '' : String(s);
  };
  for (const [k, indices] of groups) {
    const winner = winners.get(k);
    if (winner === undefined || indices.length === 1) {
      indices.forEach((i) => keep.add(i));
      continue;
    }
    const byName = indices.find((i) => sourceOf(i).includes(winner));
    if (byName !== undefined) keep.add(byName);
    else {
      // The first row with the greatest timestamp in its source, as Python's max() picks.
      let pick = indices[0]!;
      for (const i of indices) if ((timestampOf(sourceOf(i)) ?? '') > (timestampOf(sourceOf(pick)) ?? '')) pick = i;
      keep.add(pick);
    }
  }
  if (keep.size === data.length) return undefined;
  const kept = data.filter((_, i) => keep.has(i));
  return { kept, message: `${file.path.split('/').pop()}: kept ${kept.length} of ${data.length} eval row(s)` };
}

/** The deduplication of `set`, and the set as it is afterwards. */
export function dedupeRerunEvals(set: ArtifactSet): { plan: DedupePlan; after: ArtifactSet } {
  const winners = evalWinners(set);
  const plan: DedupePlan = { rewrite: [], removeDirs: [], removeFiles: [], messages: [] };
  const aggregate = (set.evalAggregate ?? []).map((file) => {
    const d = dedupeAggregate(file, winners);
    if (!d) return file;
    plan.rewrite.push({ path: file.path, data: d.kept, indent: true });
    plan.messages.push(d.message!);
    return { ...file, data: d.kept };
  });
  const rawEvals: RawEvalDir[] = [];
  for (const dir of set.rawEvals) {
    const { items, meta, batched } = contributions(dir);
    const superseded = (key: Identity): boolean => {
      const w = winners.get(identityText(key));
      return w !== undefined && w !== dir.name;
    };
    if (items.length === 0) {
      rawEvals.push(dir);
      continue;
    }
    if (!batched) {
      if (superseded(items[0]!.key)) {
        plan.removeDirs.push(dir.name);
        plan.messages.push(`removed superseded raw eval dir ${identityRepr(dir.name)}`);
      } else rawEvals.push(dir);
      continue;
    }
    const losing = new Set(items.filter((c) => c.conc !== undefined && superseded(c.key)).map((c) => c.conc!));
    if (losing.size === 0) {
      rawEvals.push(dir);
      continue;
    }
    const dropped = dir.resultFiles.filter((f) => {
      const c = concOf(f);
      return c !== undefined && losing.has(c);
    });
    const remaining = (meta.completed_eval_concs as unknown[]).filter((c) => !losing.has(asInt(c)));
    if (remaining.length === 0) {
      plan.removeDirs.push(dir.name);
      plan.messages.push(`removed superseded batched raw eval dir ${identityRepr(dir.name)}`);
      continue;
    }
    plan.removeFiles.push(...dropped.map((f) => `${dir.name}/${f}`));
    const newMeta = { ...meta, completed_eval_concs: remaining };
    plan.rewrite.push({ path: `${dir.name}/meta_env.json`, data: newMeta, indent: false });
    plan.messages.push(
      `pruned superseded conc(s) ${[...losing].sort((a, b) => a - b).join(',')} from batched raw eval dir ${identityRepr(dir.name)}`,
    );
    rawEvals.push({
      ...dir,
      meta: { kind: 'ok', value: newMeta },
      resultFiles: dir.resultFiles.filter((f) => !dropped.includes(f)),
    });
  }
  return { plan, after: { ...set, rawEvals, evalAggregate: set.evalAggregate === undefined ? undefined : aggregate } };
}
