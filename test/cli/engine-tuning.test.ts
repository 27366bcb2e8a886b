import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempFiles } from '../helpers.js';

/**
 * End to end: a Frontier catalog with engine-tuning → `frontier matrix` → `frontier run --dry-run
 * --format json` on a (non-simulating) local GPU cluster shows the tuned argv and environment, one
 * launch per distinct tuning.
 */

const CATALOG = `dsr1-fp8-h200-vllm:
  image: vllm/vllm-openai:v0.25.0
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  precision: fp8
  framework: vllm
  runner: h200
  multinode: false
  engine-tuning:
    - env: { VLLM_USE_DEEP_GEMM: 1 }
      remove: [--kv-cache-dtype]
    - when: { conc: { min: 32 } }
      args: { --max-num-seqs: 512, --enable-chunked-prefill: true }
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 64
        search-space:
          - { tp: 8, conc-list: [4, 8, 32, 64] }
`;

interface DryRun {
  launches: { concs: number[]; processes: { role: string; argv: string[]; env: Record<string, string> }[] }[];
}

describe('engine-tuning end to end', () => {
  it('frontier run --dry-run --format json shows the tuned argv and env, split by conc', () => {
    const dir = tempFiles({
      'configs/t-master.yaml': CATALOG,
      'configs/runners.yaml': 'labels:\n  h200: [h200-x_0]\n',
      'clusters/gpu.yaml': 'scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h200\n',
    });
    const matrix = runCli(
      ['matrix', 'test-config', '--config-files', 'configs/t-master.yaml', '--config-keys', 'dsr1-fp8-h200-vllm'],
      { cwd: dir },
    );
    expect(matrix.stderr).toBe('');
    const rows = JSON.parse(matrix.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r['engine-tuning'])).toEqual([
      { env: { VLLM_USE_DEEP_GEMM: '1' }, remove: ['--kv-cache-dtype'] },
      { env: { VLLM_USE_DEEP_GEMM: '1' }, remove: ['--kv-cache-dtype'] },
      ...[32, 64].map(() => ({
        env: { VLLM_USE_DEEP_GEMM: '1' },
        remove: ['--kv-cache-dtype'],
        args: { '--max-num-seqs': '512', '--enable-chunked-prefill': true },
      })),
    ]);
    const file = join(dir, 'matrix.json');
    writeFileSync(file, matrix.stdout);
    const result = runCli(
      ['run', '--matrix', file, '--cluster', 'gpu', '--dry-run', '--format', 'json', '--out', join(dir, 'run')],
      {
        cwd: dir,
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as DryRun;
    expect(report.launches.map((l) => l.concs)).toEqual([
      [4, 8],
      [32, 64],
    ]);
    const [small, large] = report.launches.map((l) => l.processes.find((p) => p.role === 'server')!);
    for (const p of [small!, large!]) {
      expect(p.argv).not.toContain('--kv-cache-dtype');
      expect(p.env.VLLM_USE_DEEP_GEMM).toBe('1');
      expect(p.argv.filter((w) => w === '--max-num-seqs')).toHaveLength(1);
    }
    expect(small!.argv.slice(-2)).toEqual(['--max-num-seqs', '8']);
    expect(large!.argv.slice(-3)).toEqual(['--max-num-seqs', '512', '--enable-chunked-prefill']);
  });
});
