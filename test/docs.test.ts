import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/api/index.js';
import { RULES, formatRules } from '../src/review/index.js';
// @ts-expect-error: plain scripts of npm run docs, without type declarations
import { layersTable } from '../scripts/check-deps.mjs';
// @ts-expect-error: as above
import { endpointsTable } from '../scripts/openapi-table.mjs';
import { REPO } from './helpers.js';

/** The generated part of a doc, between its NAME:begin and NAME:end markers. */
function generated(doc: string, marker: string): string {
  const text = readFileSync(join(REPO, 'docs', doc), 'utf8');
  const begin = text.indexOf(`<!-- ${marker}:begin`);
  const end = text.indexOf(`<!-- ${marker}:end -->`);
  expect(begin, `docs/${doc} has its ${marker}:begin marker`).toBeGreaterThan(0);
  return text
    .slice(text.indexOf('\n', begin) + 1, end)
    .replace('<!-- prettier-ignore-start -->', '')
    .replace('<!-- prettier-ignore-end -->', '')
    .trim();
}

describe('the generated parts of docs/ are current (npm run docs rewrites them)', () => {
  it('docs/review.md carries the rules table as `frontier rules --format markdown` prints it', () => {
    expect(generated('review.md', 'rules')).toBe(formatRules(RULES, 'markdown').trim());
    expect(generated('review.md', 'rules')).toContain('`launcher/unpinned-toolchain`');
  });

  it('docs/openapi.json is the API’s document, and docs/api.md lists its endpoints', async () => {
    const committed = JSON.parse(readFileSync(join(REPO, 'docs/openapi.json'), 'utf8')) as { info: { version: string } };
    const current = (await openApiDocument()) as { info: { version: string } };
    expect({ ...current, info: { ...current.info, version: committed.info.version } }).toEqual(committed);
    expect(generated('api.md', 'endpoints')).toBe(endpointsTable(current));
    expect(generated('api.md', 'endpoints')).toContain('`POST /api/v1/ingest`');
  });

  it('docs/architecture.md carries the folder layering that npm run lint enforces', () => {
    expect(generated('architecture.md', 'layers')).toBe(layersTable());
  });
});

describe('committed files', () => {
  it('hold no path of the machine they were written on', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' })
      .split('\0')
      // This file names the paths it looks for.
      .filter((f) => f && f !== 'test/docs.test.ts' && !f.startsWith('test/fixtures/') && !/\.(png|gz|parquet|db)$/.test(f));
    const machine = [REPO, `${homedir()}/`, '/work/', '../shared'].filter((p) => p.length > 1);
    const found = files.flatMap((f) => {
      let text: string;
      try {
        text = readFileSync(join(REPO, f), 'utf8');
      } catch {
        return [];
      }
      return machine.filter((p) => text.includes(p)).map((p) => `${f}: ${p}`);
    });
    expect(found).toEqual([]);
  });
});
