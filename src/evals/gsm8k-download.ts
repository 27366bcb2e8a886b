import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { DatasetError } from './datasets.js';

/**
 * GSM8K (openai/grade-school-math, MIT): `test.jsonl` (1,319 problems, scored) and `train.jsonl`
 * (7,473, the few-shot examples), each line `{"question", "answer"}` with the answer ending in
 * `#### <number>`: the one dataset Frontier fetches itself, once, from the pinned commit into the
 * cache, each file checked against its sha256. Every other task's data is supplied with --data.
 */

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
        `cannot download GSM8K ${name} from ${url} (${(e as Error).message}): pass --data DIR holding GSM8K (its test.jsonl and train.jsonl, or the hub’s openai/gsm8k files), or set FRONTIER_GSM8K`,
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
