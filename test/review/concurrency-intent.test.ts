import { beforeAll, describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { lint } from '../../src/review/index.js';
import type { Finding } from '../../src/review/index.js';
import { edit, copyTree } from './edit-tree.js';
import { inferencexTree } from '../helpers.js';

const NVIDIA = 'configs/nvidia-master.yaml';
const GB200 = 'dsv4-fp4-gb200-dynamo-sglang-mtp';
const GB300 = 'dsv4-fp4-gb300-dynamo-sglang-mtp';
/** The GB300 entry that runs 8x32x64 and publishes only 64, and its comment. */
const GB300_COMMENT = '      # Recipe runs concurrencies=8x32x64; matrix tracks the max.\n';
const GB300_CONC = '        conc-list: [64]\n';

let base: string;
beforeAll(() => {
  base = inferencexTree();
});

async function concurrencyMismatches(dir: string): Promise<Finding[]> {
  const report = await lint(dirSnapshot(dir));
  return report.findings.filter((f) => f.rule === 'recipe/concurrency-mismatch');
}

describe('recipe/concurrency-mismatch: a conc-list that deliberately tracks the recipe maximum', () => {
  it('accepts the real entries whose comment says "matrix tracks the max"', async () => {
    expect(await concurrencyMismatches(base)).toEqual([]);
  });

  it('reports the entry again once its comment is gone', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, GB300_COMMENT, '');
    const findings = await concurrencyMismatches(head);
    expect(findings.map((f) => [f.key, f.path, f.message])).toEqual([
      [
        GB300,
        'scenarios.fixed-seq-len[0].search-space[1].conc-list',
        'the entry sweeps concurrencies [64] but the recipe runs [8, 32, 64]',
      ],
    ]);
  });

  it('reports a list that is not the maximum, even with the comment', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, GB300_CONC, '        conc-list: [32]\n', GB300_COMMENT);
    const findings = await concurrencyMismatches(head);
    expect(findings.map((f) => [f.key, f.message])).toEqual([
      [GB300, "the entry's comment says it tracks the recipe's maximum concurrency (64) but it sweeps [32]"],
    ]);
    expect(findings[0]!.hint).toContain('set conc-list to [64]');
  });

  it('reports the whole recipe list under the comment: it claims only the maximum', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, GB300_CONC, '        conc-list: [8, 32, 64]\n', GB300_COMMENT);
    expect((await concurrencyMismatches(head)).map((f) => f.key)).toEqual([GB300]);
  });

  it('accepts the intent as a trailing comment on the conc-list line', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, GB300_CONC, '        conc-list: [64]  # Tracks the maximum of 8x32x64\n', GB300_COMMENT);
    edit(head, NVIDIA, GB300_COMMENT, '');
    expect(await concurrencyMismatches(head)).toEqual([]);
  });

  it('does not take an unrelated comment for the intent', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, GB300_COMMENT, '      # Low-latency, not max throughput: tracks the max-throughput flags.\n');
    edit(head, NVIDIA, 'matrix tracks the max.', 'max throughput.', `${GB200}:`);
    const findings = await concurrencyMismatches(head);
    expect(findings.map((f) => [f.key, f.message])).toEqual([
      [GB200, 'the entry sweeps concurrencies [128] but the recipe runs [32, 64, 128]'],
      [GB300, 'the entry sweeps concurrencies [64] but the recipe runs [8, 32, 64]'],
    ]);
  });

  it('does not take a comment separated from the entry by a blank line', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, GB300_COMMENT, `${GB300_COMMENT}\n`);
    expect((await concurrencyMismatches(head)).map((f) => f.key)).toEqual([GB300]);
  });
});
