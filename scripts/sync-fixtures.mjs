// Copy the reference fixtures the tests use from ../shared into test/fixtures, so the suite runs
// on a clone without ../shared. Large outputs are gzipped; tests read `x` or `x.gz` alike.
// Usage: node scripts/sync-fixtures.mjs [--check]   (--check: exit 1 if the copy is stale)
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

const SOURCE = new URL('../../shared/fixtures/inferencex/', import.meta.url).pathname;
const TARGET = new URL('../test/fixtures/inferencex/', import.meta.url).pathname;
const check = process.argv.includes('--check');

if (!existsSync(SOURCE)) {
  console.error(`no ${SOURCE}: nothing to sync`);
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

let stale = 0;
const put = (target, data) => {
  const path = join(TARGET, target);
  const current = existsSync(path) ? readFileSync(path) : undefined;
  const same = current && (target.endsWith('.gz') ? gunzipSync(current).equals(gunzipSync(data)) : current.equals(data));
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
if (check && stale > 0) process.exit(1);
console.log(stale === 0 ? 'fixtures up to date' : `${stale} files ${check ? 'stale' : 'updated'}`);
