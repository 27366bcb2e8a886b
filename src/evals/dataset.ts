import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';

/**
 * GSM8K (openai/grade-school-math, MIT): `test.jsonl` (1,319 problems, scored) and `train.jsonl`
 * (7,473, the few-shot examples), each line `{"question", "answer"}` with the answer ending in
 * `#### <number>`. From a directory (`--dataset DIR`, or `$FRONTIER_GSM8K`), else downloaded once
 * from the pinned commit into the cache and checked against its sha256.
 */

export interface Gsm8kDoc {
  question: string;
  answer: string;
}

export interface Gsm8k {
  test: Gsm8kDoc[];
  train: Gsm8kDoc[];
  /** Where it was read from. */
  dir: string;
  /** The test split's file (test.jsonl or test.jsonl.gz): the sim's answer book. */
  testFile: string;
}

export class DatasetError extends UserError {}

const COMMIT = '3101c7d5072418e28b9008a6636bde82a006892c';
export const GSM8K_SOURCE = `https://raw.githubusercontent.com/openai/grade-school-math/${COMMIT}/grade_school_math/data`;
export const GSM8K_FILES = {
  'test.jsonl': '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14',
  'train.jsonl': '17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465',
} as const;
type Split = keyof typeof GSM8K_FILES;

/** The default cache: `$XDG_CACHE_HOME/frontier/gsm8k-<commit>` (~/.cache when unset). */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'frontier', `gsm8k-${COMMIT.slice(0, 12)}`);
}

/** A split's file in DIR: `<name>`, else `<name>.gz`. */
function splitFile(dir: string, name: Split): string | undefined {
  const plain = join(dir, name);
  if (existsSync(plain)) return plain;
  return existsSync(`${plain}.gz`) ? `${plain}.gz` : undefined;
}

export function parseDocs(text: string, file: string): Gsm8kDoc[] {
  const docs: Gsm8kDoc[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new DatasetError(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    const { question, answer } = (value ?? {}) as Record<string, unknown>;
    if (typeof question !== 'string' || typeof answer !== 'string' || !answer.includes('#### '))
      throw new DatasetError(`${file}:${i + 1}: expected {"question": string, "answer": "… #### <number>"}`);
    docs.push({ question, answer });
  });
  return docs;
}

/** GSM8K from a directory holding test.jsonl and train.jsonl (or .gz). */
export function loadGsm8k(dir: string): Gsm8k {
  const locate = (name: Split): string => {
    const file = splitFile(dir, name);
    if (file === undefined)
      throw new DatasetError(`${join(dir, name)}: missing; a GSM8K directory holds test.jsonl and train.jsonl (or .gz)`);
    return file;
  };
  const read = (file: string): Gsm8kDoc[] => {
    const bytes = readFileSync(file);
    return parseDocs((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'), file);
  };
  const testFile = locate('test.jsonl');
  return { test: read(testFile), train: read(locate('train.jsonl')), dir, testFile };
}

export type Fetch = (url: string) => Promise<{ ok: boolean; status: number; arrayBuffer(): Promise<ArrayBuffer> }>;

/**
 * The cached dataset, downloading what is missing from `source` (default: the pinned GitHub
 * commit) first. A file is kept only when its sha256 is the pinned one, and is written whole.
 */
export async function ensureGsm8k(
  o: { cacheDir?: string; source?: string; fetch?: Fetch; log?: (line: string) => void } = {},
): Promise<string> {
  const dir = o.cacheDir ?? defaultCacheDir();
  const source = o.source ?? process.env.FRONTIER_GSM8K_SOURCE ?? GSM8K_SOURCE;
  const get = o.fetch ?? (globalThis.fetch as unknown as Fetch);
  for (const [name, sha] of Object.entries(GSM8K_FILES) as [Split, string][]) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    const url = `${source}/${name}`;
    o.log?.(`downloading ${url}`);
    let bytes: Buffer;
    try {
      const res = await get(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      bytes = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      throw new DatasetError(
        `cannot download GSM8K ${name} from ${url} (${(e as Error).message}): pass --dataset DIR with test.jsonl and train.jsonl, or set FRONTIER_GSM8K`,
      );
    }
    const got = createHash('sha256').update(bytes).digest('hex');
    if (got !== sha)
      throw new DatasetError(`${url}: sha256 ${got}, expected ${sha}: not the pinned GSM8K ${name}; nothing was cached`);
    mkdirSync(dir, { recursive: true });
    writeFileAtomic(path, bytes);
  }
  return dir;
}

/** `--dataset DIR`, else `$FRONTIER_GSM8K`, else the cache (downloading once). */
export async function resolveGsm8k(dataset: string | undefined, log?: (line: string) => void): Promise<Gsm8k> {
  const dir = dataset ?? process.env.FRONTIER_GSM8K ?? (await ensureGsm8k({ log }));
  return loadGsm8k(dir);
}
