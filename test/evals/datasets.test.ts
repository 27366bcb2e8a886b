import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/evals/datasets.js';
import { availableSplits, locateSplit, readSplit } from '../../src/evals/datasets.js';
import type { DatasetRef, Doc } from '../../src/evals/datasets.js';
import { REPO, tempFiles } from '../helpers.js';

// The fixtures (scripts/eval-datasets-fixtures.mjs writes all but pyarrow/; see test/fixtures/SOURCES.md):
// invented GPQA and AIME rows (source/) in each layout the hub exports.
const D = join(REPO, 'test/fixtures/evals/datasets');
const json = (path: string): unknown => JSON.parse(readFileSync(join(D, path), 'utf8'));
const GPQA = json('source/gpqa.json') as Doc[];
const AIME = json('source/aime.json') as Doc[];

const GPQA_DIAMOND: DatasetRef = { path: 'Idavidrein/gpqa', name: 'gpqa_diamond' };
const AIME_2024: DatasetRef = { path: 'Maxwell-Jia/AIME_2024' };

describe('locateSplit and readSplit', () => {
  it('read push_to_hub shards (<config>/<split>-NNNNN-of-NNNNN) from a root above <org>/<name>, in shard order', async () => {
    expect(locateSplit(join(D, 'hub'), GPQA_DIAMOND, 'train')).toEqual([
      join(D, 'hub/Idavidrein/gpqa/gpqa_diamond/train-00000-of-00002.parquet'),
      join(D, 'hub/Idavidrein/gpqa/gpqa_diamond/train-00001-of-00002.parquet'),
    ]);
    expect(await readSplit(join(D, 'hub'), GPQA_DIAMOND, 'train')).toEqual(GPQA);
    expect(await readSplit(join(D, 'hub'), { ...GPQA_DIAMOND, name: 'gpqa_main' }, 'train')).toEqual(GPQA);
  });

  it('read the same from DIR pointing at the dataset folder itself', async () => {
    const dataset = join(D, 'hub/Idavidrein/gpqa');
    expect(locateSplit(dataset, GPQA_DIAMOND, 'train')).toEqual(locateSplit(join(D, 'hub'), GPQA_DIAMOND, 'train'));
    expect(await readSplit(dataset, GPQA_DIAMOND, 'train')).toEqual(GPQA);
  });

  it('read data/<split>-* (a default-config repository), where `test` is not `test_extra`', async () => {
    expect(locateSplit(join(D, 'hub'), AIME_2024, 'test')).toEqual([
      join(D, 'hub/Maxwell-Jia/AIME_2024/data/test-00000-of-00001.parquet'),
    ]);
    expect(await readSplit(join(D, 'hub'), AIME_2024, 'test')).toEqual(AIME.slice(0, 10));
    expect(await readSplit(join(D, 'hub'), AIME_2024, 'test_extra')).toEqual(AIME.slice(10));
    expect(await readSplit(join(D, 'hub'), AIME_2024, 'train')).toEqual(AIME);
    expect(availableSplits(join(D, 'hub'), AIME_2024)).toEqual(['test', 'test_extra', 'train']);
  });

  it('read the refs/convert/parquet branch (<config>/<split>/NNNN.parquet; `default` without a config)', async () => {
    expect(locateSplit(join(D, 'convert/gpqa'), GPQA_DIAMOND, 'train')).toEqual([
      join(D, 'convert/gpqa/gpqa_diamond/train/0000.parquet'),
      join(D, 'convert/gpqa/gpqa_diamond/train/0001.parquet'),
    ]);
    expect(await readSplit(join(D, 'convert/gpqa'), GPQA_DIAMOND, 'train')).toEqual(GPQA);
    expect(await readSplit(join(D, 'convert/aime'), AIME_2024, 'train')).toEqual(AIME);
    expect(await readSplit(join(D, 'convert/aime'), { ...AIME_2024, name: null }, 'train')).toEqual(AIME);
    expect(availableSplits(join(D, 'convert/gpqa'), GPQA_DIAMOND)).toEqual(['train']);
  });

  it('read plain exports: <split>.jsonl, .jsonl.gz, .parquet, and <config>/<split>.jsonl(.gz)', async () => {
    const aime = join(D, 'plain/aime');
    expect(await readSplit(aime, AIME_2024, 'test')).toEqual(AIME.slice(0, 6));
    expect(await readSplit(aime, AIME_2024, 'train')).toEqual(AIME.slice(6));
    expect(await readSplit(aime, AIME_2024, 'validation')).toEqual(AIME.slice(0, 3));
    expect(availableSplits(aime, AIME_2024)).toEqual(['test', 'train', 'validation']);
    const gpqa = join(D, 'plain/gpqa');
    expect(await readSplit(gpqa, GPQA_DIAMOND, 'train')).toEqual(GPQA);
    expect(await readSplit(gpqa, { ...GPQA_DIAMOND, name: 'gpqa_main' }, 'train')).toEqual(GPQA.slice(0, 4));
  });

  it("turn parquet's INT64 into numbers and keep strings and nulls", async () => {
    const [first] = await readSplit(join(D, 'hub'), AIME_2024, 'test');
    expect(first).toEqual({ ID: 'fixture-1', Problem: expect.any(String), Solution: expect.any(String), Answer: 24 });
    const gpqa = await readSplit(join(D, 'hub'), GPQA_DIAMOND, 'train');
    expect(gpqa[8]?.['Subdomain']).toBeNull();
  });

  it('take the first layout holding the split, shards sorted by name, one file type per folder', () => {
    const dir = tempFiles({
      'data/train-00001-of-00002.jsonl': '{"n": 2}\n',
      'data/train-00000-of-00002.jsonl': '{"n": 1}\n',
      'train.jsonl': '{"n": 0}\n',
      'default/test-00000-of-00001.parquet': '',
      'default/test-00000-of-00001.jsonl': '{"n": 3}\n',
      'default/test/0000.parquet': '',
      'test.jsonl': '{"n": 4}\n',
    });
    expect(locateSplit(dir, { path: 'org/name' }, 'train')).toEqual([
      join(dir, 'data/train-00000-of-00002.jsonl'),
      join(dir, 'data/train-00001-of-00002.jsonl'),
    ]);
    expect(locateSplit(dir, { path: 'org/name' }, 'test')).toEqual([join(dir, 'default/test-00000-of-00001.parquet')]);
    expect(availableSplits(dir, { path: 'org/name' })).toEqual(['test', 'train']);
  });
  it('follow symbolic links (an older huggingface-cli --local-dir links into its cache)', async () => {
    const cache = tempFiles({ 'blobs/0a1b': '{"n": 1}\n', 'blobs/2c3d': '{"n": 2}\n' });
    const dir = tempFiles({});
    mkdirSync(join(dir, 'main'));
    symlinkSync(join(cache, 'blobs/0a1b'), join(dir, 'main/test-00000-of-00002.jsonl'));
    symlinkSync(join(cache, 'blobs/2c3d'), join(dir, 'main/test-00001-of-00002.jsonl'));
    expect(await readSplit(dir, { path: 'openai/gsm8k', name: 'main' }, 'test')).toEqual([{ n: 1 }, { n: 2 }]);
    expect(availableSplits(dir, { path: 'openai/gsm8k', name: 'main' })).toEqual(['test']);
  });
});

describe('files written by pyarrow (hyparquet test files; snappy, dictionary-encoded)', () => {
  const PYARROW = join(D, 'pyarrow');
  const ref: DatasetRef = { path: 'hyparam/hyparquet' };

  it('read strings and int64s', async () => {
    const expected = (json('pyarrow/dictionary_offset_indexed.json') as [number, string][]).map(([id, country]) => ({
      id,
      country,
    }));
    expect(expected).toHaveLength(200);
    expect(await readSplit(PYARROW, ref, 'dictionary_offset_indexed')).toEqual(expected);
  });

  it('read lists of structs as arrays of objects', async () => {
    const expected = (json('pyarrow/struct_offset_index.json') as [unknown][]).map(([messages]) => ({ messages }));
    expect(await readSplit(PYARROW, ref, 'struct_offset_index')).toEqual(expected);
  });

  it('keep an INT64 beyond 2^53 as its decimal string', async () => {
    const rows = await readSplit(PYARROW, ref, 'signs');
    expect(rows.map((r) => [r['unsigned_int64'], r['signed_int64']])).toEqual([
      [0, '-9223372036854775808'],
      ['9223372036854775807', -1],
      ['9223372036854775808', 0],
      ['18446744073709551615', '9223372036854775807'],
    ]);
    expect(rows[3]).toMatchObject({ unsigned_int32: 4294967295, signed_int32: 2147483647, unsigned_int8: 255 });
  });

  it('name the file and the reason when hyparquet cannot read it (BROTLI)', async () => {
    const file = join(PYARROW, 'brotli_compressed.parquet');
    const read = readSplit(PYARROW, ref, 'brotli_compressed');
    await expect(read).rejects.toThrow(DatasetError);
    await expect(read).rejects.toThrow(`${file}: cannot read this parquet file (parquet unsupported compression codec: BROTLI)`);
  });
});

describe('errors', () => {
  it('a missing split names the dataset, config, split, folders, the splits there and the fix', () => {
    const hub = join(D, 'hub');
    const g = join(hub, 'Idavidrein/gpqa');
    expect(() => locateSplit(hub, GPQA_DIAMOND, 'test')).toThrow(DatasetError);
    expect(() => locateSplit(hub, GPQA_DIAMOND, 'test')).toThrow(
      `no "test" split of Idavidrein/gpqa (config gpqa_diamond) under ${hub}: ` +
        `looked in ${g}/gpqa_diamond, ${g}, ${hub}/gpqa_diamond, ${hub}; found splits: train. ` +
        `Put the hub's files there (e.g. huggingface-cli download Idavidrein/gpqa --repo-type dataset --local-dir ${g})`,
    );
    const empty = tempFiles({ 'README.md': '' });
    expect(availableSplits(empty, { path: 'openai/gsm8k', name: 'main' })).toEqual([]);
    expect(() => locateSplit(empty, { path: 'openai/gsm8k', name: 'main' }, 'test')).toThrow(
      `no "test" split of openai/gsm8k (config main) under ${empty}: ` +
        `looked in ${empty}/openai/gsm8k/main, ${empty}/openai/gsm8k, ${empty}/main, ${empty}; found no splits. ` +
        `Put the hub's files there (e.g. huggingface-cli download openai/gsm8k --repo-type dataset --local-dir ${empty}/openai/gsm8k)`,
    );
  });

  it('a bad JSONL line names file:line', async () => {
    await expect(readSplit(join(D, 'bad'), AIME_2024, 'test')).rejects.toThrow(DatasetError);
    await expect(readSplit(join(D, 'bad'), AIME_2024, 'test')).rejects.toThrow(`${join(D, 'bad/test.jsonl')}:3: not JSON (`);
    const dir = tempFiles({ 'test.jsonl': '{"n": 1}\n[1, 2]\n', 'train.jsonl.gz': '{"n": 1}\n' });
    await expect(readSplit(dir, AIME_2024, 'test')).rejects.toThrow(`${join(dir, 'test.jsonl')}:2: not a JSON object`);
    await expect(readSplit(dir, AIME_2024, 'train')).rejects.toThrow(`${join(dir, 'train.jsonl.gz')} is not gzip (`);
  });
});
