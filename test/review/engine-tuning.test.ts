import { describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { lint } from '../../src/review/index.js';
import { tempFiles } from '../helpers.js';

const config = (framework: string, remove: string): string => `k:
  image: img:1
  model: org/model
  model-prefix: m
  precision: fp8
  framework: ${framework}
  runner: h200
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - tp: 8
            conc-list: [4, 64]
            engine-tuning:
              - when: { conc: 64 }
                remove: [${remove}]
`;

async function findings(framework: string, remove: string) {
  const dir = tempFiles({
    'configs/t-master.yaml': config(framework, remove),
    'configs/runners.yaml': 'labels:\n  h200: [h200-x_0]\n',
  });
  const report = await lint(dirSnapshot(dir, 'head'));
  return report.findings.filter((f) => f.rule === 'config/engine-tuning-remove');
}

describe('review rule config/engine-tuning-remove', () => {
  it('flags a remove of a flag the adapter never renders, at its line', async () => {
    const found = await findings('vllm', '--kv-cache-dtype, --max-num-seq');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 'warning',
      key: 'k',
      line: 18,
      path: 'scenarios.fixed-seq-len[0].search-space[0].engine-tuning[0].remove[1]',
      message: 'engine-tuning removes --max-num-seq, which the vllm adapter does not render for this deployment',
    });
    expect(found[0]!.hint).toMatch(/fix the flag's spelling or drop it from remove/);
  });

  it('passes flags the adapter renders (per framework)', async () => {
    expect(await findings('vllm', '--kv-cache-dtype, --max-num-seqs')).toEqual([]);
    expect(await findings('sglang', '--enable-metrics')).toEqual([]);
    expect((await findings('sglang', '--max-num-seqs')).map((f) => f.message)).toEqual([
      'engine-tuning removes --max-num-seqs, which the sglang adapter does not render for this deployment',
    ]);
  });
});
