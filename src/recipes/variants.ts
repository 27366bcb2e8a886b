/**
 * srtctl override files: a `base:` recipe plus `override_<name>:` sections (deep-merged over the
 * base) and `zip_override_<group>:` sections (every list is a dimension zipped across variants;
 * length-1 lists broadcast). A CONFIG_FILE names one variant as `file.yaml:<selector>`.
 * Reference: srtctl core/config.py (deep_merge, expand_zip_override) and cli/submit.py.
 */
import { UserError } from '../util/user-error.js';

export class VariantError extends UserError {}

export interface Variant {
  /** The selector that picks it (`zip_override_g[0]`, `override_x`, or undefined for a plain recipe). */
  selector: string | undefined;
  /** The job name suffix srtctl appends (`g_0`, `x`). */
  suffix: string | undefined;
  recipe: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Dicts merge, lists and scalars replace, null deletes. */
export function deepMerge(base: Obj, override: Obj): Obj {
  const out: Obj = structuredClone(base);
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete out[key];
    else if (isObj(value) && isObj(out[key])) out[key] = deepMerge(out[key] as Obj, value);
    else out[key] = structuredClone(value);
  }
  return out;
}

export const isOverrideFile = (value: unknown): value is Obj => isObj(value) && 'base' in value;

function listLengths(d: Obj, out: number[] = []): number[] {
  for (const v of Object.values(d)) {
    if (Array.isArray(v)) out.push(v.length);
    else if (isObj(v)) listLengths(v, out);
  }
  return out;
}

function zipLength(group: string, zip: Obj): number {
  const lengths = listLengths(zip);
  if (lengths.length === 0) throw new VariantError(`${group}: zip_override section contains no list values — nothing to zip`);
  if (lengths.includes(0)) throw new VariantError(`${group}: zip_override contains an empty list — cannot zip zero-length lists`);
  const sizes = [...new Set(lengths.filter((n) => n !== 1))].sort((a, b) => a - b);
  if (sizes.length > 1) {
    throw new VariantError(
      `${group}: incompatible zip lengths [${sizes.join(', ')}]; all lists must have the same length or length 1 (broadcast)`,
    );
  }
  return sizes[0] ?? 1;
}

function zipSlice(d: Obj, index: number): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(d)) {
    if (Array.isArray(v)) out[k] = v[v.length === 1 ? 0 : index];
    else if (isObj(v)) out[k] = zipSlice(v, index);
    else out[k] = v;
  }
  return out;
}

function zipGroup(key: string, zip: Obj, base: Obj): Variant[] {
  const group = key.slice('zip_override_'.length);
  const n = zipLength(key, zip);
  const named = Array.isArray(zip.name);
  return Array.from({ length: n }, (_, i) => {
    const recipe = deepMerge(base, zipSlice(zip, i));
    if (!named) recipe.name = `${String(base.name ?? 'unnamed')}_${group}_${i}`;
    return { selector: `${key}[${i}]`, suffix: `${group}_${i}`, recipe };
  });
}

function overrideVariant(key: string, file: Obj): Variant {
  const base = file.base as Obj;
  const section = file[key];
  if (!isObj(section)) throw new VariantError(`${key} must be a mapping`);
  const suffix = key.slice('override_'.length);
  const recipe = deepMerge(base, section);
  if (!('name' in section)) recipe.name = `${String(base.name ?? 'unnamed')}_${suffix}`;
  return { selector: key, suffix, recipe };
}

/** Every variant a file defines: a plain recipe is one; an override file is its overrides and zip variants (not the base). */
export function fileVariants(value: unknown): Variant[] {
  if (!isOverrideFile(value)) return [{ selector: undefined, suffix: undefined, recipe: value as Obj }];
  const base = value.base;
  if (!isObj(base)) throw new VariantError('base must be a mapping (a recipe)');
  const out: Variant[] = [];
  for (const key of Object.keys(value)
    .filter((k) => k.startsWith('override_'))
    .sort())
    out.push(overrideVariant(key, value));
  for (const key of Object.keys(value)
    .filter((k) => k.startsWith('zip_override_'))
    .sort()) {
    const section = value[key];
    if (!isObj(section)) throw new VariantError(`${key} must be a mapping`);
    out.push(...zipGroup(key, section, base));
  }
  return out;
}

/** The variant a selector names (`base`, `override_x`, `zip_override_g`, `zip_override_g[N]`). */
export function selectVariant(value: unknown, selector: string | undefined): Variant {
  if (!isOverrideFile(value)) {
    if (selector !== undefined && selector !== '')
      throw new VariantError(`the recipe is not an override file, so it has no '${selector}'`);
    return { selector: undefined, suffix: undefined, recipe: value as Obj };
  }
  const base = value.base as Obj;
  const zipKeys = Object.keys(value).filter((k) => k.startsWith('zip_override_'));
  const overrideKeys = Object.keys(value).filter((k) => k.startsWith('override_'));
  if (selector === undefined || selector === '')
    throw new VariantError(`an override file needs a selector (${[...overrideKeys, ...zipKeys].join(', ')})`);
  if (selector === 'base') return { selector, suffix: undefined, recipe: structuredClone(base) };
  const indexed = /^(zip_override_[\w-]+)\[(\d+)\]$/.exec(selector);
  if (indexed) {
    const [, key, index] = indexed as unknown as [string, string, string];
    if (!zipKeys.includes(key))
      throw new VariantError(`'${key}' not found in config. Available zip groups: ${zipKeys.join(', ') || '(none)'}`);
    const variants = zipGroup(key, value[key] as Obj, base);
    const i = Number(index);
    if (i >= variants.length) {
      throw new VariantError(
        `Index [${i}] out of range for '${key}' (has ${variants.length} variants, valid: 0–${variants.length - 1})`,
      );
    }
    return variants[i]!;
  }
  if (overrideKeys.includes(selector)) return overrideVariant(selector, value);
  throw new VariantError(
    `'${selector}' does not name one variant of the file (available: ${[...overrideKeys, ...zipKeys.map((k) => `${k}[N]`)].join(', ')})`,
  );
}
