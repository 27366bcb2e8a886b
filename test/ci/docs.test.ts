import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LABELS } from '../../src/ci/labels.js';
import { REPO } from '../helpers.js';

describe('docs/ci.md', () => {
  it('lists every label with its kind and effect as src/ci/labels.ts has them', () => {
    const doc = readFileSync(join(REPO, 'docs/ci.md'), 'utf8').replace(/ {2,}/g, ' ');
    for (const [name, info] of Object.entries(LABELS)) expect(doc).toContain(`| \`${name}\` | ${info.kind} | ${info.effect} |`);
  });
});
