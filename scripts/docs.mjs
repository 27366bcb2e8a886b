// Rewrites the generated parts of docs/ from the built CLI (npm run docs): the review rules table
// in docs/review.md, between its rules:begin and rules:end markers. test/review/rules-doc.test.ts
// fails when the committed copy is stale.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../docs/review.md', import.meta.url);
const table = execFileSync(
  process.execPath,
  [new URL('../dist/frontier.mjs', import.meta.url).pathname, 'rules', '--format', 'markdown'],
  {
    encoding: 'utf8',
  },
);
const text = readFileSync(file, 'utf8');
const begin = text.indexOf('<!-- rules:begin');
const end = text.indexOf('<!-- rules:end -->');
if (begin < 0 || end < 0) throw new Error('docs/review.md has no rules:begin/rules:end markers');
const head = text.slice(0, text.indexOf('\n', begin) + 1);
// Prettier would re-align the table; the generated copy is kept as generated.
writeFileSync(file, `${head}<!-- prettier-ignore-start -->\n\n${table}\n<!-- prettier-ignore-end -->\n${text.slice(end)}`);
console.log('docs/review.md: rules table updated');
