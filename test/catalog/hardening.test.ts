import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMasterConfigs, loadRunners } from '../../src/catalog/index.js';
import { MAX_NESTING, firstInvalidUtf8, parseYaml } from '../../src/catalog/yaml/index.js';
import { parseFull } from '../../src/catalog/yaml/full.js';
import { loadRecipe } from '../../src/recipes/index.js';
import { parseClusterProfile, readClusterProfiles } from '../../src/clusters/index.js';
import { MAX_YAML_EXPANDED_NODES } from '../../src/util/yaml-input.js';
import { INFERENCEX, runCli, tempFiles } from '../helpers.js';

describe('nesting limit', () => {
  const flow = (n: number): string => `a: ${'['.repeat(n)}${']'.repeat(n)}\n`;
  const flowMap = (n: number): string => `a: ${'{b: '.repeat(n)}1${'}'.repeat(n)}\n`;
  const compact = (n: number): string => `a:\n${'- '.repeat(n)}x\n`;
  const block = (n: number): string => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n';

  it.each([
    ['flow sequences', flow(3000)],
    ['flow mappings', flowMap(3000)],
    ['compact block sequences', compact(3000)],
  ])('3,000 levels of %s are a problem with a position, not a crash', async (_, text) => {
    const doc = await parseYaml(text, 'deep.yaml');
    expect(doc.problems).toHaveLength(1);
    expect(doc.problems[0]).toMatchObject({
      file: 'deep.yaml',
      rule: 'yaml',
      line: expect.any(Number) as number,
      message: `the YAML nests deeper than ${MAX_NESTING} levels`,
    });
    expect(doc.problems[0]!.line).toBeGreaterThan(0);
  });

  it('reports the first container past the limit, in the fast and the full parser alike', async () => {
    // The root mapping is level 1; `[` number k is level k + 1.
    for (const text of [flow(150), block(150)]) {
      const doc = await parseYaml(text, 'deep.yaml');
      expect(doc.problems.map((p) => p.message)).toEqual([`the YAML nests deeper than ${MAX_NESTING} levels`]);
      expect(parseFull(text, 'deep.yaml').problems).toEqual(doc.problems);
    }
    expect((await parseYaml(flow(150), 'deep.yaml')).problems[0]).toMatchObject({ line: 1, col: 3 + MAX_NESTING });
    expect((await parseYaml(block(150), 'deep.yaml')).problems[0]).toMatchObject({ line: MAX_NESTING + 1, col: MAX_NESTING + 1 });
  });

  it('takes nesting up to the limit on the fast path', async () => {
    for (const text of [flow(MAX_NESTING - 1), block(MAX_NESTING - 1)]) {
      const doc = await parseYaml(text, 'ok.yaml');
      expect(doc.problems).toEqual([]);
      expect(doc.parser).toBe('fast');
    }
  });
});

describe('duplicate keys stay on the fast path', () => {
  it.each([
    ['a block mapping', 'a: 1\nb:\n  c: 1\n  d: [1, 2]\n  c:\n    e: 2\nf: 3\n'],
    ['a flow mapping', 'a: {x: 1, y: 2, x: 3}\n'],
    ['a quoted key', 'a:\n  "c": 1\n  c: 2\n'],
    ['several', 'a: 1\na: 2\nb:\n- c: 1\n  c: 2\n'],
  ])('in %s: the full parser’s problems, value and positions', async (_, text) => {
    const doc = await parseYaml(text, 'dup.yaml');
    const full = parseFull(text, 'dup.yaml');
    expect(doc.parser).toBe('fast');
    expect(doc.problems.length).toBeGreaterThan(0);
    expect(doc.problems).toEqual(full.problems);
    expect(doc.value).toEqual(full.value);
    expect(Object.keys(doc.value as object)).toEqual(Object.keys(full.value as object));
    for (const path of [['a'], ['b', 'c'], ['a', 'x'], ['b', 0, 'c']]) {
      const fromFull = parseFull(text, 'dup.yaml');
      const located = { value: fromFull.value, info: fromFull.info };
      const { locateIn } = await import('../../src/catalog/yaml/document.js');
      expect(doc.locate(path), `${text} ${path.join('.')}`).toEqual(locateIn(located, path));
    }
  });
});

describe('encoding', () => {
  it('rejects bytes that are not UTF-8, with the line and column', async () => {
    const doc = await parseYaml(Buffer.from('a: 1\nb: "caf\xe9"\n', 'latin1'), 'latin.yaml');
    expect(doc.problems).toEqual([
      {
        severity: 'error',
        rule: 'yaml',
        file: 'latin.yaml',
        line: 2,
        col: 8,
        message: 'the file is not valid UTF-8 (byte 0xe9)',
        hint: 'save the file as UTF-8',
      },
    ]);
    expect(doc.value).toBeNull();
  });

  it('finds the first invalid byte after a real U+FFFD', () => {
    const raw = Buffer.concat([Buffer.from('a: \ufffd\nb: '), Buffer.from([0xff]), Buffer.from('\n')]);
    expect(firstInvalidUtf8(raw)).toBe(raw.indexOf(0xff));
    expect(firstInvalidUtf8(Buffer.from('a: \ufffd\n'))).toBe(-1);
  });

  it.each([
    ['NUL', 'a: 1\nb: x\0y\n', 2, 5, 'U+0000 (NUL)'],
    ['a C0 control', 'a: 1\n  \x1b: 2\n', 2, 3, 'U+001B'],
    ['DEL', 'a: \x7f\n', 1, 4, 'U+007F'],
    ['a C1 control', 'a: "\x90"\n', 1, 5, 'U+0090'],
  ])('rejects %s with the line and column', async (_, text, line, col, name) => {
    const doc = await parseYaml(text, 'c.yaml');
    expect(doc.problems).toMatchObject([
      { file: 'c.yaml', line, col, message: `the file contains the control character ${name}` },
    ]);
  });

  it('still takes tabs and CRLF line ends (YAML allows them)', async () => {
    const doc = await parseYaml('a: "x\ty"\r\nb: 2\r\n', 'ok.yaml');
    expect(doc.problems).toEqual([]);
    expect(doc.value).toEqual({ a: 'x\ty', b: 2 });
  });

  it('is checked in every file the catalog loads: master configs, runners, recipes, cluster profiles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'frontier-encoding-'));
    const latin = Buffer.from('x:\n  image: "caf\xe9"\n', 'latin1');
    writeFileSync(join(dir, 'bad-master.yaml'), latin);
    writeFileSync(join(dir, 'runners.yaml'), 'labels:\n  h100: [h100_0\0]\n');
    writeFileSync(join(dir, 'local.yaml'), latin);
    const masters = await loadMasterConfigs(['bad-master.yaml'], { baseDir: dir });
    expect(masters.problems).toMatchObject([
      { file: 'bad-master.yaml', line: 2, col: 14, message: 'the file is not valid UTF-8 (byte 0xe9)' },
    ]);
    const runners = await loadRunners('runners.yaml', { baseDir: dir });
    expect(runners.problems).toMatchObject([{ line: 2, message: 'the file contains the control character U+0000 (NUL)' }]);
    const recipe = await loadRecipe('r.yaml', latin);
    expect(recipe.problems).toMatchObject([
      { line: 2, rule: 'recipe/schema', message: 'the file is not valid UTF-8 (byte 0xe9)' },
    ]);
    const [profile] = await readClusterProfiles(['local.yaml'], { baseDir: dir });
    expect(profile!.problems).toMatchObject([
      { file: 'local.yaml', line: 2, message: 'the file is not valid UTF-8 (byte 0xe9)' },
    ]);
  });
});

describe('YAML aliases', () => {
  const entry = `k:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: vllm
  runner: h100
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - {tp: 8, conc-list: [1], ep: &one 1}
`;
  const load = async (text: string) =>
    (await loadMasterConfigs(['m-master.yaml'], { readFile: () => Promise.resolve(Buffer.from(text)) })).problems;

  it('an alias bomb (a billion laughs) is a problem at the alias that passes the limit, not a walk of a billion values', async () => {
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) levels.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    const problems = await load(`${entry}${levels.join('\n')}\n`);
    expect(problems).toMatchObject([
      {
        file: 'm-master.yaml',
        rule: 'yaml',
        line: 20,
        message: `with its aliases expanded the YAML stands for more than ${MAX_YAML_EXPANDED_NODES.toLocaleString('en-US')} values (*l4 and the aliases before it)`,
      },
    ]);
  });

  it('an alias inside its own anchor is a problem, not a structure that contains itself', async () => {
    const problems = await load(entry.replace('{tp: 8,', '&self {x: [*self], tp: 8,'));
    expect(problems).toMatchObject([
      { line: 14, message: '*self is inside the node its anchor names (a structure that contains itself)' },
    ]);
  });

  it('resolves 50,000 aliases in one pass (resolving each by a walk of the document took minutes)', async () => {
    const problems = await load(`${entry}x: [${Array.from({ length: 50_000 }, () => '*one').join(', ')}]\n`);
    expect(problems).toMatchObject([{ line: 15, message: 'expected a mapping (a master-config entry), got a list' }]);
  });

  it('frontier matrix and validate print the problem at its line and exit 1, without a stack', () => {
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) levels.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    const dir = tempFiles({ 'configs/bomb-master.yaml': `${entry}${levels.join('\n')}\n` });
    const expected = `configs/bomb-master.yaml:20:45  with its aliases expanded the YAML stands for more than 1,000,000 values (*l4 and the aliases before it)`;
    const runners = join(INFERENCEX, 'configs/runners.yaml');
    for (const args of [
      ['matrix', 'full-sweep', '--config-files', 'configs/bomb-master.yaml', '--runner-config', runners],
      ['validate', 'configs/bomb-master.yaml'],
    ]) {
      const r = runCli(args, { cwd: dir });
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toContain(expected);
      expect(r.stdout + r.stderr).not.toMatch(/ReferenceError|\n\s+at /);
    }
  });

  it('still takes anchors, aliases and merge keys as PyYAML builds them', async () => {
    const doc = await parseYaml('a: &a {x: 1}\nb: *a\nc: {<<: *a, y: 2}\n', 'ok.yaml');
    expect(doc.problems).toEqual([]);
    expect(doc.value).toEqual({ a: { x: 1 }, b: { x: 1 }, c: { x: 1, y: 2 } });
  });
});

describe('values that become file names', () => {
  const entry = (key: string, field = '', value = ''): string =>
    `${key}:
  image: img:1
  model: org/model
  model-prefix: ${field === 'model-prefix' ? value : 'm'}
  precision: ${field === 'precision' ? value : 'fp8'}
  framework: ${field === 'framework' ? value : 'vllm'}
  runner: h100
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - {tp: 8, conc-list: [1]}
`;
  const load = async (text: string) =>
    (await loadMasterConfigs(['m.yaml'], { readFile: () => Promise.resolve(Buffer.from(text)) })).problems;

  it.each([
    ['model-prefix', '../../etc', 4],
    ['model-prefix', 'a/b', 4],
    ['precision', '.hidden', 5],
    ['framework', '"vllm x"', 6],
  ])('rejects %s %s at its line', async (field, value, line) => {
    const problems = await load(entry('k', field, value));
    expect(problems).toMatchObject([{ file: 'm.yaml', line, key: 'k', path: field }]);
    expect(problems[0]!.message).toMatch(/letters, digits, "\.", "_" and "-", starting with a letter or digit/);
  });

  it('rejects a config key that cannot be a file name', async () => {
    const problems = await load(entry('../evil'));
    expect(problems).toMatchObject([
      { file: 'm.yaml', line: 1, rule: 'config-key', message: "config key '../evil' cannot be part of a file name" },
    ]);
  });

  it('rejects a runner name that cannot be a file name', async () => {
    const text = 'labels:\n  h100:\n  - h100_0\n  - ../h100_1\n';
    const runners = await loadRunners('runners.yaml', { readFile: () => Promise.resolve(Buffer.from(text)) });
    expect(runners.problems).toMatchObject([{ file: 'runners.yaml', line: 4, path: 'labels.h100[1]' }]);
  });

  it('accepts every config key, model-prefix, precision, framework and runner name of the InferenceX configs', async () => {
    const files = ['configs/nvidia-master.yaml', 'configs/amd-master.yaml'];
    const masters = await loadMasterConfigs(files, { baseDir: INFERENCEX });
    expect(masters.problems.filter((p) => /file name/.test(p.message))).toEqual([]);
    expect(masters.value.entries.size).toBeGreaterThan(200);
    expect((await loadRunners('configs/runners.yaml', { baseDir: INFERENCEX })).problems).toEqual([]);
  });
});

describe('num-worker', () => {
  const multinode = (prefill: number, decode: number, disagg: boolean): string => `mn:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: dynamo-sglang
  runner: h100
  multinode: true
  disagg: ${disagg}${disagg ? '\n  kv-p2p-transfer: nixl' : ''}
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - conc-list: [8]
        prefill:
          num-worker: ${prefill}
          tp: 4
          ep: 1
          dp-attn: false
        decode:
          num-worker: ${decode}
          tp: 4
          ep: 1
          dp-attn: false
`;
  const load = async (text: string) =>
    (await loadMasterConfigs(['m.yaml'], { readFile: () => Promise.resolve(Buffer.from(text)) })).problems;

  it('rejects prefill num-worker 0 (no worker would serve), aggregated or disaggregated, at its line', async () => {
    for (const [decode, disagg] of [
      [0, false],
      [1, true],
      [0, true],
    ] as const) {
      const problems = await load(multinode(0, decode, disagg));
      expect(problems, `decode ${decode}, disagg ${disagg}`).toMatchObject([
        {
          file: 'm.yaml',
          line: disagg ? 18 : 17,
          path: 'scenarios.fixed-seq-len[0].search-space[0].prefill.num-worker',
          message: 'expected a positive integer, got 0',
        },
      ]);
    }
  });

  it('takes decode num-worker 0, as InferenceX writes it (aggregated recipes, and some disagg entries)', async () => {
    expect(await load(multinode(1, 0, false))).toEqual([]);
    expect(await load(multinode(2, 0, true))).toEqual([]);
  });
});

describe('cluster profile engine options', () => {
  const profile = (speed: string): string =>
    `scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h100\nengines:\n  sim:\n    speed: ${speed}\n`;

  it.each(['0', '-2', '0.0001', '"fast"', 'true'])('rejects sim speed %s at its line with the allowed range', async (speed) => {
    const read = await parseClusterProfile('clusters/test.yaml', profile(speed));
    expect(read.problems).toMatchObject([
      {
        file: 'clusters/test.yaml',
        line: 7,
        path: 'engines.sim.speed',
        rule: 'engine-option',
        message: expect.stringMatching(/is not a number ≥ 0\.001/) as string,
      },
    ]);
    expect(read.problems[0]!.hint).toMatch(/a number ≥ 0\.001/);
  });

  it.each(['10', '0.5', '"100"'])('takes sim speed %s', async (speed) => {
    expect((await parseClusterProfile('clusters/test.yaml', profile(speed))).problems).toEqual([]);
  });
});
