import { createHash } from 'node:crypto';
import { isMultiNodeRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { dumps } from '../pycompat/index.js';
import type { DumpsOptions } from '../pycompat/index.js';

/**
 * Python's `json.dumps(row, sort_keys=True, separators=(",", ":"))` (ensure_ascii) of the row
 * without some top-level keys: the canonical text the reference hashes into recipe fingerprints
 * and compares as identities.
 */
function canonicalJsonWithout(row: object, omit: ReadonlySet<string>): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!omit.has(k)) rest[k] = v;
  return dumps(rest, CANONICAL);
}
const CANONICAL: DumpsOptions = { sortKeys: true, separators: [',', ':'] };

/** Fields that vary per benchmark point of one recipe. */
const POINT_FIELDS = new Set(['conc', 'exp-name', 'recipe-fingerprint']);

/** sha256 of the row without its point-level fields: the same recipe at any concurrency hashes alike. */
export function recipeFingerprint(row: MatrixRow): string {
  return createHash('sha256').update(canonicalJsonWithout(row, POINT_FIELDS)).digest('hex');
}

/** Names that do not change what a row measures. */
const NAME_FIELDS = new Set(['exp-name', 'run-eval', 'eval-only']);

/** The CONFIG_FILE and EVAL_CONFIG_FILE values of a multinode row: the recipes it runs. */
function rowRecipes(row: MatrixRow): string[] {
  if (!isMultiNodeRow(row)) return [];
  return [...(row.prefill['additional-settings'] ?? []), ...(row.decode['additional-settings'] ?? [])].flatMap((s) => {
    const m = /^(?:EVAL_)?CONFIG_FILE=(.+)$/.exec(s);
    return m ? [m[1]!] : [];
  });
}

/**
 * What a row measures: the row without its names and without the fields that only describe it
 * on its route (`describes`, from src/clusters' descriptiveFields: e.g. a multinode recipe that
 * fixes its own KV offload makes the row's kv-offloading a description), and the bytes of the
 * recipes it runs (`recipe(value)` reads a CONFIG_FILE value's file; undefined when it is not in the tree).
 */
export function measuredFingerprint(
  row: MatrixRow,
  recipe: (value: string) => Buffer | undefined,
  describes: ReadonlySet<string> = NO_FIELDS,
): string {
  const omit = describes.size === 0 ? NAME_FIELDS : new Set([...NAME_FIELDS, ...describes]);
  const hash = createHash('sha256').update(canonicalJsonWithout(row, omit));
  for (const value of rowRecipes(row)) hash.update(recipe(value) ?? '');
  return hash.digest('hex');
}
const NO_FIELDS: ReadonlySet<string> = new Set();

/** Identity of one curve: everything but the concurrency (and the names derived from it). */
export const curveKey = (row: MatrixRow): string => canonicalJsonWithout(row, POINT_FIELDS);

/**
 * `--trim-conc`: one point per recipe, for PR runs that only need to prove a change starts.
 * Single-node recipes keep their lowest-concurrency row; multinode rows keep `[min(conc)]`.
 */
export function trimConc(rows: MatrixRow[]): MatrixRow[] {
  const out: MatrixRow[] = [];
  const groups = new Map<string, number[]>();
  for (const row of rows) {
    if (isMultiNodeRow(row)) {
      out.push(row.conc.length > 1 ? { ...row, conc: [Math.min(...row.conc)] } : row);
      continue;
    }
    const key = canonicalJsonWithout(row, new Set(['conc', 'exp-name']));
    const group = groups.get(key);
    if (group) group.push(out.length);
    else groups.set(key, [out.length]);
    out.push(row);
  }
  const drop = new Set<number>();
  for (const idxs of groups.values()) {
    if (idxs.length < 2) continue;
    let keep = idxs[0]!;
    for (const i of idxs) if ((out[i]!.conc as number) < (out[keep]!.conc as number)) keep = i;
    for (const i of idxs) if (i !== keep) drop.add(i);
  }
  return out.filter((_, i) => !drop.has(i));
}
