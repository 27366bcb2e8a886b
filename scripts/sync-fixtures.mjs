// Copy the reference fixtures the tests use (InferenceX's configs and goldens, from the directory
// $FRONTIER_REFERENCE_FIXTURES names) into test/fixtures, so the suite runs on a plain clone. Large
// outputs are gzipped; tests read `x` or `x.gz` alike.
// Usage: FRONTIER_REFERENCE_FIXTURES=DIR node scripts/sync-fixtures.mjs [--check]   (--check: exit 1 if the copy is stale)
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';

const SOURCE = process.env.FRONTIER_REFERENCE_FIXTURES ? `${resolve(process.env.FRONTIER_REFERENCE_FIXTURES)}/` : '';
const TARGET = new URL('../test/fixtures/inferencex/', import.meta.url).pathname;
const check = process.argv.includes('--check');

if (!SOURCE || !existsSync(SOURCE)) {
  console.error(`no reference fixtures (${SOURCE || '$FRONTIER_REFERENCE_FIXTURES is not set'}): nothing to sync`);
  process.exit(check ? 0 : 1);
}

/** [source path relative to SOURCE, target path relative to TARGET, gzip?] */
const plan = [
  ['LICENSE', 'LICENSE', false],
  ['configs/nvidia-master.yaml', 'configs/nvidia-master.yaml', false],
  ['configs/amd-master.yaml', 'configs/amd-master.yaml', false],
  ['configs/runners.yaml', 'configs/runners.yaml', false],
  ['golden/matrix/README.md', 'golden/matrix/README.md', false],
  ['golden/matrix/REFERENCE_TIMING.txt', 'golden/matrix/REFERENCE_TIMING.txt', false],
  ['golden/matrix/cases.json', 'golden/matrix/cases.json', false],
];
for (const f of readdirSync(join(SOURCE, 'golden/matrix'))) {
  if (f.endsWith('.json') && f !== 'cases.json') plan.push([`golden/matrix/${f}`, `golden/matrix/${f}.gz`, true]);
}
// process_result.py goldens: every case's files (case 09's 244 KiB raw input gzipped), not the generator.
plan.push(['golden/process-result/README.md', 'golden/process-result/README.md', false]);
for (const c of readdirSync(join(SOURCE, 'golden/process-result')).filter((d) => /^\d\d_/.test(d))) {
  for (const f of readdirSync(join(SOURCE, 'golden/process-result', c))) {
    const big = f === 'input.json' && statSync(join(SOURCE, 'golden/process-result', c, f)).size > 64 * 1024;
    plan.push([`golden/process-result/${c}/${f}`, `golden/process-result/${c}/${f}${big ? '.gz' : ''}`, big]);
  }
}

// Eval goldens (GSM8K scoring, validate_scores.py, collect_eval_results.py) and the task and
// thresholds files they were made with; not the generator. Files over 64 KiB are gzipped.
plan.push(['evals/gsm8k.yaml', 'evals/gsm8k.yaml', false], ['evals/thresholds.yaml', 'evals/thresholds.yaml', false]);
const walkEvals = (dir) => {
  for (const name of readdirSync(join(SOURCE, dir)).sort()) {
    const path = `${dir}/${name}`;
    if (name === '_generator') continue;
    if (statSync(join(SOURCE, path)).isDirectory()) walkEvals(path);
    else {
      const big = statSync(join(SOURCE, path)).size > 64 * 1024;
      plan.push([path, `${path}${big ? '.gz' : ''}`, big]);
    }
  }
};
walkEvals('golden/evals');

// The YAML corpus (changelog and srt-slurm recipes) as one gzipped JSON map: path → text.
const corpus = {};
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.ya?ml$/.test(name)) corpus[relative(SOURCE, path)] = readFileSync(path, 'utf8');
  }
};
corpus['perf-changelog.yaml'] = readFileSync(join(SOURCE, 'perf-changelog.yaml'), 'utf8');
walk(join(SOURCE, 'srt-slurm-recipes'));

// The changelog goldens: 120 files, 63 distinct, mostly near-identical 6,000-line changelogs.
// Stored once each ({ manifest: path → hash, blobs: hash → text }) and brotli-compressed with a
// window large enough to see the repetition: 18 MB → ~0.15 MB.
const manifest = {};
const blobs = {};
const walkGolden = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walkGolden(path);
    else {
      const text = readFileSync(path, 'utf8');
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
      blobs[hash] = text;
      manifest[relative(join(SOURCE, 'golden/changelog'), path)] = hash;
    }
  }
};
walkGolden(join(SOURCE, 'golden/changelog'));
const changelogGoldens = Buffer.from(JSON.stringify({ manifest, blobs }));

let stale = 0;
const put = (target, data) => {
  const path = join(TARGET, target);
  const current = existsSync(path) ? readFileSync(path) : undefined;
  const unpack = target.endsWith('.gz') ? gunzipSync : target.endsWith('.br') ? brotliDecompressSync : (b) => b;
  const same = current && unpack(current).equals(unpack(data));
  if (same) return;
  stale++;
  if (check) {
    console.error(`stale: test/fixtures/inferencex/${target}`);
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
  console.log(`wrote test/fixtures/inferencex/${target}`);
};
for (const [from, to, gzip] of plan) {
  const data = readFileSync(join(SOURCE, from));
  put(to, gzip ? gzipSync(data, { level: 9 }) : data);
}
put('yaml-corpus.json.gz', gzipSync(Buffer.from(JSON.stringify(corpus)), { level: 9 }));
put(
  'golden/changelog.json.br',
  brotliCompressSync(changelogGoldens, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: changelogGoldens.length,
    },
  }),
);
if (check && stale > 0) process.exit(1);
console.log(stale === 0 ? 'fixtures up to date' : `${stale} files ${check ? 'stale' : 'updated'}`);
