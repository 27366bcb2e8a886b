import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, formatRules } from '../../src/review/index.js';
import { REPO } from '../helpers.js';

describe('docs/review.md', () => {
  it('carries the rules table as `frontier rules --format markdown` prints it (npm run docs rewrites it)', () => {
    const text = readFileSync(join(REPO, 'docs/review.md'), 'utf8');
    const section = text.slice(text.indexOf('<!-- prettier-ignore-start -->'), text.indexOf('<!-- prettier-ignore-end -->'));
    expect(section.trim()).toBe(`<!-- prettier-ignore-start -->\n\n${formatRules(RULES, 'markdown').trim()}`);
    expect(section).toContain('`launcher/unpinned-toolchain`');
  });
});
