import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDramBudgets, checkRunnerLabels, formatProblem, loadMasterConfigs, loadRunners } from '../../src/catalog/index.js';
import type { Problem } from '../../src/catalog/index.js';
import { BUNDLED_INFERENCEX, tempFiles } from '../helpers.js';

const NVIDIA = join(BUNDLED_INFERENCEX, 'configs/nvidia-master.yaml');
const AMD = join(BUNDLED_INFERENCEX, 'configs/amd-master.yaml');
const RUNNERS = join(BUNDLED_INFERENCEX, 'configs/runners.yaml');

const RUNNERS_YAML = `labels:
  h100: [h100-x_0, h100-x_1]
  cluster:h100-x: [h100-x_0, h100-x_1]
hardware:
  cluster:h100-x:
    available-cpu-dram-mib: 2000000
    gpus-per-node: 8
`;

/** Load one master-config file written from `text` (plus the small runners file above). */
async function load(text: string): Promise<Problem[]> {
  const dir = tempFiles({ 'configs/test-master.yaml': text, 'configs/runners.yaml': RUNNERS_YAML });
  const loaded = await loadMasterConfigs(['configs/test-master.yaml'], { baseDir: dir });
  const runners = await loadRunners('configs/runners.yaml', { baseDir: dir });
  return [...loaded.problems, ...checkDramBudgets(loaded.value, runners.value!)];
}

/** The 1-based line of the line marked `# <-` in the YAML text. */
function markedLine(text: string): number {
  const index = text.split('\n').findIndex((l) => l.includes('# <-'));
  if (index === -1) throw new Error('no # <- marker');
  return index + 1;
}

/** Exactly one error, from `rule`, on the marked line, for config key `key` and field `path`. */
async function expectOne(
  text: string,
  expected: { rule: string; key: string; path: string; message?: RegExp },
): Promise<Problem> {
  const problems = (await load(text)).filter((p) => p.severity === 'error');
  expect(problems.map(formatProblem)).toHaveLength(1);
  const [p] = problems as [Problem];
  expect(p).toMatchObject({
    rule: expected.rule,
    key: expected.key,
    path: expected.path,
    line: markedLine(text),
    file: 'configs/test-master.yaml',
  });
  if (expected.message) expect(p.message).toMatch(expected.message);
  expect(p.hint ?? '', 'every problem says how to fix it').not.toBe('');
  return p;
}

const single = (searchSpace: string, extra = ''): string => `sn-key:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: vllm
  runner: h100
  multinode: false${extra}
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
${searchSpace}`;

const agentic = (searchSpace: string, extra = '', runner = 'cluster:h100-x', multinode = false): string => `ag-key:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: vllm
  runner: ${runner}
  multinode: ${multinode}${extra}
  scenarios:
    agentic-coding:
    - dram-utilization: 0.9
      search-space:
${searchSpace}`;

const multi = (searchSpace: string, extra = '\n  disagg: true\n  kv-p2p-transfer: nixl'): string => `mn-key:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: dynamo-sglang
  runner: h100
  multinode: true${extra}
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
${searchSpace}`;

const worker = (indent: string, fields = 'num-worker: 1\n  tp: 4\n  ep: 1\n  dp-attn: false'): string =>
  fields
    .split('\n')
    .map((l) => `${indent}${l.trim()}`)
    .join('\n');

describe('the InferenceX fixtures', () => {
  it('validate: 208 config keys, no errors', async () => {
    const loaded = await loadMasterConfigs([NVIDIA, AMD]);
    expect(loaded.problems.map(formatProblem)).toEqual([]);
    expect(loaded.value.entries.size).toBe(208);
    const runners = await loadRunners(RUNNERS);
    expect(runners.problems).toEqual([]);
    expect(checkDramBudgets(loaded.value, runners.value!)).toEqual([]);
  });

  it('only warn about runner labels missing from runners.yaml (known drift in the reference)', async () => {
    const loaded = await loadMasterConfigs([NVIDIA, AMD]);
    const runners = await loadRunners(RUNNERS);
    const warnings = checkRunnerLabels(loaded.value, runners.value!);
    expect(warnings.every((w) => w.severity === 'warning' && w.rule === 'runner-label')).toBe(true);
    expect([...new Set(warnings.map((w) => /"([^"]+)"/.exec(w.message)![1]))].sort()).toEqual([
      'cluster:mi325x-tw',
      'gb300-nv',
      'h200-dgxc',
    ]);
  });
});

describe('schema problems: file:line:col, key, field path, expected/got, hint', () => {
  it('a quoted number', async () => {
    const text = single('      - { tp: 4, conc-start: 1, conc-end: 8 }\n      - tp: "4" # <-\n        conc-list: [1]\n');
    const p = await expectOne(text, { rule: 'schema', key: 'sn-key', path: 'scenarios.fixed-seq-len[0].search-space[1].tp' });
    expect(p.message).toBe('expected a positive integer, got "4"');
    expect(p.hint).toBe('remove the quotes: a quoted number is a string');
    expect(p.col).toBe(13);
    expect(formatProblem(p)).toBe(
      'configs/test-master.yaml:15:13  sn-key › scenarios.fixed-seq-len[0].search-space[1].tp  expected a positive integer, got "4"\n' +
        '    hint: remove the quotes: a quoted number is a string',
    );
  });

  it('an unknown field, with the likely intended one', async () => {
    const text = single('      - tp: 4\n        conc-lst: [1, 2] # <-\n');
    const p = await expectOne(text, {
      rule: 'schema',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0].conc-lst',
    });
    expect(p.message).toBe('unknown field "conc-lst"');
    expect(p.hint).toBe('did you mean "conc-list"?');
  });

  it('a missing required field', async () => {
    const text = `k: # <-\n  image: i\n  model: m\n  model-prefix: p\n  precision: fp8\n  framework: vllm\n  multinode: false\n  scenarios: {fixed-seq-len: [{isl: 1, osl: 1, search-space: [{tp: 1, conc-list: [1]}]}]}\n`;
    const p = await expectOne(text, { rule: 'schema', key: 'k', path: 'runner' });
    expect(p.message).toBe('missing required field "runner" (a non-empty string)');
  });

  it('a wrong multinode literal and enum values', async () => {
    const problems = await load(
      single('      - { tp: 4, spec-decoding: eagle, conc-list: [1] }\n').replace('multinode: false', 'multinode: "no"'),
    );
    expect(problems.map((p) => p.message)).toEqual([
      'expected false for a single-node entry (true for multinode), got "no"',
      'expected one of "mtp", "draft_model", "none", got "eagle"',
    ]);
  });

  it('reports every problem of every entry in one run', async () => {
    const text = `${single('      - { tp: 0, conc-list: [1] }\n')}\n${single('      - { tp: 2, conc-list: [] }\n').replace('sn-key', 'other-key')}`;
    const problems = await load(text);
    expect(problems.map((p) => [p.key, p.rule])).toEqual([
      ['sn-key', 'schema'],
      ['other-key', 'conc-fields'],
    ]);
  });
});

describe('cross-field rules (reference validation.py rules 1–13)', () => {
  it('1 conc-fields: a list and a range together', () =>
    expectOne(single('      - tp: 4\n        conc-start: 1\n        conc-end: 8\n        conc-list: [1, 2] # <-\n'), {
      rule: 'conc-fields',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0].conc-list',
    }));

  it('1 conc-fields: neither a list nor a full range', () =>
    expectOne(single('      - tp: 4 # <-\n        conc-start: 1\n'), {
      rule: 'conc-fields',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0]',
      message: /missing conc-end/,
    }));

  it('1 conc-fields: start after end', () =>
    expectOne(single('      - tp: 4\n        conc-start: 64 # <-\n        conc-end: 8\n'), {
      rule: 'conc-fields',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0].conc-start',
      message: /conc-start \(64\) must be <= conc-end \(8\)/,
    }));

  it('1 conc-fields: non-positive values', async () => {
    await expectOne(single('      - tp: 4\n        conc-list: [4, 0, 8] # <-\n'), {
      rule: 'conc-fields',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0].conc-list[1]',
    });
    await expectOne(single('      - tp: 4\n        conc-start: 0 # <-\n        conc-end: 8\n'), {
      rule: 'conc-fields',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0].conc-start',
    });
  });

  it('2 tp-dcp: tp not divisible by dcp-size', async () => {
    await expectOne(single('      - tp: 6\n        dcp-size: 4 # <-\n        conc-list: [1]\n'), {
      rule: 'tp-dcp',
      key: 'sn-key',
      path: 'scenarios.fixed-seq-len[0].search-space[0].dcp-size',
    });
    await expectOne(
      multi(
        `      - conc-list: [8]\n        prefill:\n${worker('          ', 'num-worker: 1\ntp: 4\nep: 1\ndp-attn: false\ndcp-size: 3 # <-')}\n        decode:\n${worker('          ')}\n`,
      ),
      { rule: 'tp-dcp', key: 'mn-key', path: 'scenarios.fixed-seq-len[0].search-space[0].prefill.dcp-size' },
    );
  });

  it('3 worker-hardware-pair: hardware on one role only', () =>
    expectOne(
      multi(
        `      - conc-list: [8]\n        prefill:\n${worker('          ', 'num-worker: 1\ntp: 4\nep: 1\ndp-attn: false\nhardware: b200')}\n        decode: # <-\n${worker('          ')}\n`,
      ),
      { rule: 'worker-hardware-pair', key: 'mn-key', path: 'scenarios.fixed-seq-len[0].search-space[0].decode' },
    ));

  it('4 kv-offload-fields: a backend without offloading, offloading without a backend', async () => {
    await expectOne(
      agentic(
        '      - tp: 8\n        kv-offloading: none\n        kv-offload-backend: { name: hicache } # <-\n        conc-list: [1]\n',
      ),
      {
        rule: 'kv-offload-fields',
        key: 'ag-key',
        path: 'scenarios.agentic-coding[0].search-space[0].kv-offload-backend',
      },
    );
    await expectOne(agentic('      - tp: 8\n        kv-offloading: dram # <-\n        conc-list: [1]\n'), {
      rule: 'kv-offload-fields',
      key: 'ag-key',
      path: 'scenarios.agentic-coding[0].search-space[0].kv-offloading',
    });
  });

  it('5 agentic-topology: both shapes, a missing kv-offloading, a shape that contradicts multinode', async () => {
    await expectOne(
      agentic(
        `      - tp: 8 # <-\n        kv-offloading: none\n        conc-list: [1]\n        prefill:\n${worker('          ')}\n`,
      ),
      {
        rule: 'agentic-topology',
        key: 'ag-key',
        path: 'scenarios.agentic-coding[0].search-space[0]',
      },
    );
    await expectOne(agentic('      - tp: 8 # <-\n        conc-list: [1]\n'), {
      rule: 'agentic-topology',
      key: 'ag-key',
      path: 'scenarios.agentic-coding[0].search-space[0]',
      message: /must set kv-offloading/,
    });
    await expectOne(
      agentic('      - tp: 8 # <-\n        kv-offloading: none\n        conc-list: [1]\n', '', 'cluster:h100-x', true),
      {
        rule: 'agentic-topology',
        key: 'ag-key',
        path: 'scenarios.agentic-coding[0].search-space[0].tp',
      },
    );
    await expectOne(
      agentic(
        `      - conc-list: [1]\n        pp: 2 # <-\n        prefill:\n${worker('          ')}\n        decode:\n${worker('          ')}\n`,
        '',
        'cluster:h100-x',
        true,
      ),
      { rule: 'agentic-topology', key: 'ag-key', path: 'scenarios.agentic-coding[0].search-space[0].pp' },
    );
  });

  it('6 dram-utilization: dram offloading without a utilization', () =>
    expectOne(
      agentic(
        '      - tp: 8\n        kv-offloading: dram # <-\n        kv-offload-backend: { name: vllm-simple }\n        conc-list: [1]\n',
      ).replace('    - dram-utilization: 0.9\n      search-space:', '    - search-space:'),
      { rule: 'dram-utilization', key: 'ag-key', path: 'scenarios.agentic-coding[0].search-space[0].kv-offloading' },
    ));

  it('7 at-least-one-scenario', () =>
    expectOne(
      'k:\n  image: i\n  model: m\n  model-prefix: p\n  precision: fp8\n  framework: vllm\n  runner: h100\n  multinode: false\n  scenarios: # <-\n    fixed-seq-len: []\n',
      { rule: 'at-least-one-scenario', key: 'k', path: 'scenarios' },
    ));

  it('8 agentic-runner-cluster: agentic scenarios on a plain runner label', () =>
    expectOne(agentic('      - { tp: 8, kv-offloading: none, conc-list: [1] }\n', '', 'h100 # <-'), {
      rule: 'agentic-runner-cluster',
      key: 'ag-key',
      path: 'runner',
    }));

  it('9 component-scope: router at both levels', () =>
    expectOne(
      single(
        '      - tp: 4\n        router: { name: vllm-router, version: "0.1" } # <-\n        conc-list: [1]\n',
        '\n  router: { name: vllm-router, version: "0.1" }',
      ),
      {
        rule: 'component-scope',
        key: 'sn-key',
        path: 'scenarios.fixed-seq-len[0].search-space[0].router',
      },
    ));

  it('9 component-scope: kv-p2p-transfer on a single-node config', () =>
    expectOne(
      agentic('      - tp: 8\n        kv-offloading: none\n        kv-p2p-transfer: nixl # <-\n        conc-list: [1]\n'),
      {
        rule: 'component-scope',
        key: 'ag-key',
        path: 'scenarios.agentic-coding[0].search-space[0].kv-p2p-transfer',
      },
    ));

  it('9 component-scope (and 11): disagg without kv-p2p-transfer', () =>
    expectOne(
      multi(
        `      - conc-list: [8] # <-\n        prefill:\n${worker('          ')}\n        decode:\n${worker('          ')}\n`,
        '\n  disagg: true',
      ),
      {
        rule: 'component-scope',
        key: 'mn-key',
        path: 'scenarios.fixed-seq-len[0].search-space[0]',
        message: /disagg: true requires kv-p2p-transfer/,
      },
    ));

  it('10 component versions are not image references', async () => {
    const p = await expectOne(
      single('      - tp: 4\n        conc-list: [1]\n', '\n  router: { name: dynamo-router, version: "image:nvcr.io/x" } # <-'),
      {
        rule: 'schema',
        key: 'sn-key',
        path: 'router.version',
      },
    );
    expect(p.message).toMatch(/not an "image:" reference/);
  });

  it('12 a file that is not a mapping', async () => {
    const problems = await load('- a\n- b\n');
    expect(problems).toMatchObject([
      { rule: 'file', line: 1, message: "Config file 'configs/test-master.yaml' must contain a dictionary" },
    ]);
  });

  it("12 '*' in a config key", () =>
    expectOne(single('      - { tp: 4, conc-list: [1] }\n').replace('sn-key:', 'sn-*: # <-'), {
      rule: 'config-key',
      key: 'sn-*',
      path: '',
    }));

  it('12 a key defined in two files, and a missing file', async () => {
    const dir = tempFiles({
      'a.yaml': single('      - { tp: 4, conc-list: [1] }\n'),
      'b.yaml': `# other\n${single('      - { tp: 8, conc-list: [1] }\n')}`,
    });
    const loaded = await loadMasterConfigs(['a.yaml', 'b.yaml', 'missing.yaml'], { baseDir: dir });
    expect(loaded.problems).toMatchObject([
      {
        rule: 'duplicate-config-key',
        file: 'b.yaml',
        line: 2,
        message: "Duplicate configuration keys found in 'b.yaml': sn-key",
      },
      { rule: 'file', file: 'missing.yaml', line: 0, message: "Input file 'missing.yaml' does not exist." },
    ]);
    expect(loaded.problems[0]!.hint).toContain('first defined at a.yaml:1');
  });

  it('13 runners.yaml: labels must map to non-empty lists; hardware facts are positive integers; nothing else', async () => {
    const dir = tempFiles({
      'flat.yaml': 'h100: [a, b]\n',
      'bad.yaml':
        'labels:\n  h100: []\n  h200: [ok]\nhardware:\n  h200: { available-cpu-dram-mib: 0, gpus-per-node: 8 }\nextra: 1\n',
    });
    const flat = await loadRunners('flat.yaml', { baseDir: dir });
    expect(flat.problems).toMatchObject([{ rule: 'runners', message: 'Runner config must define a labels mapping' }]);
    const bad = await loadRunners('bad.yaml', { baseDir: dir });
    expect(bad.problems.map((p) => [p.line, p.path, p.message])).toEqual([
      [2, 'labels.h100', 'expected a non-empty list of runner names, got a list'],
      [5, 'hardware.h200.available-cpu-dram-mib', 'expected a positive integer, got 0'],
      [6, 'extra', 'unknown field "extra"'],
    ]);
  });

  it('dram-budget: a DRAM-offload entry needs runner hardware facts and a topology that fits the node', async () => {
    await expectOne(
      agentic(
        '      - tp: 16 # <-\n        kv-offloading: dram\n        kv-offload-backend: { name: vllm-simple }\n        conc-list: [1]\n',
      ),
      { rule: 'dram-budget', key: 'ag-key', path: 'scenarios.agentic-coding[0].search-space[0].tp' },
    );
    await expectOne(
      agentic(
        '      - tp: 8\n        kv-offloading: dram # <-\n        kv-offload-backend: { name: vllm-simple }\n        conc-list: [1]\n',
        '',
        'cluster:h100-y',
      ),
      { rule: 'dram-budget', key: 'ag-key', path: 'scenarios.agentic-coding[0].search-space[0].kv-offloading' },
    );
  });

  it('additional-settings are KEY=VALUE', () =>
    expectOne(
      multi(
        `      - conc-list: [8]\n        prefill:\n${worker('          ', 'num-worker: 1\ntp: 4\nep: 1\ndp-attn: false\nadditional-settings: ["recipes/x.yaml"] # <-')}\n        decode:\n${worker('          ')}\n`,
      ),
      {
        rule: 'additional-settings',
        key: 'mn-key',
        path: 'scenarios.fixed-seq-len[0].search-space[0].prefill.additional-settings[0]',
      },
    ));
});
