/** The cases of InferenceX's utils/agentic/aggregation/test_server_log_metrics.py. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DynamoVllmBackend,
  VllmBackend,
  findServerLogPaths,
  loadServerLogHead,
  sglangKvCachePoolTokensFromLog,
  vllmKvCachePoolTokensFromLog,
} from '../../../src/results/index.js';
import { tempDir } from './support.js';

describe('KV cache capacity from engine logs', () => {
  it('is null for a missing, empty or unrelated log', () => {
    for (const parse of [vllmKvCachePoolTokensFromLog, sglangKvCachePoolTokensFromLog]) {
      expect(parse(null)).toBeNull();
      expect(parse('')).toBeNull();
      expect(parse('INFO no kv cache line')).toBeNull();
    }
  });

  it('reads a single vLLM engine', () => {
    expect(vllmKvCachePoolTokensFromLog('INFO (EngineCore pid=123) GPU KV cache size: 11,294,463 tokens')).toBe(11_294_463);
  });

  it('sums data-parallel vLLM engines', () => {
    const log = [0, 1, 2].map((i) => `INFO (EngineCore_DP${i} pid=12${3 + i}) GPU KV cache size: 11,577,333 tokens`).join('\n');
    expect(vllmKvCachePoolTokensFromLog(log)).toBe(34_731_999);
  });

  it('counts a repeated engine tag once', () => {
    const log = [
      'INFO (EngineCore_DP0 pid=123) GPU KV cache size: 11,577,333 tokens',
      'INFO (EngineCore_DP0 pid=123) GPU KV cache size: 11,577,333 tokens',
      'INFO (EngineCore_DP1 pid=124) GPU KV cache size: 5,000,000 tokens',
    ].join('\n');
    expect(vllmKvCachePoolTokensFromLog(log)).toBe(16_577_333);
  });

  it('sums untagged lines', () => {
    expect(
      vllmKvCachePoolTokensFromLog('INFO GPU KV cache size: 1,234,567 tokens\nINFO GPU KV cache size: 2,000,000 tokens'),
    ).toBe(3_234_567);
  });

  it('scales a single SGLang rank line by dp_size', () => {
    const log = [
      '[2026-06-23 01:05:00] server_args=ServerArgs(dp_size=8, tp_size=8)',
      '[2026-06-23 01:10:14 DP0 TP0 EP0] max_total_num_tokens=1172224, chunked_prefill_size=4096',
    ].join('\n');
    expect(sglangKvCachePoolTokensFromLog(log)).toBe(9_377_792);
  });

  it('sums SGLang per-rank lines, each rank once', () => {
    const log = [
      '[2026-06-23 01:10:14 DP0 TP0 EP0] max_total_num_tokens=1000',
      '[2026-06-23 01:10:14 DP1 TP1 EP1] max_total_num_tokens=1200',
      '[2026-06-23 01:10:14 DP1 TP1 EP1] max_total_num_tokens=1200',
    ].join('\n');
    expect(sglangKvCachePoolTokensFromLog(log)).toBe(2200);
  });

  it('sums over several log files', () => {
    const dir = tempDir();
    const first = join(dir, 'watchtower-a.out');
    const second = join(dir, 'watchtower-b.out');
    writeFileSync(
      first,
      'INFO (EngineCore_DP0 pid=100) GPU KV cache size: 5,000,000 tokens\nINFO (EngineCore_DP1 pid=101) GPU KV cache size: 6,500,000 tokens',
    );
    writeFileSync(second, 'INFO (EngineCore_DP0 pid=200) GPU KV cache size: 7,000,000 tokens');
    expect(new VllmBackend().gpuKvCapacityTokens({}, [first, second])).toBe(18_500_000);
  });

  it('Dynamo-vLLM uses the vLLM log parser', () => {
    const log = join(tempDir(), 'watchtower-worker.out');
    writeFileSync(
      log,
      'INFO (EngineCore_DP0 pid=100) GPU KV cache size: 5,000,000 tokens\nINFO (EngineCore_DP1 pid=101) GPU KV cache size: 6,500,000 tokens',
    );
    expect(new DynamoVllmBackend().gpuKvCapacityTokens({}, [log])).toBe(11_500_000);
  });

  it('finds server.log and the multinode watchtower logs above the result folder', () => {
    const tmp = tempDir();
    const resultDir = join(tmp, 'logs', 'agentic', 'conc_128');
    mkdirSync(resultDir, { recursive: true });
    writeFileSync(join(resultDir, 'server.log'), 'server');
    writeFileSync(join(tmp, 'logs', 'watchtower-node_prefill_w0.out'), 'worker');
    writeFileSync(join(tmp, 'logs', 'benchmark.out'), 'ignored');
    const paths = findServerLogPaths(resultDir);
    expect(paths).toContain(join(resultDir, 'server.log'));
    expect(paths).toContain(join(tmp, 'logs', 'watchtower-node_prefill_w0.out'));
    expect(paths).not.toContain(join(tmp, 'logs', 'benchmark.out'));
  });

  it('reads a log head without NULs, null when missing', () => {
    const dir = tempDir();
    expect(loadServerLogHead(join(dir, 'missing.log'))).toBeNull();
    writeFileSync(join(dir, 'server.log'), Buffer.from('abc\x00def', 'latin1'));
    expect(loadServerLogHead(join(dir, 'server.log'))).toBe('abcdef');
  });
});
