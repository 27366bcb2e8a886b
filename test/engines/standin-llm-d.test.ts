// The stand-ins of llm-d's tools (src/engines/standin/llm-d.ts), vLLM's data parallelism under the
// engine stand-in, and the launcher's squash import with enroot's stand-ins: what each does with the
// command lines and files InferenceX's llm-d job gives it, and what each refuses.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envoyStandIn, eppStandIn, sidecarStandIn } from '../../src/engines/standin/llm-d.js';
import { engineStandIn, simServeArgs, vllmDataParallel } from '../../src/engines/standin/engine.js';
import { enrootUri } from '../../src/plan/inferencex/launchers.js';
import { importImages } from '../../src/launch/inferencex/job-script.js';
import type { JobScriptRun } from '../../src/launch/inferencex/job-script.js';
import { standinVariables } from '../../src/launch/inferencex/workspace.js';
import { CLI, tempFiles } from '../helpers.js';
import { FIXTURE_TREE } from '../launch/fixtures.js';

const LLMD = join(FIXTURE_TREE, 'benchmarks/llm-d');
const EPP_CONFIG = join(LLMD, 'epp-config.yaml');
const ENDPOINTS = '/tmp/endpoints.yaml'; // where the fixture's config has file-discovery look

/** What server.sh writes for 2 prefill and 2 decode nodes (one endpoint per node). */
const ENDPOINTS_YAML = `endpoints:
- name: prefill-0
  namespace: inferencex
  address: 10.0.0.1
  port: '8200'
  labels: {llm-d.ai/role: prefill}
- name: prefill-1
  namespace: inferencex
  address: 10.0.0.2
  port: '8200'
  labels: {llm-d.ai/role: prefill}
- name: decode-0
  namespace: inferencex
  address: 10.0.0.3
  port: '8000'
  labels: {llm-d.ai/role: decode}
- name: unlabeled
  namespace: inferencex
  address: 10.0.0.4
  port: '8000'
- name: elsewhere
  address: 10.0.0.5
  port: '8000'
  labels: {llm-d.ai/role: decode}
`;

/** The EPP's files: its config (the fixture's, edited by `edit`) and the endpoints. */
const files =
  (endpoints = ENDPOINTS_YAML, edit: (config: string) => string = (c) => c) =>
  (file: string): string => {
    if (file === ENDPOINTS) return endpoints;
    if (file === EPP_CONFIG) return edit(readFileSync(EPP_CONFIG, 'utf8'));
    throw new Error(`ENOENT: ${file}`);
  };

const EPP_ARGS = [
  '--pool-name=epp',
  '--pool-namespace=inferencex',
  `--config-file=${EPP_CONFIG}`,
  '--grpc-port=9002',
  '--secure-serving=false',
];

describe('the EPP stand-in', () => {
  it('routes over the endpoints its file-discovery names, in its pool’s namespace, split by the role filters', () => {
    const epp = eppStandIn(EPP_ARGS, files());
    expect(epp).toMatchObject({
      host: '0.0.0.0',
      port: '9002',
      prefill: ['http://10.0.0.1:8200', 'http://10.0.0.2:8200'],
      // decode-filter keeps decode, both and unlabeled endpoints; `elsewhere` is in namespace default.
      decode: ['http://10.0.0.3:8000', 'http://10.0.0.4:8000'],
    });
    expect(epp.notes.join('\n')).toContain('in place of prefix-cache-scorer, queue-scorer, kv-cache-utilization-scorer');
  });

  it.each([
    [
      'TLS (the EPP’s default)',
      EPP_ARGS.filter((a) => !a.startsWith('--secure-serving')),
      files(),
      /--secure-serving=true serves TLS/,
    ],
    ['no config file', EPP_ARGS.filter((a) => !a.startsWith('--config-file')), files(), /no --config-file/],
    [
      'a decider that decides per request',
      EPP_ARGS,
      files(ENDPOINTS_YAML, (c) => c.replace(/always-disagg-pd-decider/g, 'prefix-based-pd-decider')),
      /plugin type prefix-based-pd-decider .* is not one the stand-in carries out/,
    ],
    [
      'another decider plugin name',
      EPP_ARGS,
      files(ENDPOINTS_YAML, (c) => c.replace('deciderPluginName: always-disagg-pd-decider', 'deciderPluginName: other')),
      /decider is other; the stand-in .* disaggregates every request/,
    ],
    [
      'live reload',
      EPP_ARGS,
      files(ENDPOINTS_YAML, (c) => c.replace('watchFile: false', 'watchFile: true')),
      /watchFile: true reloads the endpoints while serving/,
    ],
    [
      'Kubernetes discovery',
      EPP_ARGS,
      files(ENDPOINTS_YAML, (c) => c.replace(/dataLayer:[\s\S]*$/, '')),
      /discovers endpoints through Kubernetes/,
    ],
    [
      'a host name for an address',
      EPP_ARGS,
      files(ENDPOINTS_YAML.replace('10.0.0.1', 'node-1')),
      /prefill-0's address node-1 is not an IPv4 address/,
    ],
    [
      'a port that is a number',
      EPP_ARGS,
      files(ENDPOINTS_YAML.replace("port: '8200'", 'port: 8200')),
      /prefill-0's port 8200 is not a string/,
    ],
    [
      'no prefill endpoints',
      EPP_ARGS,
      files(ENDPOINTS_YAML.replace(/role: prefill/g, 'role: decode')),
      /has 0 prefill and 4 decode endpoints in namespace inferencex: P\/D routing needs both/,
    ],
    [
      'no endpoints file',
      EPP_ARGS,
      (f: string) => (f === ENDPOINTS ? readFileSync(join(LLMD, 'missing.yaml'), 'utf8') : files()(f)),
      /cannot read \/tmp\/endpoints\.yaml: ENOENT/,
    ],
    ['a file without endpoints', EPP_ARGS, files('items: []\n'), /\/tmp\/endpoints\.yaml has no endpoints: list/],
  ])('refuses %s, saying why', (_, args, read, why) => {
    expect(() => eppStandIn(args, read)).toThrow(why);
  });
});

describe('the Envoy stand-in', () => {
  const config = readFileSync(join(LLMD, 'envoy.yaml'), 'utf8');
  const envoy = (text: string) => envoyStandIn(['-c', '/etc/envoy/envoy.yaml'], () => text);

  it('forwards InferenceX’s listener to the ext_proc cluster (the EPP), and answers on its admin address', () => {
    expect(envoy(config)).toMatchObject({
      listen: { host: '0.0.0.0', port: 8080 },
      admin: { host: '0.0.0.0', port: 9901 },
      upstream: 'http://127.0.0.1:9002',
    });
  });

  it('refuses a route to a fixed cluster, another HTTP filter, or no config', () => {
    expect(() => envoy(config.replace('cluster: original_dst', 'cluster: epp'))).toThrow(
      /a route goes to cluster epp, not to an ORIGINAL_DST cluster/,
    );
    expect(() =>
      envoy(
        config.replace(
          '- name: envoy.filters.http.router',
          '- name: envoy.filters.http.lua\n                  - name: envoy.filters.http.router',
        ),
      ),
    ).toThrow(/HTTP filter envoy.filters.http.lua is not one the stand-in carries out/);
    expect(() => envoyStandIn([], () => config)).toThrow(/no -c\/--config-path/);
  });
});

describe('the P/D sidecar stand-in', () => {
  const ARGS = [
    '--port=8000',
    '--vllm-port=8200',
    '--kv-connector=nixlv2',
    '--secure-proxy=false',
    '--enable-prefiller-sampling',
  ];

  it('is a proxy on its node to its node’s vLLM', () => {
    expect(sidecarStandIn(ARGS, { FRONTIER_NODE_ADDR: '127.0.0.3' })).toMatchObject({
      host: '127.0.0.3',
      port: '8000',
      to: 'http://127.0.0.3:8200',
    });
  });

  it('refuses TLS (its default) and a connector whose transfers the sim does not take', () => {
    expect(() => sidecarStandIn(ARGS.slice(0, 3), {})).toThrow(/--secure-proxy=true serves TLS/);
    expect(() => sidecarStandIn([...ARGS, '--kv-connector=lmcache'], {})).toThrow(/--kv-connector=lmcache/);
  });
});

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
