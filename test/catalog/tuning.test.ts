import { describe, expect, it } from 'vitest';
import { formatProblem, loadMasterConfigs, loadRunners } from '../../src/catalog/index.js';
import type { Problem } from '../../src/catalog/index.js';
import { generateFullSweep, generateTestConfig } from '../../src/matrix/index.js';
import type { MatrixRow, MultiNodeRow, SingleNodeRow } from '../../src/matrix/index.js';
import { tempFiles } from '../helpers.js';

const RUNNERS_YAML = `labels:
  h200: [h200-x_0]
  b200: [b200-x_0]
  h200-multinode: [h200-multinode-x_0]
`;

async function load(text: string) {
  const dir = tempFiles({ 'configs/t-master.yaml': text, 'configs/runners.yaml': RUNNERS_YAML });
  const loaded = await loadMasterConfigs(['configs/t-master.yaml'], { baseDir: dir });
  const runners = await loadRunners('configs/runners.yaml', { baseDir: dir });
  return { catalog: loaded.value, problems: loaded.problems, runners: runners.value! };
}

const markedLine = (text: string): number => text.split('\n').findIndex((l) => l.includes('# <-')) + 1;

/** Exactly one error, on the marked line, at `path`, with a hint. */
async function expectOne(text: string, path: string, message: RegExp): Promise<Problem> {
  const problems = (await load(text)).problems.filter((p) => p.severity === 'error');
  expect(problems.map(formatProblem)).toHaveLength(1);
  const p = problems[0]!;
  expect(p).toMatchObject({ key: 'k', path, line: markedLine(text), file: 'configs/t-master.yaml' });
  expect(p.message).toMatch(message);
  expect(p.hint ?? '').not.toBe('');
  return p;
}

const single = (tuning: string, entryTuning = ''): string => `k:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: vllm
  runner: h200
  multinode: false
${tuning}
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - tp: 8
            conc-start: 4
            conc-end: 64
${entryTuning}
`;

const disagg = (tuning: string): string => `k:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: dynamo-vllm
  runner: h200-multinode
  multinode: true
  disagg: true
  kv-p2p-transfer: nixl
${tuning}
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - prefill: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
            decode: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
            conc-list: [8, 16]
`;

describe('engine-tuning: validation (file:line, key, fix)', () => {
  it('accepts a valid block: no problems', async () => {
    const text = single(`  engine-tuning:
    - args: { --max-num-seqs: 256, --enable-chunked-prefill: true }
      env: { VLLM_USE_DEEP_GEMM: 1 }
      remove: [--kv-cache-dtype]
    - when: { conc: { min: 32 }, gpu: [h200, b200], dp-attn: false }
      args: { --max-num-seqs: 512 }`);
    expect((await load(text)).problems.map(formatProblem)).toEqual([]);
  });

  it('an unknown condition key: its line, the allowed keys', async () => {
    const p = await expectOne(
      single(`  engine-tuning:
    - when: { concurrency: 4 } # <-
      args: { --max-num-seqs: 256 }`),
      'engine-tuning[0].when.concurrency',
      /unknown field "concurrency"/,
    );
    expect(p.hint).toMatch(/conc, isl, osl, tp, ep, dp-attn, runner, gpu/);
  });

  it('a misspelt rule key suggests the right one', async () => {
    const p = await expectOne(
      single(`  engine-tuning:
    - remvoe: [--x] # <-`),
      'engine-tuning[0].remvoe',
      /unknown field/,
    );
    expect(p.hint).toBe('did you mean "remove"?');
  });

  it('a flag that is not a flag, a false arg value, a bad env name', async () => {
    await expectOne(
      single(`  engine-tuning:
    - remove: [max-num-seqs] # <-`),
      'engine-tuning[0].remove[0]',
      /expected an engine flag/,
    );
    await expectOne(
      single(`  engine-tuning:
    - args:
        --enforce-eager: false # <-`),
      'engine-tuning[0].args.--enforce-eager',
      /expected a value .*true for a flag without a value/,
    );
    await expectOne(
      single(`  engine-tuning:
    - env:
        1BAD: x # <-`),
      'engine-tuning[0].env.1BAD',
      /"1BAD" is not a valid key here: expected an environment variable name/,
    );
  });

  it('a condition range must be a range', async () => {
    const p = await expectOne(
      single(`  engine-tuning:
    - when:
        conc: { from: 4 } # <-
      args: { --max-num-seqs: 8 }`),
      'engine-tuning[0].when.conc.from',
      /unknown field "from"/,
    );
    expect(p.hint).toBe('allowed fields: min, max');
    await expectOne(
      single(`  engine-tuning:
    - when:
        conc: four # <-`),
      'engine-tuning[0].when.conc',
      /expected an integer, a list of integers or a range/,
    );
  });

  it('a condition that matches no row of its scope: the values the rows have', async () => {
    const p = await expectOne(
      single(
        '',
        `            engine-tuning:
              - when: { conc: 3, tp: 8 } # <-
                args: { --max-num-seqs: 8 }`,
      ),
      'scenarios.fixed-seq-len[0].search-space[0].engine-tuning[0].when',
      /matches no row of this search-space entry/,
    );
    expect(p.hint).toMatch(/conc 4, 8, 16, 32, 64; isl\/osl 1024\/1024; tp 8; ep 1; dp-attn false; gpu h200/);
    await expectOne(
      single(`  engine-tuning:
    - when: { gpu: b200 } # <-
      env: { X: 1 }`),
      'engine-tuning[0].when',
      /matches no row of the entry/,
    );
  });

  it('prefill/decode settings need a disaggregated entry', async () => {
    await expectOne(
      single(`  engine-tuning:
    - prefill: { args: { --x: 1 } } # <-`),
      'engine-tuning[0].prefill',
      /prefill settings need a disaggregated entry/,
    );
  });

  it('a multinode entry cannot tune by conc, tp, ep or dp-attn', async () => {
    const p = await expectOne(
      disagg(`  engine-tuning:
    - when: { conc: 8 } # <-
      args: { --x: 1 }`),
      'engine-tuning[0].when.conc',
      /cannot tune by conc/,
    );
    expect(p.hint).toMatch(/split the entry/);
  });
});

describe('engine-tuning: matrix rows', () => {
  const sweep = async (text: string): Promise<MatrixRow[]> => {
    const { catalog, problems, runners } = await load(text);
    expect(problems.map(formatProblem)).toEqual([]);
    return generateFullSweep(catalog.entries, runners);
  };

  it('rows of an entry without tuning have no engine-tuning field at all', async () => {
    const rows = await sweep(single(''));
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(Object.keys(row)).not.toContain('engine-tuning');
  });

  it('every matching rule applies in order: entry rules, then the search-space entry rules; later ones win', async () => {
    const rows = (await sweep(
      single(
        `  engine-tuning:
    - args: { --max-num-seqs: 256, --enable-chunked-prefill: true }
      env: { A: 1, B: x }
    - when: { conc: { min: 32 } }
      args: { --max-num-seqs: 512 }
      remove: [--enable-chunked-prefill, --kv-cache-dtype]
      env: { B: y }`,
        `            engine-tuning:
              - when: { conc: [64] }
                args: { --kv-cache-dtype: auto }`,
      ),
    )) as SingleNodeRow[];
    const byConc = new Map(rows.map((r) => [r.conc, r['engine-tuning']]));
    expect(byConc.get(4)).toEqual({
      args: { '--max-num-seqs': '256', '--enable-chunked-prefill': true },
      env: { A: '1', B: 'x' },
    });
    expect(byConc.get(32)).toEqual({
      args: { '--max-num-seqs': '512' },
      env: { A: '1', B: 'y' },
      remove: ['--enable-chunked-prefill', '--kv-cache-dtype'],
    });
    // A later rule setting a removed flag brings it back.
    expect(byConc.get(64)).toEqual({
      args: { '--max-num-seqs': '512', '--kv-cache-dtype': 'auto' },
      env: { A: '1', B: 'y' },
      remove: ['--enable-chunked-prefill'],
    });
    // The field comes last: every other key keeps the reference's order.
    expect(Object.keys(rows[0]!).at(-1)).toBe('engine-tuning');
  });

  it('rows no rule matches carry nothing', async () => {
    const rows = (await sweep(
      single(`  engine-tuning:
    - when: { conc: { max: 8 } }
      args: { --max-num-seqs: 8 }`),
    )) as SingleNodeRow[];
    expect(rows.map((r) => r['engine-tuning'] !== undefined)).toEqual([true, true, false, false, false]);
  });

  it('runner and gpu conditions see the runner the row gets (--runner-node-filter picks nodes)', async () => {
    const { catalog, runners } = await load(
      single(`  engine-tuning:
    - when: { runner: h200-x_0 }
      env: { NODE: picked }
    - when: { gpu: h200 }
      env: { GPU: h200 }`),
    );
    const label = generateTestConfig(catalog.entries, runners, { configKeys: ['k'], conc: [4] })[0] as SingleNodeRow;
    expect(label['engine-tuning']).toEqual({ env: { GPU: 'h200' } });
    const node = generateTestConfig(catalog.entries, runners, { configKeys: ['k'], conc: [4], runnerNodeFilter: 'x_0' });
    expect((node[0] as SingleNodeRow)['engine-tuning']).toEqual({ env: { NODE: 'picked', GPU: 'h200' } });
  });

  it('a disaggregated row has each role resolved: common settings, then the role, rule by rule', async () => {
    const rows = (await sweep(
      disagg(`  engine-tuning:
    - args: { --max-num-seqs: 64 }
      env: { BOTH: 1 }
      prefill: { args: { --max-num-seqs: 16 }, remove: [--enable-expert-parallel] }
    - when: { isl: 1024 }
      decode: { env: { DECODE: 1 } }`),
    )) as MultiNodeRow[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!['engine-tuning']).toEqual({
      prefill: { args: { '--max-num-seqs': '16' }, env: { BOTH: '1' }, remove: ['--enable-expert-parallel'] },
      decode: { args: { '--max-num-seqs': '64' }, env: { BOTH: '1', DECODE: '1' } },
    });
  });
});
