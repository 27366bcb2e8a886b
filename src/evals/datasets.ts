import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { readUnpacked } from '../util/bounded-read.js';
import { UserError } from '../util/user-error.js';

/** A dataset that cannot be found or read: the message names the file (and line) and the fix. */
export class DatasetError extends UserError {}

/**
 * An lm-evaluation-harness task's data (`dataset_path`, `dataset_name`) read from a local folder laid
 * out as the Hugging Face hub exports it; Frontier never downloads. ROOT is DIR/<path>, then DIR
 * itself (DIR may be the dataset's own folder); NAME is the config (`default` when there is none).
 * The first of these places holding the split wins, for each ROOT in turn:
 *   ROOT/NAME/<split>-*.{parquet,jsonl}    what `push_to_hub` writes (`main/test-00000-of-00001.parquet`)
 *   ROOT/NAME/<split>/*.parquet            the hub's refs/convert/parquet branch
 *   ROOT/data/<split>-*.{parquet,jsonl}    a repository with only the default config
 *   ROOT/<split>.{jsonl,jsonl.gz,parquet}  plain exports (GSM8K's test.jsonl), then the same in ROOT/NAME
 */

export interface DatasetRef {
  path: string;
  name?: string | null | undefined;
}

export type Doc = Record<string, unknown>;

/** The largest dataset file read (each is read whole): GSM8K's test split is 0.7 MB; Node cannot hold a string much past 512 MB. */
export const MAX_DATASET_FILE_BYTES = 256 << 20;
/** What a file may unpack to (gzip, or parquet's pages as its metadata counts them): the same bound as a plain file, whatever the compression. */
export const MAX_DATASET_UNPACKED_BYTES = 256 << 20;
/** Rows of one split: the evaluation sets lm-eval runs have up to some tens of thousands (MMLU: 14,042); every row is held, rendered and asked. */
export const MAX_DATASET_ROWS = 1_000_000;

/** The bounds a split is read within (the constants above; smaller ones in tests). */
export interface DatasetLimits {
  fileBytes: number;
  unpackedBytes: number;
  rows: number;
}
const DATASET_LIMITS: DatasetLimits = {
  fileBytes: MAX_DATASET_FILE_BYTES,
  unpackedBytes: MAX_DATASET_UNPACKED_BYTES,
  rows: MAX_DATASET_ROWS,
};

/** Where each row was read (`file:line`, or `file row N` for parquet), for errors about its values. */
const sources = new WeakMap<Doc, string>();
export const docSource = (doc: Doc): string | undefined => sources.get(doc);
function withSource(doc: Doc, source: string | undefined): Doc {
  if (source !== undefined) sources.set(doc, source);
  return doc;
}
/** `to` is made from row `from` (process_docs' copies): errors about it name `from`'s place. */
export const derivedRow = (from: Doc, to: Doc): Doc => withSource(to, docSource(from));

/** File types in the order one is preferred to another holding the same split. */
const EXTENSIONS = ['.parquet', '.jsonl', '.jsonl.gz'];
const PLAIN_EXTENSIONS = ['.jsonl', '.jsonl.gz', '.parquet'];

/** `shards`: <split>-*.ext files; `folders`: <split>/*.parquet; `plain`: one <split>.ext file. */
interface Place {
  dir: string;
  kind: 'shards' | 'folders' | 'plain';
}

function roots(dataDir: string, ref: DatasetRef): string[] {
  return [...new Set([join(dataDir, ref.path), dataDir])];
}

function configName(ref: DatasetRef): string {
  return ref.name || 'default';
}

function places(dataDir: string, ref: DatasetRef): Place[] {
  const name = configName(ref);
  return roots(dataDir, ref).flatMap((root): Place[] => [
    { dir: join(root, name), kind: 'shards' },
    { dir: join(root, name), kind: 'folders' },
    { dir: join(root, 'data'), kind: 'shards' },
    { dir: root, kind: 'plain' },
    { dir: join(root, name), kind: 'plain' },
  ]);
}

/** The files (or folders) in `dir`, sorted; symbolic links followed (a hub download may link into its cache). */
function list(dir: string, want: 'file' | 'dir'): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => {
      const stat = statSync(join(dir, n), { throwIfNoEntry: false });
      return want === 'file' ? stat?.isFile() : stat?.isDirectory();
    })
    .sort();
}

const extensionOf = (file: string, extensions: string[]): string | undefined => extensions.find((e) => file.endsWith(e));

// Split names are word characters (the datasets library's rule), so a shard's is what precedes its first '-'.
const SPLIT = /^\w+(?:\.\w+)*$/;
const SHARD_SPLIT = /^(\w+(?:\.\w+)*)-/;

function filesAt(place: Place, split: string): string[] {
  if (place.kind === 'folders')
    return list(join(place.dir, split), 'file')
      .filter((f) => f.endsWith('.parquet'))
      .map((f) => join(place.dir, split, f));
  const files = list(place.dir, 'file');
  if (place.kind === 'plain') {
    const ext = PLAIN_EXTENSIONS.find((e) => files.includes(split + e));
    return ext === undefined ? [] : [join(place.dir, split + ext)];
  }
  const shards = files.filter((f) => f.startsWith(`${split}-`));
  // One file type only: a folder holding a split as both parquet and JSONL would otherwise be read twice.
  const ext = EXTENSIONS.find((e) => shards.some((f) => extensionOf(f, EXTENSIONS) === e));
  return shards.filter((f) => extensionOf(f, EXTENSIONS) === ext).map((f) => join(place.dir, f));
}

function splitsAt(place: Place): string[] {
  if (place.kind === 'folders') return list(place.dir, 'dir').filter((d) => filesAt(place, d).length > 0);
  return list(place.dir, 'file').flatMap((f) => {
    const ext = extensionOf(f, place.kind === 'plain' ? PLAIN_EXTENSIONS : EXTENSIONS);
    if (ext === undefined) return [];
    const split = place.kind === 'plain' ? f.slice(0, -ext.length) : SHARD_SPLIT.exec(f)?.[1];
    return split !== undefined && SPLIT.test(split) ? [split] : [];
  });
}

/** The splits available for `ref` under `dataDir`, sorted (for error messages). */
export function availableSplits(dataDir: string, ref: DatasetRef): string[] {
  return [...new Set(places(dataDir, ref).flatMap(splitsAt))].sort();
}

/** The files holding `split` of `ref` under `dataDir`, shards in order; a DatasetError naming the places looked at when none is found. */
export function locateSplit(dataDir: string, ref: DatasetRef, split: string): string[] {
  for (const place of places(dataDir, ref)) {
    const files = filesAt(place, split);
    if (files.length > 0) return files;
  }
  const config = ref.name ? ` (config ${ref.name})` : '';
  const lookedIn = [...new Set(roots(dataDir, ref).flatMap((root) => [join(root, configName(ref)), root]))];
  const splits = availableSplits(dataDir, ref);
  throw new DatasetError(
    `no "${split}" split of ${ref.path}${config} under ${dataDir}: looked in ${lookedIn.join(', ')}; ` +
      (splits.length > 0 ? `found splits: ${splits.join(', ')}` : 'found no splits') +
      `. Put the hub's files there (e.g. huggingface-cli download ${ref.path} --repo-type dataset --local-dir ${join(dataDir, ref.path)})`,
  );
}

/** The split's rows in file order, as plain JSON-like objects keyed by column name. */
export async function readSplit(dataDir: string, ref: DatasetRef, split: string, limits = DATASET_LIMITS): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const file of locateSplit(dataDir, ref, split)) {
    const bytes = readUnpacked(file, limits.fileBytes, limits.unpackedBytes);
    if (!Buffer.isBuffer(bytes)) throw new DatasetError(`${file} ${bytes.refused}`, { hint: DATASET_HINT });
    const read = docs.length;
    docs.push(
      ...(file.endsWith('.parquet') ? await readParquet(file, bytes, limits, read) : readJsonl(file, bytes, limits, read)),
    );
  }
  return docs;
}

const DATASET_HINT = 'an evaluation split is a few thousand rows: check that this is the file meant';
const tooManyRows = (file: string, limits: DatasetLimits): DatasetError =>
  new DatasetError(`${file}: the split has more than ${limits.rows.toLocaleString('en-US')} rows`, { hint: DATASET_HINT });

/** The rows of a JSONL file; `read`: rows of the split read before this file. */
function readJsonl(file: string, bytes: Buffer, limits: DatasetLimits, read: number): Doc[] {
  const docs: Doc[] = [];
  const lines = bytes.toString('utf8').split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (read + docs.length === limits.rows) throw tooManyRows(file, limits);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new DatasetError(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new DatasetError(`${file}:${i + 1}: not a JSON object`);
    docs.push(withSource(value as Doc, `${file}:${i + 1}`));
  }
  return docs;
}

/** The rows of a parquet file, when its metadata says they fit the limits (the rows are decoded whole). */
async function readParquet(file: string, bytes: Buffer, limits: DatasetLimits, read: number): Promise<Doc[]> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let rows: Record<string, unknown>[];
  try {
    const metadata = parquetMetadata(buffer);
    if (metadata.num_rows + BigInt(read) > BigInt(limits.rows)) throw tooManyRows(file, limits);
    const unpacked = metadata.row_groups
      .flatMap((g) => g.columns)
      .reduce((total, c) => total + (c.meta_data?.total_uncompressed_size ?? 0n), 0n);
    if (unpacked > BigInt(limits.unpackedBytes))
      throw new DatasetError(`${file} unpacks to more than ${limits.unpackedBytes.toLocaleString('en-US')} bytes`, {
        hint: DATASET_HINT,
      });
    rows = await parquetReadObjects({ file: buffer, metadata });
  } catch (e) {
    if (e instanceof DatasetError) throw e;
    throw new DatasetError(`${file}: cannot read this parquet file (${(e as Error).message})`);
  }
  return rows.map((row, i) => withSource(plain(row) as Doc, `${file} row ${i + 1}`));
}

/** A parquet value as JSON has it: INT64 (a BigInt) as a number when exact, else as its decimal string. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
