import { Rng, hash32 } from '../../util/rng.js';

/**
 * Prompt text for hash blocks. A recorded request's context is a list of block ids; equal ids are
 * equal content. Each id becomes a deterministic run of `blockSize` words, every word one GPT-2
 * token (a leading space and a common English word), so a block is exactly `blockSize` tokens with
 * the sim's tokenizer and close to it with others, and blocks concatenate without merging tokens.
 */

/** Words that GPT-2 encodes as one token each, with their leading space (test/bench/replay-blocks checks). */
export const SINGLE_TOKEN_WORDS: readonly string[] = (
  'the of and to in is that for it with as was on be at by this had not are but from or have an they which one you ' +
  'were her all she there would their we him been has when who will more no if out so said what up its about into ' +
  'than them can only other new some could time these two may then do first any my now such like our over man me ' +
  'even most made after also did many before must through back years where much your way well down should because ' +
  'each just those people how too little state good very make world still own see men work long get here between ' +
  'both life being under never day same another know while last might us great old year off come since against go ' +
  'came right used take three'
)
  .split(' ')
  .map((w) => ` ${w}`);

/**
 * Words of block text kept by default: 4 Mi (~22 MB of ~5-character words): 65,536 of Weka's
 * 64-token blocks, 8,192 of Mooncake's 512. Counted in words, not blocks, so a trace's block size
 * cannot grow the cache.
 */
export const DEFAULT_BLOCK_CACHE_WORDS = 1 << 22;

/** Block texts by key, least recently used dropped first. */
export class BlockTexts {
  private readonly cache = new Map<string, string>();
  /** Blocks kept: as many as fit in the words allowed, at least one. */
  private readonly capacity: number;

  constructor(
    readonly blockSize: number,
    capacityWords = DEFAULT_BLOCK_CACHE_WORDS,
  ) {
    this.capacity = Math.max(1, Math.floor(capacityWords / blockSize));
  }

  /** The text of the block named `key` (a scope and a hash id). */
  block(key: string): string {
    let text = this.cache.get(key);
    if (text !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, text);
      return text;
    }
    text = words(key, this.blockSize);
    this.cache.set(key, text);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return text;
  }

  get size(): number {
    return this.cache.size;
  }
}

/** `n` words drawn from SINGLE_TOKEN_WORDS by a generator seeded with `key`. */
export function words(key: string, n: number): string {
  const rng = new Rng(hash32(key));
  let out = '';
  for (let i = 0; i < n; i++) out += SINGLE_TOKEN_WORDS[rng.int(SINGLE_TOKEN_WORDS.length)];
  return out;
}

/** Words of the cache-bust prefix put before a trajectory instance's context (AIPerf's `first_turn_prefix`). */
export const CACHE_BUST_WORDS = 8;

/**
 * Builds the text of a context: the instance's cache-bust prefix, then each block. Block keys are
 * scoped by trace when hash ids are local to a trace, so two traces' id 7 are different text.
 */
export class PromptBuilder {
  constructor(private readonly blocks: BlockTexts) {}

  /** The prefix that makes one trajectory instance's prompts unique to it (so lanes share no cache). */
  prefix(instanceId: string): string {
    return words(`bust:${instanceId}`, CACHE_BUST_WORDS);
  }

  text(scope: string, hashIds: readonly number[], from = 0): string {
    const parts: string[] = [];
    for (let i = from; i < hashIds.length; i++) parts.push(this.blocks.block(`${scope}:${hashIds[i]}`));
    return parts.join('');
  }
}
