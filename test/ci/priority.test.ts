// Every case of InferenceX's utils/test_ci_priority.py, same inputs and expected values, against
// the policy file InferenceX ships (test/fixtures/ci/priority/ci-priority.yaml).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ZERO, compareDecimal } from '../../src/pycompat/decimal.js';
import type { Decimal } from '../../src/pycompat/decimal.js';
import {
  DEFAULT_CONTEXT,
  annotateMatrix,
  calculatePriority,
  formatScore,
  queueToken,
  supportedCriteria,
} from '../../src/ci/priority.js';
import type { PriorityContext } from '../../src/ci/priority.js';
import { loadPriorityPolicy } from '../../src/ci/priority-policy.js';
import type { PriorityPolicy } from '../../src/ci/priority-policy.js';
import { REPO } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/priority');
let POLICY: PriorityPolicy;
beforeAll(async () => {
  POLICY = await loadPriorityPolicy(join(FIXTURES, 'ci-priority.yaml'));
});

const context = (c: Partial<PriorityContext>): PriorityContext => ({ ...DEFAULT_CONTEXT, ...c });
/** `Decimal("6.000")` compared by what the reference compares: the quantized value. */
const score = (d: Decimal): string => formatScore(d);

describe('ci priority (the reference test suite)', () => {
  it('combined high-value signals outrank a baseline job', () => {
    const baseline = { runner: 'h100', framework: 'trt', 'model-prefix': 'other', precision: 'fp8', 'spec-decoding': 'none' };
    const highValue = {
      ...baseline,
      runner: 'b200-multinode',
      framework: 'sglang',
      'model-prefix': 'dsv4',
      precision: 'fp4',
      'spec-decoding': 'mtp',
      'scenario-type': 'agentic-coding',
      prefill: { hardware: 'b200' },
      decode: { hardware: 'b200' },
    };
    expect(score(calculatePriority(highValue, POLICY))).toBe('6.000');
    expect(score(calculatePriority(baseline, POLICY))).toBe('1.000');
  });

  it('main-branch (push) jobs receive an automatic boost', () => {
    expect(score(calculatePriority({ runner: 'h100', framework: 'trt' }, POLICY, context({ eventName: 'push' })))).toBe('3.000');
  });

  it('the patchwork score uses half-up rounding', () => {
    const policy: PriorityPolicy = {
      ...POLICY,
      labels: { ...POLICY.labels, patchwork: { ...POLICY.labels.patchwork, score: 0.7225 } },
    };
    const entry = { runner: 'h100', framework: 'trt' };
    expect(score(calculatePriority(entry, policy, context({ labels: new Set(['ci-patchwork']) })))).toBe('0.723');
  });

  it('a skip-queue request keeps the numeric priority', () => {
    const entry = { runner: 'h100', framework: 'sglang', precision: 'fp4' };
    const { annotated } = annotateMatrix([entry], POLICY, context({ labels: new Set(['skip_queue']), prNumber: 2124 }));
    expect(score(calculatePriority(entry, POLICY, context({ labels: new Set(['skip_queue']) })))).toBe('2.250');
    const job = (annotated as Record<string, unknown>[])[0]!;
    expect(job.priority).toBe('2.250');
    expect(job['skip-queue-pr']).toBe(2124);
  });

  it('a patchwork label forces the bottom priority unless waived', () => {
    const entry = { runner: 'b200', framework: 'sglang', precision: 'fp4' };
    const at = (c: Partial<PriorityContext>): Decimal => calculatePriority(entry, POLICY, context(c));
    expect(score(at({ labels: new Set(['ci-patchwork']) }))).toBe('0.000');
    expect(compareDecimal(at({ labels: new Set(['ci-patchwork', 'ci-patchwork-waived']) }), ZERO)).toBe(1);
    expect(score(at({ criteria: new Set(['patchwork']) }))).toBe('0.000');
    expect(compareDecimal(at({ labels: new Set(['ci-patchwork-waived']), criteria: new Set(['patchwork']) }), ZERO)).toBe(1);
  });

  it('priority criteria drive every configured adjustment', () => {
    const criteria = new Set(['multi-node', 'agentic', 'fp4', 'mtp', 'vllm', 'dsr1']);
    const equivalentEntry = {
      prefill: {},
      'scenario-type': 'agentic-coding',
      precision: 'fp4',
      'spec-decoding': 'mtp',
      framework: 'vllm',
      'model-prefix': 'dsr1',
    };
    const entry = { ...equivalentEntry };
    expect(score(calculatePriority(entry, POLICY, context({ criteria })))).toBe(
      score(calculatePriority(equivalentEntry, POLICY)),
    );
    expect(score(calculatePriority({ runner: 'h100', framework: 'trt' }, POLICY, context({ criteria })))).toBe('1.000');
  });

  it('the checklist label applies alongside classifier criteria', () => {
    const c = context({ labels: new Set(['ci-checklist-complete']), criteria: new Set() });
    expect(score(calculatePriority({ runner: 'h100', framework: 'trt' }, POLICY, c))).toBe('1.250');
  });

  it('criteria reject unknown values and allow mixed jobs', () => {
    const entry = { runner: 'h100', framework: 'vllm' };
    expect(() => calculatePriority(entry, POLICY, context({ criteria: new Set(['unknown']) }))).toThrow(
      "Unknown CI priority criteria: ['unknown']",
    );
    expect(score(calculatePriority(entry, POLICY, context({ criteria: new Set(['vllm', 'sglang']) })))).toBe('1.500');
  });

  it('priority labels do not override the automatic score', () => {
    const labels = new Set(['ci-priority:p0', 'ci-priority:p4.5', 'ci-priority:p1000000']);
    expect(score(calculatePriority({ runner: 'h100', framework: 'trt' }, POLICY, context({ labels })))).toBe('1.000');
  });

  it('annotation only touches runnable matrix entries', () => {
    const payload = {
      single_node: {
        '1k1k': [{ runner: 'b200', framework: 'sglang', 'model-prefix': 'qwen3.5', precision: 'fp4', 'spec-decoding': 'mtp' }],
      },
      changelog_metadata: { runner: 'not-a-job' },
    };
    const { annotated } = annotateMatrix(payload, POLICY);
    const a = annotated as { single_node: { '1k1k': Record<string, unknown>[] }; changelog_metadata: Record<string, unknown> };
    expect(a.single_node['1k1k'][0]!.priority).toBe('3.750');
    expect(a.single_node['1k1k'][0]!['queue-token']).toHaveLength(32);
    expect(a.changelog_metadata).not.toHaveProperty('priority');
    expect(payload.single_node['1k1k'][0]).not.toHaveProperty('priority');
    expect(payload.single_node['1k1k'][0]).not.toHaveProperty('queue-token');
  });

  it("the classifier's schema (run-sweep.yml) matches the policy's vocabulary", () => {
    // The --json-schema run-sweep.yml's classify step gives claude-code-action, copied from the workflow.
    const schema = JSON.parse(readFileSync(join(FIXTURES, 'classifier-schema.json'), 'utf8')) as {
      properties: { criteria: { items: { enum: string[] } } };
    };
    expect(new Set(schema.properties.criteria.items.enum)).toEqual(supportedCriteria(POLICY));
  });

  it('queue tokens change between run attempts', () => {
    const entry = { runner: 'b200', framework: 'sglang' };
    expect(queueToken(entry, '123:1', ['0'])).not.toBe(queueToken(entry, '123:2', ['0']));
  });
});
