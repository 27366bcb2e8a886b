// vLLM's data parallelism under the engine stand-in, as InferenceX's llm-d job starts vLLM
// (benchmarks/multi_node/llm-d/server.sh).
import { describe, expect, it } from 'vitest';
import { engineStandIn, simServeArgs, vllmDataParallel } from '../../src/engines/standin/engine.js';

describe('vLLM’s data parallelism under the engine stand-in', () => {
  // server.sh's prefill command on the second node of a DEP8 engine over two 4-GPU nodes.
  const dep = (start: number) => [
    'serve',
    '/models',
    '--port',
    '8200',
    '--tensor-parallel-size',
    '1',
    '--kv_transfer_config',
    '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}',
    '--enable-expert-parallel',
    '--data-parallel-size',
    '8',
    '--data-parallel-hybrid-lb',
    '--data-parallel-size-local',
    '4',
    '--data-parallel-address',
    '127.0.0.1',
    '--data-parallel-start-rank',
    String(start),
  ];
  const env = { FRONTIER_NODE_ADDR: '127.0.0.2', MODEL: 'deepseek-ai/DeepSeek-V4-Pro' };

  it('is D×T GPUs with data-parallel attention, the experts over all of them', () => {
    expect(vllmDataParallel(dep(0))).toEqual({ tp: '8', ep: '8', dpAttn: true });
    expect(vllmDataParallel(['serve', 'm', '--tensor-parallel-size', '2', '--data-parallel-size', '4'])).toEqual({
      tp: '8',
      ep: '1',
      dpAttn: true,
    });
    expect(vllmDataParallel(['serve', 'm', '--tensor-parallel-size', '8'])).toBeUndefined();
  });

  it('serves the whole engine on its first node, in the role its --kv_transfer_config gives', async () => {
    const first = await engineStandIn('vllm', dep(0), { ...env, FRONTIER_NODE_ADDR: '127.0.0.1' });
    expect(first).toMatchObject({ kind: 'serve', role: 'prefill', host: '127.0.0.1', port: '8200' });
    if (first.kind !== 'serve') throw new Error(first.kind);
    const sim = simServeArgs(dep(0), first, { ...env, FRONTIER_SIM_GPU: 'gb200', PRECISION: 'fp4' }, () => undefined);
    expect(sim.join(' ')).toContain('--tp 8 --ep 8 --pp 1 --dp-attn');
    expect(sim.join(' ')).toContain('--role prefill');
  });

  it('another node’s API server of a hybrid-LB engine is a proxy to the first node’s, on its own port', async () => {
    expect(await engineStandIn('vllm', dep(4), env)).toMatchObject({
      kind: 'proxy',
      host: '127.0.0.2',
      port: '8200',
      to: 'http://127.0.0.1:8200',
    });
  });

  it('a headless node idles', async () => {
    const args = ['serve', '/models', '--tensor-parallel-size', '8', '--master-addr', '127.0.0.3', '--nnodes', '2', '--headless'];
    expect(await engineStandIn('vllm', args, env)).toMatchObject({ kind: 'idle' });
  });
});
