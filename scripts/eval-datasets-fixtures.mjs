// Writes the dataset fixtures of test/evals/datasets.test.ts under test/fixtures/evals/datasets/:
// the invented rows of source/gpqa.json and source/aime.json (GPQA and Maxwell-Jia/AIME_2024
// columns; the questions are made up for the tests) laid out as the hub exports datasets, as
// parquet (snappy) and JSONL. The generated files are committed; pyarrow/ is copied, not generated.
//
// The parquet files are written by hyparquet-writer, which is not a dependency of Frontier: install
// it in a scratch folder and name that folder.
//
//   mkdir -p /tmp/hpw && (cd /tmp/hpw && npm install hyparquet-writer@0.17.0)
//   node scripts/eval-datasets-fixtures.mjs /tmp/hpw
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const scratch = process.argv[2];
if (!scratch) {
  console.error('usage: node scripts/eval-datasets-fixtures.mjs SCRATCH (a folder where `npm install hyparquet-writer` ran)');
  process.exit(2);
}
const require = createRequire(join(scratch, 'package.json'));
const entry = require.resolve('hyparquet-writer'); // <package>/src/node.js
const { parquetWriteFile } = await import(pathToFileURL(entry).href);
const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'));

const OUT = fileURLToPath(new URL('../test/fixtures/evals/datasets/', import.meta.url));
const source = (name) => JSON.parse(readFileSync(join(OUT, 'source', name), 'utf8'));
const gpqa = source('gpqa.json');
const aime = source('aime.json');

// Column types as the hub's parquet has them: every GPQA column a string, AIME's Answer an int64.
const TYPES = { Answer: 'INT64' };

function parquet(path, rows) {
  mkdirSync(dirname(join(OUT, path)), { recursive: true });
  const columns = Object.keys(rows[0]);
  parquetWriteFile({
    filename: join(OUT, path),
    createdBy: `hyparquet-writer version ${version}`,
    columnData: columns.map((name) => {
      const type = TYPES[name] ?? 'STRING';
      const data = rows.map((row) => (type === 'INT64' ? BigInt(row[name]) : row[name]));
      return { name, type, data };
    }),
  });
}

function jsonl(path, rows) {
  mkdirSync(dirname(join(OUT, path)), { recursive: true });
  const text = rows.map((row) => JSON.stringify(row) + '\n').join('');
  writeFileSync(join(OUT, path), path.endsWith('.gz') ? gzipSync(text, { level: 9 }) : text);
}

for (const dir of ['hub', 'convert', 'plain', 'bad']) rmSync(join(OUT, dir), { recursive: true, force: true });

// hub/: a --data root holding datasets as <org>/<name>, in the layout `push_to_hub` writes.
parquet('hub/Idavidrein/gpqa/gpqa_diamond/train-00000-of-00002.parquet', gpqa.slice(0, 6));
parquet('hub/Idavidrein/gpqa/gpqa_diamond/train-00001-of-00002.parquet', gpqa.slice(6));
jsonl('hub/Idavidrein/gpqa/gpqa_main/train-00000-of-00001.jsonl', gpqa);
parquet('hub/Maxwell-Jia/AIME_2024/data/test-00000-of-00001.parquet', aime.slice(0, 10));
parquet('hub/Maxwell-Jia/AIME_2024/data/test_extra-00000-of-00001.parquet', aime.slice(10));
jsonl('hub/Maxwell-Jia/AIME_2024/data/train-00000-of-00001.jsonl', aime);

// convert/: dataset folders holding the hub's refs/convert/parquet branch.
parquet('convert/gpqa/gpqa_diamond/train/0000.parquet', gpqa.slice(0, 6));
parquet('convert/gpqa/gpqa_diamond/train/0001.parquet', gpqa.slice(6));
parquet('convert/aime/default/train/0000.parquet', aime);

// plain/: dataset folders with one file per split.
jsonl('plain/aime/test.jsonl', aime.slice(0, 6));
jsonl('plain/aime/train.jsonl.gz', aime.slice(6));
parquet('plain/aime/validation.parquet', aime.slice(0, 3));
jsonl('plain/gpqa/gpqa_diamond/train.jsonl.gz', gpqa);
jsonl('plain/gpqa/gpqa_main/train.jsonl', gpqa.slice(0, 4));

// bad/: line 3 is not JSON.
mkdirSync(join(OUT, 'bad'), { recursive: true });
const good = aime.slice(0, 2).map((row) => JSON.stringify(row));
writeFileSync(join(OUT, 'bad/test.jsonl'), `${good[0]}\n\n{"ID": "fixture-3", "Problem": \n${good[1]}\n`);
