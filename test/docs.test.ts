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

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** `MAX_…` constants that bound no input: a verdict's threshold, a model fit's cut, the sampler's own gap. */
const NOT_INPUT_LIMITS = new Set(['MAX_FAILURE_RATE', 'MAX_LATENCY_MS', 'MAX_SAMPLE_GAP_MS']);

describe('docs/limits.md', () => {
  const doc = readFileSync(join(REPO, 'docs/limits.md'), 'utf8');
  const rows = doc
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) => l.split('|').map((c) => c.trim()))
    .map((cells) => ({ limit: cells[2]!, name: /`([A-Z][A-Z0-9_]*)(?:\.(\w+))?` in `(src\/[^`]+\.ts)`/.exec(cells[3] ?? '') }))
    .filter((r) => r.name !== null);

  it('states every named limit with the value the code has', async () => {
    expect(rows.length).toBeGreaterThan(40);
    for (const { limit, name } of rows) {
      const [, constant, field, file] = name!;
      const module = (await import(join(REPO, file!))) as Record<string, unknown>;
      const value = field ? (module[constant!] as Record<string, unknown>)[field] : module[constant!];
      const stated = Number(/\d[\d,]*(?:\.\d+)?/.exec(limit)?.[0].replace(/,/g, ''));
      expect(stated, `${constant}${field ? `.${field}` : ''} in ${file}`).toBe(value);
    }
  });

  it('lists every exported MAX_… constant of src/ that bounds an input', () => {
    const listed = new Set(rows.map((r) => r.name![1]));
    const exported = execFileSync('git', ['grep', '-h', '-o', '^export const MAX_[A-Z0-9_]*', '--', 'src'], {
      cwd: REPO,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace('export const ', ''));
    expect(exported.filter((c) => !listed.has(c) && !NOT_INPUT_LIMITS.has(c))).toEqual([]);
  });

  it('links to headings that exist', () => {
    for (const [, file, hash] of doc.matchAll(/\]\(([a-z-]+\.md)#([^)]+)\)/g)) {
      const headings = readFileSync(join(REPO, 'docs', file!), 'utf8').match(/^#+ .*$/gm) ?? [];
      expect(
        headings.map((h) => anchor(h.replace(/^#+ /, ''))),
        `${file}#${hash}`,
      ).toContain(hash);
    }
  });
});
