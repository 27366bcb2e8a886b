// Rewrites the generated parts of docs/ (npm run docs), each between `<!-- NAME:begin … -->` and
// `<!-- NAME:end -->` markers: the review rules table in docs/review.md (`frontier rules --format
// markdown`), the API's endpoint table in docs/api.md and docs/openapi.json (`frontier schema
// openapi`), and the folder layering in docs/architecture.md (scripts/check-deps.mjs). Tests
// (test/docs.test.ts) fail when a committed copy is stale.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { layersTable } from './check-deps.mjs';
import { endpointsTable } from './openapi-table.mjs';

const docs = new URL('../docs/', import.meta.url);
const frontier = (...args) =>
  execFileSync(process.execPath, [new URL('../dist/frontier.cjs', import.meta.url).pathname, ...args], { encoding: 'utf8' });

function replaceBetween(name, marker, generated) {
  const file = new URL(name, docs);
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(`<!-- ${marker}:begin`);
  const end = text.indexOf(`<!-- ${marker}:end -->`);
  if (begin < 0 || end < 0) throw new Error(`docs/${name} has no ${marker}:begin/${marker}:end markers`);
  const head = text.slice(0, text.indexOf('\n', begin) + 1);
  // Prettier would re-align a table; the generated copy is kept as generated.
  writeFileSync(
    file,
    `${head}<!-- prettier-ignore-start -->\n\n${generated.trim()}\n\n<!-- prettier-ignore-end -->\n${text.slice(end)}`,
  );
  console.log(`docs/${name}: ${marker} updated`);
}

replaceBetween('review.md', 'rules', frontier('rules', '--format', 'markdown'));
const openapi = frontier('schema', 'openapi');
writeFileSync(new URL('openapi.json', docs), openapi);
console.log('docs/openapi.json: written');
replaceBetween('api.md', 'endpoints', endpointsTable(JSON.parse(openapi)));
replaceBetween('architecture.md', 'layers', layersTable());
