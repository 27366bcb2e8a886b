// vLLM's data parallelism under the engine stand-in, as InferenceX's llm-d job starts vLLM
// (benchmarks/multi_node/llm-d/server.sh), and the launcher's squash import with enroot's stand-ins.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineStandIn, simServeArgs, vllmDataParallel } from '../../src/engines/standin/engine.js';
import { enrootUri } from '../../src/plan/inferencex/launchers.js';
import { importImages } from '../../src/launch/inferencex/job-script.js';
import type { JobScriptRun } from '../../src/launch/inferencex/job-script.js';
import { standinVariables } from '../../src/launch/inferencex/workspace.js';
import { CLI, tempFiles } from '../helpers.js';

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

describe('the launcher’s squash import', () => {
  it('writes enroot’s URI of an image as enroot_uri_for_image does', () => {
    // Each expectation is launch_gb200-nv.sh's enroot_uri_for_image's output for the image.
    expect(
      [
        'quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:a9095d4c',
        'vllm/vllm-openai:v0.20.1',
        'ubuntu@sha256:abc',
        'nvcr.io/nvidia/foo:1.0',
        'localhost/x:1@sha256:def',
        'lmsysorg/sglang@sha256:123',
      ].map(enrootUri),
    ).toEqual([
      'docker://quay.io#rh-ee-imarkov/llm-d-nokube-vllm:sha256:a9095d4c',
      'docker://vllm/vllm-openai:v0.20.1',
      'docker://registry-1.docker.io#library/ubuntu:sha256:abc',
      'docker://nvcr.io#nvidia/foo:1.0',
      'docker://localhost#x:sha256:def',
      'docker://registry-1.docker.io#lmsysorg/sglang:sha256:123',
    ]);
  });

  it('imports an image with the enroot stand-in once; unsquashfs then lists it, and refuses another file', async () => {
    const work = tempFiles({ 'not-a-squash.sqsh': 'x\n' });
    const dir = join(work, '.frontier');
    const env = {
      ...process.env,
      ...standinVariables({ bin: join(dir, 'bin'), dir, mode: 'run', frontier: [process.execPath, CLI] }),
    };
    const squash = join(work, 'squash', 'img.sqsh');
    const run = { work, images: [{ image: 'quay.io/a/b:1@sha256:f00', squash }] } as JobScriptRun;
    expect(await importImages(run, env)).toBe('');
    expect(readFileSync(squash, 'utf8')).toBe('frontier stand-in squash of docker://quay.io#a/b:sha256:f00\n');
    expect(await importImages(run, env)).toContain(`Squash file already exists and is valid, skipping import: ${squash}`);
    const bad = { work, images: [{ image: 'x', squash: join(work, 'not-a-squash.sqsh') }] } as JobScriptRun;
    // Not a squash: it is imported over (the launcher's rm -f, then enroot import).
    await importImages(bad, env);
    expect(readFileSync(join(work, 'not-a-squash.sqsh'), 'utf8')).toBe('frontier stand-in squash of docker://x\n');
    writeFileSync(join(work, 'plain'), 'x\n');
    const { execFileSync } = await import('node:child_process');
    expect(() => execFileSync('unsquashfs', ['-l', join(work, 'plain')], { env, stdio: 'pipe' })).toThrow(/is not a squash file/);
    expect(existsSync(`${squash}.lock`)).toBe(true);
  });
});
