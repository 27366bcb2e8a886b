/**
 * What a pull request changed, as the sign-off rules see it: each changed file with its added
 * lines and head text, and the master-config entries it added or changed.
 */
import { isDeepStrictEqual } from 'node:util';
import { parseYamlInput } from '../../util/yaml-input.js';

export interface AddedLine {
  /** 1-based line in the head file. */
  line: number;
  text: string;
}

export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** Lines the change added (none for a deleted or binary file). */
  added: AddedLine[];
  /** The file at the head (undefined when deleted or binary). */
  head?: string | undefined;
}

/** A master-config entry the change added or changed, with the fields the rules read. */
export interface ConfigEntry {
  key: string;
  file: string;
  isNew: boolean;
  image: string;
  framework: string;
  runner: string;
  modelPrefix: string;
  multinode: boolean;
  /** The entry's spec-decoding methods other than `none`. */
  specDecoding: string[];
}

export const MASTER_CONFIG = /^configs\/[^/]*-master\.ya?ml$/;

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

function entriesOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const value = parseYamlInput(text, 'a master config', { uniqueKeys: false });
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function specMethods(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => specMethods(v, into));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'spec-decoding' && str(v) !== '' && str(v) !== 'none') into.add(str(v));
      else specMethods(v, into);
    }
  }
  return into;
}

function entryOf(file: string, key: string, raw: unknown, isNew: boolean): ConfigEntry {
  const e = (raw ?? {}) as Record<string, unknown>;
  return {
    key,
    file,
    isNew,
    image: str(e.image),
    framework: str(e.framework),
    runner: str(e.runner),
    modelPrefix: str(e['model-prefix']),
    multinode: e.multinode === true,
    specDecoding: [...specMethods(e.scenarios)].sort(),
  };
}

/** The entries of one master config the change added or changed (by key; a rename reads as a new entry). */
export function changedEntries(file: string, base: string | undefined, head: string | undefined): ConfigEntry[] {
  const before = entriesOf(base);
  const after = entriesOf(head);
  return Object.entries(after)
    .filter(([key, value]) => !isDeepStrictEqual(before[key], value))
    .map(([key, value]) => entryOf(file, key, value, !(key in before)));
}

/** Every entry of a master config, to look up siblings (the engine-first rule). */
export function allEntries(file: string, text: string | undefined): ConfigEntry[] {
  return Object.entries(entriesOf(text)).map(([key, value]) => entryOf(file, key, value, false));
}
