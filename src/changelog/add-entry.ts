import { readFile } from 'node:fs/promises';
import { closest, loadMasterConfigs } from '../catalog/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { ChangelogEntry } from './entry.js';
import { ChangelogError, resolveEntryKeys } from './plan.js';
import { appendEntry, formatEntry } from './write.js';

/**
 * `frontier changelog add`: append an entry (`fields` as the entry spells them; undefined ones
 * left out) to the changelog `file`, once it is a valid entry whose every key (or glob) names a
 * config of `configFiles`; a near miss is suggested. Returns the block appended.
 */
export async function addEntry(fields: Record<string, unknown>, file: string, configFiles: readonly string[]): Promise<string> {
  const entry = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const valid = ChangelogEntry.safeParse(entry);
  if (!valid.success)
    throw new ChangelogError(
      `invalid entry: ${valid.error.issues[0]!.path.join('.')}: expected ${valid.error.issues[0]!.message}`,
    );
  if (entry['append-only'] && (entry['evals-only'] || entry['all-evals'] || entry['eval-min-prefill-ep'])) {
    throw new ChangelogError('--append-only cannot be combined with eval options');
  }
  await checkKeys(entry['config-keys'] as string[], configFiles);
  const raw = await readFile(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return Buffer.alloc(0);
    throw e;
  });
  const block = formatEntry(valid.data);
  writeFileAtomic(file, appendEntry(raw, block));
  return block;
}

async function checkKeys(entryKeys: readonly string[], configFiles: readonly string[]): Promise<void> {
  const catalog = await loadMasterConfigs(configFiles);
  const keys = [...catalog.value.origin.keys()];
  for (const key of entryKeys) {
    try {
      resolveEntryKeys([key], keys);
    } catch (e) {
      const near = key.includes('*') ? undefined : closest(key, keys);
      throw new ChangelogError(`${(e as Error).message}${near ? ` Did you mean '${near}'?` : ''}`);
    }
  }
}
