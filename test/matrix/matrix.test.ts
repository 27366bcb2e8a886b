import { describe, expect, it } from 'vitest';
import { concRange } from '../../src/catalog/index.js';
import type { AgenticCodingConfig, AgenticSearchSpaceEntry, RunnerConfig } from '../../src/catalog/index.js';
import { topologyLabel } from '../../src/contract/index.js';
import {
  MatrixError,
  agenticDramOffloadGb,
  applyEvalSelection,
  expandConfigKeys,
  fnmatchRegExp,
  formatSummary,
  rowTopology,
  summarizeMatrix,
} from '../../src/matrix/index.js';
import type { MatrixRow, MultiNodeRow, SingleNodeRow } from '../../src/matrix/index.js';

describe('concurrency ranges', () => {
  it('multiply by the step and always end on the end value', () => {
    expect(concRange(4, 100, 2)).toEqual([4, 8, 16, 32, 64, 100]);
    expect(concRange(4, 64, 3)).toEqual([4, 12, 36, 64]);
    expect(concRange(1, 1, 2)).toEqual([1]);
    expect(concRange(8, 4, 2)).toEqual([]);
  });
});

describe('config-key globs (fnmatch)', () => {
  const keys = ['dsr1-fp4-b200-sglang', 'dsr1-fp8-b200-sglang', 'dsr1-fp8-h200-trt', 'qwen3.5-fp8-h200-sglang'];

  it('match whole keys with *, ?, [seq] and [!seq]; dots are literal', () => {
    expect(keys.filter((k) => fnmatchRegExp('dsr1-fp?-b200-*').test(k))).toEqual(keys.slice(0, 2));
    expect(keys.filter((k) => fnmatchRegExp('*-[bh]200-trt').test(k))).toEqual(['dsr1-fp8-h200-trt']);
    expect(keys.filter((k) => fnmatchRegExp('dsr1-fp[!4]-*').test(k))).toEqual(keys.slice(1, 3));
    expect(fnmatchRegExp('qwen3?5-*').test('qwen3.5-fp8-h200-sglang')).toBe(true);
    expect(fnmatchRegExp('qwen3.5*').test('qwen3x5-fp8')).toBe(false);
  });

  it('resolve in catalog order, de-duplicated, and fail on a missing key or an empty glob', () => {
    expect(expandConfigKeys(['dsr1-fp8-*', 'dsr1-fp4-b200-sglang', 'dsr1-fp8-h200-trt'], keys)).toEqual([
      'dsr1-fp8-b200-sglang',
      'dsr1-fp8-h200-trt',
      'dsr1-fp4-b200-sglang',
    ]);
    expect(() => expandConfigKeys(['nope'], keys)).toThrow(
      /^Config key\(s\) not found: nope\.\nAvailable keys: dsr1-fp4-b200-sglang, /,
    );
    expect(() => expandConfigKeys(['x*'], keys)).toThrow(MatrixError);
  });
});

describe('agentic DRAM offload budget', () => {
  const runners = (mib: number, gpn: number): RunnerConfig => ({
    labels: { 'cluster:x': ['x_0'] },
    hardware: { 'cluster:x': { 'available-cpu-dram-mib': mib, 'gpus-per-node': gpn } },
  });
  const budget = (mib: number, util: number, tp: number, gpn: number): number =>
    agenticDramOffloadGb(
      { 'dram-utilization': util, 'search-space': [] } as AgenticCodingConfig,
      { tp, 'kv-offloading': 'dram', 'kv-offload-backend': { name: 'vllm-simple' } } as AgenticSearchSpaceEntry,
      'cluster:x',
      runners(mib, gpn),
    );

  it('matches the reference Decimal arithmetic (expected values from Python)', () => {
    expect(budget(2964436, 0.95, 8, 8)).toBe(2849); // capped at 3 TB
    expect(budget(2000000, 0.9, 4, 8)).toBe(943);
    expect(budget(860160, 0.8, 4, 4)).toBe(721);
    expect(budget(1000003, 0.33, 3, 7)).toBe(148);
    expect(budget(2861022, 1, 1, 8)).toBe(374);
    expect(budget(123457, 0.07, 2, 8)).toBe(2);
  });

  it('is 0 without DRAM offloading and fails when the topology does not fit', () => {
    const none = agenticDramOffloadGb(
      { 'search-space': [] } as AgenticCodingConfig,
      { tp: 64, 'kv-offloading': 'none' } as AgenticSearchSpaceEntry,
      'cluster:missing',
      runners(1, 8),
    );
    expect(none).toBe(0);
    expect(() => budget(1000, 0.5, 16, 8)).toThrow(/requires 16 GPUs and exceeds gpus-per-node=8/);
    expect(() =>
      agenticDramOffloadGb(
        { 'dram-utilization': 0.5, 'search-space': [] } as AgenticCodingConfig,
        { tp: 8, 'kv-offloading': 'dram' } as AgenticSearchSpaceEntry,
        'cluster:missing',
        runners(1, 8),
      ),
    ).toThrow(
      "Runner 'cluster:missing' requires 'available-cpu-dram-mib' in runner hardware metadata. Available hardware keys: cluster:x",
    );
  });
});

const sn = (conc: number, tp = 8, extra: Partial<SingleNodeRow> = {}): SingleNodeRow => ({
  image: 'i',
  model: 'm',
  'model-prefix': 'p',
  precision: 'fp8',
  framework: 'vllm',
  runner: 'h100',
  isl: 8192,
  osl: 1024,
  tp,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
  conc,
  'max-model-len': 9472,
  ep: 1,
  'dp-attn': false,
  'spec-decoding': 'none',
  'exp-name': 'p_8k1k',
  disagg: false,
  'run-eval': false,
  ...extra,
});

const worker = (n: number, tp: number, ep: number, dpa: boolean) => ({
  'num-worker': n,
  tp,
  ep,
  'dp-attn': dpa,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
});

const mn = (conc: number[], decodeWorkers = 1): MultiNodeRow => ({
  image: 'i',
  model: 'm',
  'model-prefix': 'p',
  precision: 'fp4',
  framework: 'dynamo-sglang',
  runner: 'gb200',
  isl: 8192,
  osl: 1024,
  'spec-decoding': 'none',
  prefill: worker(1, 4, 4, true),
  decode: worker(decodeWorkers, 8, 8, true),
  conc,
  'max-model-len': 9472,
  'exp-name': 'p_8k1k',
  disagg: true,
  'run-eval': false,
  'kv-p2p-transfer': 'nixl',
});

describe('eval selection', () => {
  it('single-node: every TP at the highest and the median eligible conc (>= 16) of each group', () => {
    const rows = [4, 16, 32, 64, 128].flatMap((c) => [sn(c, 8), sn(c, 4)]);
    const marked = applyEvalSelection(rows, {}).filter((r) => r['run-eval']) as SingleNodeRow[];
    expect(marked.map((r) => [r.tp, r.conc])).toEqual([
      [8, 64],
      [4, 64],
      [8, 128],
      [4, 128],
    ]);
  });

  it('multinode: the row with the highest eligible conc per topology, with eval-conc', () => {
    const rows = [mn([8, 32]), mn([64, 96]), mn([4, 8], 2), mn([24, 48], 2)];
    const out = applyEvalSelection(rows, {}) as MultiNodeRow[];
    expect(out.map((r) => [r['run-eval'], r['eval-conc']])).toEqual([
      [false, undefined],
      [true, 96],
      [false, undefined],
      [true, 48],
    ]);
  });

  it('--all-evals merges a topology into one row running all its concurrencies', () => {
    const out = applyEvalSelection([mn([8, 32]), mn([64, 32])], { allEvals: true }) as MultiNodeRow[];
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ conc: [8, 32, 64], 'run-eval': true, 'eval-all-concs': true, 'eval-only': true });
    expect(out[0]).not.toHaveProperty('eval-conc');
  });

  it('--evals-only keeps only eval rows, marked eval-only', () => {
    const out = applyEvalSelection([sn(8), sn(16), sn(32), sn(64)], { evalsOnly: true });
    expect(out.map((r) => [r.conc, r['eval-only']])).toEqual([
      [32, true],
      [64, true],
    ]);
  });
});

describe('matrix summary', () => {
  it('labels topologies the way people write them', () => {
    const label = (row: MatrixRow) => topologyLabel(rowTopology(row));
    expect(label(sn(1, 8))).toBe('TP8');
    expect(label(sn(1, 8, { ep: 8 }))).toBe('TEP8');
    expect(label(sn(1, 8, { ep: 8, 'dp-attn': true }))).toBe('DEP8');
    expect(label(sn(1, 4, { pp: 2 }))).toBe('TP4PP2');
    expect(label(mn([1], 2))).toBe('1P2D DEP4/DEP8');
    expect(label({ ...mn([1]), prefill: worker(5, 1, 1, false), decode: worker(2, 8, 8, true) })).toBe('5P2D TP1/DEP8');
    expect(label({ ...mn([1]), prefill: worker(2, 16, 16, true), decode: worker(0, 16, 16, true) })).toBe('2×DEP16');
    // The catalog's data-parallel worker of 1-GPU ranks (tp 1, ep 4, dp-attn), as InferenceX's dashboard names it.
    expect(label({ ...mn([1]), prefill: worker(1, 1, 4, true), decode: worker(1, 8, 8, true) })).toBe('1P1D DPAEP4/DEP8');
  });

  it('counts rows, points and evals per group', () => {
    const rows: MatrixRow[] = applyEvalSelection([sn(16), sn(32), sn(32, 4), mn([8, 64])], {});
    const summary = summarizeMatrix(rows);
    expect(summary).toMatchObject({ rows: 4, points: 5, evalRows: 3 });
    expect(summary.byKind).toEqual({
      'single-node fixed-seq-len': 3,
      'multi-node fixed-seq-len': 1,
      'single-node agentic': 0,
      'multi-node agentic': 0,
    });
    expect(summary.groups.map((g) => [g.framework, g.rows, g.points, g.minConc, g.maxConc, g.topologies.join(',')])).toEqual([
      ['vllm', 3, 3, 16, 32, 'TP8,TP4'],
      ['dynamo-sglang', 1, 2, 8, 64, '1P1D DEP4/DEP8'],
    ]);
    const text = formatSummary(summary);
    expect(text).toContain('4 rows, 5 benchmark points, 3 eval rows');
    expect(text).toMatch(/dynamo-sglang\s+gb200\s+8192\/1024\s+1\s+2\s+8–64\s+1\s+1P1D DEP4\/DEP8/);
  });
});
