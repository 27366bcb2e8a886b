import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of npm run lint, without type declarations
import { checkDependencies } from '../../scripts/check-deps.mjs';
import { REPO } from '../helpers.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'frontier-deps-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the dependency check of npm run lint', () => {
  it('passes on this repository', () => {
    expect(checkDependencies(REPO)).toEqual([]);
  });

  it('names each file of a new cycle, type-only imports included', () => {
    const root = tree({
      'src/store/db.ts': "import type { Step } from './migrations.js';\nexport type Db = { steps: Step[] };\n",
      'src/store/migrations.ts': "import type { Db } from './db.js';\nexport type Step = (db: Db) => void;\n",
      'src/store/queries.ts': "import type { Db } from './db.js';\nexport const q = (db: Db) => db;\n",
    });
    expect(checkDependencies(root)).toEqual([
      'import cycle: src/store/db.ts → src/store/migrations.ts → src/store/db.ts (move what they share into a module that imports none of them)',
    ]);
  });

  it('names the file:line of an import against the layering, and what the folder may import', () => {
    const root = tree({
      'src/catalog/rules.ts':
        "import { x } from './load.js';\nimport { summary } from '../matrix/summary.js';\nexport const y = x + summary;\n",
      'src/catalog/load.ts': 'export const x = 1;\n',
      'src/matrix/summary.ts': "import { x } from '../catalog/load.js';\nexport const summary = x;\n",
      'web/src/page.tsx': "import { summary } from '../../src/matrix/summary.js';\nexport const p = summary;\n",
      'src/cli/main.ts':
        "import { summary } from '../matrix/summary.js';\nimport { x } from '../catalog/load.js';\nexport const m = summary + x;\n",
    });
    expect(checkDependencies(root)).toEqual([
      'src/catalog/rules.ts:2: imports src/matrix/summary.ts, but catalog may import only util, pycompat (the layering in docs/architecture.md)',
      'web/src/page.tsx:1: imports src/matrix/summary.ts, but web may import only contract (the layering in docs/architecture.md)',
    ]);
  });

  it('asks for a new folder to be placed in the layering', () => {
    const root = tree({
      'src/power/sample.ts': "import { x } from '../util/x.js';\nexport const s = x;\n",
      'src/util/x.ts': 'export const x = 1;\n',
    });
    expect(checkDependencies(root)).toEqual([
      'src/power/: a folder the layering does not know: add it to LAYERS in scripts/check-deps.mjs',
    ]);
  });
});
