import type { Fields } from './fields.js';

/**
 * The most a trace file may hold. Each bound is far above any recorded corpus, and keeps a hostile
 * or broken file from taking gigabytes or hanging the reader or the replay (whose prompts are built
 * from these counts: a block is `block_size` words).
 */

/**
 * Bytes in a trace file: 2 GiB, the most Node's readFile reads in one piece. The published Weka
 * corpora are far smaller; a bigger corpus can be split, or capped with `frontier traces cap`.
 */
export const MAX_TRACE_FILE_BYTES = 2 ** 31 - 1;

/**
 * Lines in a trace file: 16 Mi. A pretty-printed trace puts each hash id on a line of its own (a
 * 1M-token context in 64-token blocks is 16k lines, over hundreds of turns); past this the line
 * list alone takes over 128 MB.
 */
export const MAX_TRACE_LINES = 1 << 24;

/**
 * Requests in a file, subagents' included: 1,000,000, tens of times the public Mooncake traces
 * (tens of thousands of lines) and of a Weka corpus (under 1k traces of hundreds of requests).
 */
export const MAX_TRACE_REQUESTS = 1_000_000;

/**
 * Tokens of one request (its recorded input, its output, and its blocks × block_size): 2 Mi, twice
 * the 1M-token windows the uncapped Weka corpora reach (build_weka_hf_dataset.py's 990,016-token
 * cap). The replay's prompt for such a context is ~11 MB of text.
 */
export const MAX_REQUEST_TOKENS = 1 << 21;

/** `hash_ids` of one request: 128 Ki, a 2M-token context in 16-token blocks (vLLM's default block size). */
export const MAX_HASH_IDS_PER_REQUEST = 1 << 17;

/** Tokens per hash block: 64 Ki, 128× Mooncake's 512 (Weka's is 64); one block is that many prompt words. */
export const MAX_BLOCK_SIZE = 1 << 16;

/** A request's `hash_ids`, refused when its blocks come to more than MAX_REQUEST_TOKENS. */
export function hashIdsOf(f: Fields, blockSize: number): number[] {
  const ids = f.intList('hash_ids', "the context's hash block ids", MAX_HASH_IDS_PER_REQUEST);
  const tokens = ids.length * blockSize;
  if (tokens > MAX_REQUEST_TOKENS)
    f.fail(
      'hash_ids',
      `${ids.length} blocks of ${blockSize} tokens is ${tokens} tokens, above the limit of ${MAX_REQUEST_TOKENS}`,
      'check the block size, or drop the request (`frontier traces cap --max-tokens`)',
    );
  return ids;
}

/** Options of Fields.number for a request's token count. */
export const TOKEN_COUNT = { required: true, integer: true, max: MAX_REQUEST_TOKENS } as const;

/**
 * Characters of a trace, session or agent id: 256 (proxy_to_weka.py names a trace after its log
 * file, a session id). Ids travel in HTTP headers (X-Correlation-ID), so they are printable ASCII
 * too: a line break there would write headers, or a request, of the file's choosing.
 */
export const MAX_ID_LENGTH = 256;

/** `id` (the value of key `name`), refused when it is too long or not printable ASCII. */
export function checkedId(f: Fields, name: string, id: string): string {
  const hint = `"${name}" travels in an HTTP header (X-Correlation-ID): write at most ${MAX_ID_LENGTH} printable ASCII characters`;
  if (id.length > MAX_ID_LENGTH) f.fail(name, `${id.length} characters, above the limit of ${MAX_ID_LENGTH}`, hint);
  if (!/^[\x20-\x7e]*$/.test(id)) f.fail(name, `${JSON.stringify(id).slice(0, 60)} is not printable ASCII`, hint);
  return id;
}
