import { describe, expect, it } from 'vitest';
import { canaryRow } from '../../src/matrix/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { splitCanary } from '../../src/ci/plan.js';
import type { ChangelogMatrix } from '../../src/changelog/index.js';

const single = (isl: number, conc: number, extra: Record<string, unknown> = {}): MatrixRow =>
  ({
    image: 'i',
    model: 'm',
    'model-prefix': 'p',
    precision: 'fp8',
    framework: 'sim',
    runner: 'h100',
    isl,
    osl: 1024,
    tp: 1,
    conc,
    'run-eval': false,
    ...extra,
  }) as unknown as MatrixRow;
const multi = (conc: number[]): MatrixRow =>
  ({ ...single(1024, 0), conc, prefill: { tp: 1 }, decode: { tp: 1 } }) as unknown as MatrixRow;

describe('the canary (InferenceX canary-select)', () => {
  it('is the lowest-concurrency single-node throughput row, 1k1k before 8k1k on a tie', () => {
    const a = single(8192, 4);
    const b = single(1024, 4);
    const c = single(1024, 8);
    expect(canaryRow([a, c, b])).toBe(b);
    expect(canaryRow([single(8192, 2), b])).toEqual(single(8192, 2));
    const first = single(1024, 4, { tp: 2 });
    expect(canaryRow([first, single(1024, 4)])).toBe(first);
  });

  it('is never an eval row, a multi-node row or an agentic row', () => {
    const evalRow = single(1024, 1, { 'run-eval': true });
    const agentic = single(1024, 1, { 'scenario-type': 'agentic-coding' });
    expect(canaryRow([evalRow, multi([1]), agentic])).toBeUndefined();
    const plain = single(1024, 64);
    expect(canaryRow([evalRow, multi([1]), agentic, plain])).toBe(plain);
  });

  it('takes other shapes only when there is no 1k1k or 8k1k candidate (rows InferenceX would not run)', () => {
    const short = single(256, 1);
    expect(canaryRow([short])).toBe(short);
    expect(canaryRow([short, single(8192, 64)])).toEqual(single(8192, 64));
  });

  it('is split off the sweep: once, from the list that holds it', () => {
    const canary = single(1024, 1);
    const sweep = {
      single_node: { '1k1k': [single(1024, 2), canary], '8k1k': [single(8192, 1)] },
      multi_node: { '1k1k': [multi([1, 2])] },
      evals: [],
      agentic_evals: [],
      multinode_evals: [],
      multinode_agentic_evals: [],
      changelog_metadata: { base_ref: 'a', head_ref: 'b', entries: [] },
    } as unknown as ChangelogMatrix;
    const split = splitCanary(sweep);
    expect(split.canary).toBe(canary);
    expect(split.remaining.single_node['1k1k']).toEqual([single(1024, 2)]);
    expect(split.remaining.single_node['8k1k']).toHaveLength(1);
    expect(split.remaining.multi_node).toBe(sweep.multi_node);
    expect(splitCanary({ ...sweep, single_node: {} }).canary).toBeUndefined();
  });
});
