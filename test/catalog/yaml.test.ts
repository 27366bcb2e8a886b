import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { YamlTimestamp, parseFast, parseYaml, resolvePlain } from '../../src/catalog/yaml/index.js';
import type { Located, NodeInfo } from '../../src/catalog/yaml/index.js';
import { parseFull } from '../../src/catalog/yaml/full.js';
import { BUNDLED_INFERENCEX, REPO, yamlCorpus } from '../helpers.js';

const CONFIG_FILES = ['configs/nvidia-master.yaml', 'configs/amd-master.yaml', 'configs/runners.yaml'];

function allFiles(): Record<string, string> {
  const files = yamlCorpus();
  for (const f of CONFIG_FILES) files[f] = readFileSync(join(BUNDLED_INFERENCEX, f), 'utf8');
  return files;
}

/** JSON view of a parsed value, tagging what JSON cannot hold the way scripts/pyyaml-golden.py does. */
function tagged(value: unknown): unknown {
  if (value instanceof YamlTimestamp) return { $timestamp: value.text };
  if (typeof value === 'number' && !Number.isFinite(value)) return { $float: String(value) };
  if (Array.isArray(value)) return value.map(tagged);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tagged(v)]));
  return value;
}

describe('plain scalars resolve as PyYAML (YAML 1.1) resolves them', () => {
  // Expected values were taken from PyYAML 6.0.3 yaml.safe_load.
  const table: [string, unknown][] = [
    ['yes', true],
    ['No', false],
    ['on', true],
    ['OFF', false],
    ['y', 'y'],
    ['n', 'n'],
    ['true', true],
    ['False', false],
    ['010', 8],
    ['0o10', '0o10'],
    ['0x1F', 31],
    ['0b101', 5],
    ['1_000', 1000],
    ['1:30', 90],
    ['-1:30', -90],
    ['190:20:30', 685230],
    ['12:60', '12:60'],
    ['+12', 12],
    ['1e3', '1e3'],
    ['1.5e+3', 1500],
    ['1.0', 1],
    ['.5', 0.5],
    ['+.5', '+.5'],
    ['1.', 1],
    ['0.1_5', 0.15],
    ['.inf', Infinity],
    ['-.Inf', -Infinity],
    ['~', null],
    ['null', null],
    ['NULL', null],
    ['nULL', 'nULL'],
    ['', null],
    ['0', 0],
    ['-0', 0],
    ['00', 0],
    ['09', '09'],
    ['1.2.3', '1.2.3'],
  ];
  for (const [text, expected] of table) {
    it(`${JSON.stringify(text)} → ${String(expected)}`, () => {
      expect(resolvePlain(text)).toEqual(expected);
    });
  }
  it('.NaN → NaN', () => expect(resolvePlain('.NaN')).toBeNaN());
  it('dates are timestamps, not strings', () => {
    expect(resolvePlain('2024-01-15')).toBeInstanceOf(YamlTimestamp);
    expect(resolvePlain('2024-1-5 10:20:30')).toBeInstanceOf(YamlTimestamp);
  });
});

describe('snippets outside the fast subset match PyYAML', () => {
  // Expected values from PyYAML 6.0.3 yaml.safe_load.
  const snippets: [string, string, unknown][] = [
    [
      'merge keys (earlier maps win, merged keys first)',
      'base: &b\n  x: 1\n  y: 2\nother: &o\n  y: 20\n  z: 30\nm:\n  <<: [*b, *o]\n  x: 10\n  w: 0\n',
      { base: { x: 1, y: 2 }, other: { y: 20, z: 30 }, m: { y: 2, z: 30, x: 10, w: 0 } },
    ],
    [
      'block scalars',
      'a: |\n  line1\n  line2\nb: >-\n  folded\n  text\nc: end\n',
      { a: 'line1\nline2\n', b: 'folded text', c: 'end' },
    ],
    ['multi-line plain', 'a: this is\n  a long plain\n  scalar\nb: 2\n', { a: 'this is a long plain scalar', b: 2 }],
    ['flow across lines', 'a: [1, 2,\n  3]\nb: {x: 1,\n  y: [a, b]}\n', { a: [1, 2, 3], b: { x: 1, y: ['a', 'b'] } }],
    [
      'escapes',
      'a: "tab\\there \\u00e9 \\x41"\nb: \'it\'\'s\'\nc: "multi\n  line"\n',
      { a: 'tab\there é A', b: "it's", c: 'multi line' },
    ],
    ['aliases', 'a: &x [1, 2]\nb: *x\n', { a: [1, 2], b: [1, 2] }],
    ['nested compact sequences', '- - 1\n  - 2\n- - 3\n', [[1, 2], [3]]],
    ['explicit tags', 'a: !!str 123\nb: !!int "42"\nc: !!float "1"\nd: !!bool "yes"\n', { a: '123', b: 42, c: 1, d: true }],
    ['document start', '---\na: 1\n', { a: 1 }],
    ['CRLF line ends', 'a: 1\r\nb: [x, y]\r\n', { a: 1, b: ['x', 'y'] }],
  ];
  for (const [name, text, expected] of snippets) {
    it(name, async () => {
      const doc = await parseYaml(text, 'snippet.yaml');
      expect(doc.problems).toEqual([]);
      expect(doc.value).toEqual(expected);
      expect(doc.parser).toBe('full');
    });
  }

  it('aliases share one value, as PyYAML does', async () => {
    const doc = await parseYaml('a: &x {k: 1}\nb: *x\n', 'a.yaml');
    const value = doc.value as { a: object; b: object };
    expect(value.b).toBe(value.a);
  });
});

describe('the fast parser', () => {
  const accepted: [string, string, unknown][] = [
    [
      'comments and odd indentation',
      '# top\na: 1 # c\n\n  # indented comment\nb:\n  # before\n  - x #c\n  -   y\n',
      { a: 1, b: ['x', 'y'] },
    ],
    ['indentless sequences', 'a:\n- 1\n- k: v\n  k2: v2\nb: 2\n', { a: [1, { k: 'v', k2: 'v2' }], b: 2 }],
    ['empty values', 'a:\nb: ~\nc: []\nd: {}\ne: ""\n', { a: null, b: null, c: [], d: {}, e: '' }],
    [
      'keys and values with colons, hashes, quotes',
      '"quoted key": 1\n\'single\': 2\nkey with spaces: 3\nurl: http://x.y/z\nimg: ghcr.io#org/img:tag\ncolon:in:key: 4\n',
      { 'quoted key': 1, single: 2, 'key with spaces': 3, url: 'http://x.y/z', img: 'ghcr.io#org/img:tag', 'colon:in:key': 4 },
    ],
    [
      'flow mappings in sequences',
      '- { tp: 8, ep: 8, conc-list: [1, 4] }\n- {name: "x y", v: on}\n',
      [
        { tp: 8, ep: 8, 'conc-list': [1, 4] },
        { name: 'x y', v: true },
      ],
    ],
  ];
  for (const [name, text, expected] of accepted) {
    it(`accepts ${name} (same result as PyYAML)`, () => {
      expect(parseFast(text)?.value).toEqual(expected);
      expect(parseFull(text, 'x.yaml').value).toEqual(expected);
    });
  }

  const declined: [string, string][] = [
    ['anchors', 'a: &x 1\nb: *x\n'],
    ['block scalars', 'a: |\n  x\n'],
    ['multi-line plain scalars', 'a: b\n  c\n'],
    ['flow collections across lines', 'a: [1,\n 2]\n'],
    ['tabs', 'a:\t1\n'],
    ['nesting deeper than the limit', `a: ${'['.repeat(120)}${']'.repeat(120)}\n`],
    ['non-string keys', 'on: 1\n'],
    ['merge keys', 'a:\n  <<: {x: 1}\n'],
    ['tags', 'a: !!str 1\n'],
    ['document markers', '---\na: 1\n'],
    ['mapping values inside a scalar', 'a: b: c\n'],
    ['wrong indentation', 'a:\n    b: 1\n  c: 2\n'],
  ];
  for (const [name, text] of declined) {
    it(`leaves ${name} to the full parser`, () => {
      expect(parseFast(text)).toBeUndefined();
    });
  }

  it('takes the InferenceX master configs and runners.yaml (they must stay on the fast path)', () => {
    for (const f of CONFIG_FILES) expect(parseFast(readFileSync(join(BUNDLED_INFERENCEX, f), 'utf8')), f).toBeDefined();
  });
});

/** Compare every container's recorded positions between two parses of the same text. */
function samePositions(a: Located, b: Located, va: unknown = a.value, vb: unknown = b.value, path = ''): void {
  if (typeof va !== 'object' || va === null) return;
  const ia = a.info.get(va) as NodeInfo | undefined;
  const ib = b.info.get(vb as object) as NodeInfo | undefined;
  expect(ia, `positions at ${path || '<root>'}`).toBeDefined();
  expect(ia!.pos, `start of ${path || '<root>'}`).toEqual(ib!.pos);
  expect([...ia!.valuePos], `value positions in ${path || '<root>'}`).toEqual([...ib!.valuePos]);
  expect([...(ia!.keyPos ?? [])], `key positions in ${path || '<root>'}`).toEqual([...(ib!.keyPos ?? [])]);
  for (const [k, v] of Object.entries(va)) samePositions(a, b, v, (vb as Record<string, unknown>)[k], `${path}/${k}`);
}

describe('the YAML corpus (master configs, runners, perf-changelog, 469 srt-slurm recipes)', () => {
  const files = allFiles();
  const golden = JSON.parse(
    gunzipSync(readFileSync(join(REPO, 'test/fixtures/yaml/pyyaml-golden.json.gz'))).toString('utf8'),
  ) as Record<string, { value?: unknown; duplicates?: string[] }>;

  it('is complete', () => {
    expect(Object.keys(files).sort()).toEqual(Object.keys(golden).sort());
    expect(Object.keys(files).length).toBeGreaterThan(470);
  });

  it('parses every file to what PyYAML safe_load returns; duplicate keys are errors', async () => {
    for (const [path, text] of Object.entries(files)) {
      const doc = await parseYaml(text, path);
      const expected = golden[path]!;
      if (expected.duplicates) {
        const reported = doc.problems.map((p) => /duplicate key "([^"]+)"/.exec(p.message)?.[1]).filter(Boolean);
        expect([...new Set(reported)].sort(), path).toEqual(expected.duplicates);
        continue;
      }
      expect(doc.problems, path).toEqual([]);
      expect(tagged(doc.value), path).toEqual(expected.value);
    }
  });

  it('gives the same values and positions from the fast and the full parser', () => {
    let fast = 0;
    for (const [path, text] of Object.entries(files)) {
      const quick = parseFast(text, { positions: true });
      if (!quick) continue;
      fast++;
      const full = parseFull(text, path);
      expect(quick.value, path).toEqual(full.value);
      samePositions(quick, full);
    }
    // Most of the corpus is in the fast subset; the rest (anchors, block scalars) exercises the fallback.
    expect(fast).toBeGreaterThan(400);
  });
});

describe('YAML errors', () => {
  it('reports duplicate keys with both lines', async () => {
    const doc = await parseYaml('a: 1\nb:\n  c: 1\n  c: 2\n', 'dup.yaml');
    expect(doc.problems).toMatchObject([
      { file: 'dup.yaml', line: 4, col: 3, message: 'duplicate key "c" (first defined at line 3)' },
    ]);
  });

  it('reports keys that YAML 1.1 reads as booleans or numbers', async () => {
    const doc = await parseYaml('on: 1\n1024: x\n', 'k.yaml');
    expect(doc.problems.map((p) => [p.line, p.message, p.hint])).toEqual([
      [1, 'key on is read as the boolean true by YAML 1.1 (PyYAML), not as a string', 'quote it: "on"'],
      [2, 'key 1024 is read as the number 1024 by YAML 1.1 (PyYAML), not as a string', 'quote it: "1024"'],
    ]);
  });

  it('reports tab indentation and bad structure with a position', async () => {
    const tabs = await parseYaml('a:\n\tb: 1\n', 't.yaml');
    expect(tabs.problems[0]).toMatchObject({ file: 't.yaml', line: 2, rule: 'yaml' });
    const multi = await parseYaml('a: 1\n---\nb: 2\n', 'm.yaml');
    expect(multi.problems[0]).toMatchObject({ line: 2, hint: 'keep one document per file (remove the extra ---)' });
  });

  it('rejects tags PyYAML safe_load cannot construct', async () => {
    const doc = await parseYaml('a: !python/object x\n', 'tag.yaml');
    expect(doc.problems[0]).toMatchObject({ line: 1, message: 'unsupported tag !python/object' });
  });
});
