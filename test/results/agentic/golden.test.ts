import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agenticAggregateJson,
  agenticContextFromEnv,
  agenticSummaryLines,
  aggregateAgenticResultDir,
} from '../../../src/results/index.js';

// Aggregates the reference process_agentic_result.py wrote for these artifacts (scripts/agentic-golden.py).
const GOLDEN = join(import.meta.dirname, '..', '..', 'fixtures', 'agentic', 'aggregation', 'golden');
const cases = readdirSync(GOLDEN).sort();

describe('agentic aggregate: byte-identical to the reference', () => {
  it('has the four recorded cases', () => {
    expect(cases).toEqual(['atom', 'dynamo-multinode', 'sglang-hicache', 'vllm-offload']);
  });
  for (const name of cases) {
    it(name, () => {
      const folder = join(GOLDEN, name);
      const env = JSON.parse(readFileSync(join(folder, 'env.json'), 'utf8')) as Record<string, string>;
      const context = agenticContextFromEnv({ ...env, HF_HUB_CACHE: join(folder, env.HF_HUB_CACHE!) });
      const agg = aggregateAgenticResultDir(join(folder, env.RESULT_DIR!), context);
      expect(agenticAggregateJson(agg)).toBe(readFileSync(join(folder, 'expected.json'), 'utf8'));
      const lines = agenticSummaryLines(agg, 'out/agg_golden.json');
      expect(lines[0]).toBe('Saved aggregated agentic result to out/agg_golden.json');
      expect(lines.slice(1).join('\n') + '\n').toBe(readFileSync(join(folder, 'expected.stdout'), 'utf8'));
    });
  }
});
