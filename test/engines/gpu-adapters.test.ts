import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { splitArgs } from '../../src/engines/common.js';
import { dynamoSglang } from '../../src/engines/dynamo-sglang.js';
import { dynamoTrt } from '../../src/engines/dynamo-trt.js';
import { dynamoVllm } from '../../src/engines/dynamo-vllm.js';
import { renderLaunchScript } from '../../src/engines/script.js';
import { sglang } from '../../src/engines/sglang.js';
import { LLM_API_ENV, trt } from '../../src/engines/trt.js';
import type {
  ClientSettings,
  Deployment,
  EngineAdapter,
  EngineProcess,
  Launch,
  Layout,
  Placement,
  Pool,
  Ports,
  WorkerShape,
} from '../../src/engines/types.js';
import { vllm } from '../../src/engines/vllm.js';
import { placeWorkers } from '../../src/plan/placement.js';

/**
 * The GPU engine adapters rendered for the layouts InferenceX runs (TP8, DEP8, workers across
 * nodes, 1P1D and 5P2D through Dynamo), placed as srtctl's allocate_endpoints places them on
 * nodes of 8 GPUs whose hosts are job-script expressions, with ports handed out per host from
 * 8000. Each launch script is compared with its golden (UPDATE_GOLDEN=1 rewrites them) and must
 * pass `bash -n` and shellcheck.
 */

const GOLDEN_DIR = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Fixed ports per host, as a job script hands them out: 8000, 8001, … on each host. */
class JobPorts implements Ports {
  readonly given = new Map<string, number[]>();
  next(host: string): number {
    const list = this.given.get(host) ?? [];
    const port = 8000 + list.length;
    list.push(port);
    this.given.set(host, list);
    return port;
  }
}

const shape = (tp: number, o: Partial<WorkerShape> = {}): WorkerShape => ({
  tp,
  pp: 1,
  ep: 1,
  dpAttn: false,
  dcp: 1,
  pcp: 1,
  ...o,
});
const pool = (workers: number, s: WorkerShape): Pool => ({ workers, ...s });
const dep = (n: number): WorkerShape => shape(n, { ep: n, dpAttn: true });
const agg = (w: WorkerShape): Layout => ({ kind: 'aggregated', worker: w });
const disagg = (prefill: Pool, decode: Pool): Layout => ({ kind: 'disaggregated', prefill, decode });

/** srtctl's allocation (src/plan/placement.ts placeWorkers) onto up to 64 hosts ${NODES[i]}. */
const HOSTS = Array.from({ length: 64 }, (_, n) => `\${NODES[${n}]}`);
const place = (layout: Layout, gpusPerNode = 8): Placement => placeWorkers(layout, gpusPerNode, HOSTS);

function deployment(framework: string, layout: Layout, o: Partial<Deployment> = {}): Deployment {
  return {
    framework,
    model: 'deepseek-ai/DeepSeek-R1-0528',
    modelPath: '/models/dsr1-fp8',
    servedModelName: 'deepseek-ai/DeepSeek-R1-0528',
    precision: 'fp8',
    image: 'example/image:tag',
    gpu: 'h200',
    isl: 1024,
    osl: 1024,
    maxModelLen: 2248,
    specDecoding: 'none',
    maxConcurrency: 256,
    layout,
    ...(layout.kind === 'disaggregated' ? { kvTransfer: 'nixl' } : {}),
    options: {},
    ...o,
  };
}

interface Case {
  adapter: EngineAdapter;
  name: string;
  d: Deployment;
}

const ADAPTERS = { vllm, sglang, trt, 'dynamo-vllm': dynamoVllm, 'dynamo-sglang': dynamoSglang, 'dynamo-trt': dynamoTrt };
type AdapterName = keyof typeof ADAPTERS;

const c = (a: AdapterName, name: string, layout: Layout, o: Partial<Deployment> = {}): Case => ({
  adapter: ADAPTERS[a],
  name: `${a}-${name}`,
  d: deployment(a, layout, o),
});

const P1D1 = disagg(pool(1, shape(4)), pool(1, shape(8)));
const P5D2 = disagg(pool(5, shape(1)), pool(2, dep(8)));

const CASES: Case[] = [
  c('vllm', 'tp8', agg(shape(8))),
  c('vllm', 'dep8', agg(dep(8))),
  c('vllm', 'dep16-2nodes', agg(dep(16))),
  c('vllm', 'tp8-pp2-2nodes', agg(shape(8, { pp: 2 }))),
  c('vllm', 'tp8-mtp-options', agg(shape(8)), {
    specDecoding: 'mtp',
    options: {
      'gpu-memory-utilization': 0.9,
      'trust-remote-code': true,
      env: 'VLLM_ENGINE_READY_TIMEOUT_S=3600',
      'extra-args': `--block-size 256 --compilation-config '{"cudagraph_mode":"FULL_AND_PIECEWISE"}'`,
    },
  }),
  c('sglang', 'tp8', agg(shape(8))),
  c('sglang', 'dep8', agg(dep(8))),
  c('sglang', 'tp16-2nodes', agg(shape(16))),
  c('sglang', 'tp8-mtp', agg(shape(8)), { specDecoding: 'mtp', options: { 'mem-fraction-static': 0.82 } }),
  c('trt', 'tp8', agg(shape(8))),
  c('trt', 'dep8-mtp', agg(dep(8)), {
    specDecoding: 'mtp',
    options: { 'llm-api-options': '{"moe_config":{"backend":"DEEPGEMM"}}', 'prometheus-metrics': true },
  }),
  c('trt', 'tp8-config-file', agg(shape(8, { ep: 8 })), {
    precision: 'fp4',
    options: { 'extra-llm-api-config': '/configs/dsr1-fp4.yml', mpirun: false, 'trust-remote-code': true },
  }),
  c('dynamo-vllm', '1p1d-tp4-tp8', P1D1),
  c('dynamo-vllm', '5p2d-tp1-dep8', P5D2),
  c('dynamo-vllm', '1p1d-dep8-dep16', disagg(pool(1, dep(8)), pool(1, dep(16)))),
  c('dynamo-vllm', 'agg-tp8', agg(shape(8))),
  c('dynamo-sglang', '1p1d-tp4-tp8', P1D1),
  c('dynamo-sglang', '5p2d-tp1-dep8', P5D2, { options: { 'request-plane': 'nats', 'frontend-args': '--router-mode kv' } }),
  c('dynamo-sglang', '1p1d-tp8-dep16', disagg(pool(1, shape(8)), pool(1, dep(16))), { kvTransfer: 'mooncake' }),
  c('dynamo-sglang', 'agg-tp8', agg(shape(8))),
  c('dynamo-trt', '1p1d-tp4-tp8', P1D1),
  c('dynamo-trt', '5p2d-tp1-dep8', P5D2, { specDecoding: 'mtp', kvTransfer: 'ucx' }),
  c('dynamo-trt', 'agg-tp8', agg(shape(8)), { options: { 'extra-engine-args': '/configs/agg.yaml' } }),
];

function render(k: Case): { launch: Launch; script: string; ports: JobPorts } {
  expect(k.adapter.check(k.d), k.name).toEqual([]);
  const ports = new JobPorts();
  const launch = k.adapter.launch(k.d, place(k.d.layout), ports);
  return { launch, script: renderLaunchScript(launch, `${k.name}: ${k.d.model} on ${k.d.gpu}`), ports };
}

// --- shellcheck --------------------------------------------------------------------------------

interface Finding {
  line: number;
  code: number;
  level: string;
  message: string;
}

const TMP = mkdtempSync(join(tmpdir(), 'frontier-gpu-adapters-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function lint(name: string, script: string): { bash: string; findings: Finding[] } {
  const file = join(TMP, `${name}.sh`);
  writeFileSync(file, script);
  const bash = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
  const sc = spawnSync('shellcheck', ['-s', 'bash', '-f', 'json1', file], { encoding: 'utf8' });
  if (sc.error) throw new Error(`shellcheck is not installed (scripts/install-system-deps.sh installs it): ${sc.error.message}`);
  const findings = (JSON.parse(sc.stdout) as { comments: Finding[] }).comments;
  return { bash: bash.status === 0 ? '' : bash.stderr, findings };
}

describe('GPU engine adapters: launch scripts', () => {
  if (UPDATE) mkdirSync(GOLDEN_DIR, { recursive: true });

  it.each(CASES.map((k) => [k.name, k] as const))('%s matches its golden, and passes bash -n and shellcheck', (name, k) => {
    const { script } = render(k);
    const golden = join(GOLDEN_DIR, `${name}.sh`);
    if (UPDATE) writeFileSync(golden, script);
    expect(existsSync(golden), `${golden} is missing: run UPDATE_GOLDEN=1 npx vitest run test/engines`).toBe(true);
    expect(script).toBe(readFileSync(golden, 'utf8'));
    const { bash, findings } = lint(name, script);
    expect(bash).toBe('');
    expect(findings.map((f) => `${name}.sh:${f.line} SC${f.code} ${f.level}: ${f.message}`)).toEqual([]);
  });

  it('hands out distinct ports per host, never the infrastructure ports', () => {
    for (const k of CASES) {
      const { launch, ports } = render(k);
      for (const [host, list] of ports.given) {
        expect(new Set(list).size, `${k.name} ${host}`).toBe(list.length);
        expect(list.filter((p) => p === 2379 || p === 4222)).toEqual([]);
      }
      const served = launch.processes.filter((p) => p.port !== undefined).map((p) => `${p.host}:${p.port}`);
      expect(new Set(served).size, k.name).toBe(served.length);
      expect(new Set(launch.processes.map((p) => p.name)).size, k.name).toBe(launch.processes.length);
    }
  });
});

// --- key flags ---------------------------------------------------------------------------------

const byName = (k: Case): Map<string, EngineProcess> => new Map(render(k).launch.processes.map((p) => [p.name, p]));
const get = (m: Map<string, EngineProcess>, name: string): EngineProcess => {
  const p = m.get(name);
  if (!p) throw new Error(`no process ${name}: ${[...m.keys()].join(', ')}`);
  return p;
};
/** The value after `flag` in a command. */
const flag = (p: EngineProcess, f: string): string | undefined => {
  const i = p.command.indexOf(f);
  return i < 0 ? undefined : p.command[i + 1];
};
const caseNamed = (name: string): Case => CASES.find((k) => k.name === name)!;

describe('vllm', () => {
  it('TP8: one vllm serve on all 8 GPUs, the batch limit the highest concurrency', () => {
    const { launch } = render(caseNamed('vllm-tp8'));
    const [p] = launch.processes;
    expect(launch.processes).toHaveLength(1);
    expect(p!.command.slice(0, 3)).toEqual(['vllm', 'serve', '/models/dsr1-fp8']);
    expect(p!.gpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(flag(p!, '--tensor-parallel-size')).toBe('8');
    expect(flag(p!, '--max-num-seqs')).toBe('256');
    expect(flag(p!, '--max-model-len')).toBe('2248');
    expect(flag(p!, '--kv-cache-dtype')).toBe('fp8');
    expect(launch.endpoint).toEqual({ host: '${NODES[0]}', port: 8000 });
    expect(launch.ready).toEqual([{ path: '/health' }, { path: '/v1/models', contains: 'deepseek-ai/DeepSeek-R1-0528' }]);
    expect(launch.metricsPath).toBe('/metrics');
    expect(launch.client).toEqual({
      backend: 'vllm',
      endpoint: '/v1/completions',
      tokenizer: 'server',
      useChatTemplate: false,
      timeScale: 1,
    });
  });

  it('DEP8: TP 1 per rank, DP 8, expert parallel, the batch split over the ranks', () => {
    const p = get(byName(caseNamed('vllm-dep8')), 'server');
    expect(flag(p, '--tensor-parallel-size')).toBe('1');
    expect(flag(p, '--data-parallel-size')).toBe('8');
    expect(p.command).toContain('--enable-expert-parallel');
    expect(flag(p, '--max-num-seqs')).toBe('32');
  });

  it('DEP16 on two nodes: DP ranks per node, the second node headless from rank 8', () => {
    const m = byName(caseNamed('vllm-dep16-2nodes'));
    const [a, b] = [get(m, 'server'), get(m, 'server-n1')];
    expect(flag(a, '--data-parallel-size')).toBe('16');
    expect(flag(a, '--data-parallel-size-local')).toBe('8');
    expect(a.command).not.toContain('--headless');
    expect(a.port).toBe(8000);
    expect(b.host).toBe('${NODES[1]}');
    expect(b.command).toContain('--headless');
    expect(flag(b, '--data-parallel-start-rank')).toBe('8');
    expect(flag(b, '--data-parallel-address')).toBe('${NODES[0]}');
    expect(flag(b, '--data-parallel-rpc-port')).toBe(flag(a, '--data-parallel-rpc-port'));
    expect(b.command).not.toContain('--port');
    expect(b.port).toBeUndefined();
  });

  it('TP8×PP2 on two nodes: one group across nodes with --nnodes/--node-rank/--master-addr', () => {
    const m = byName(caseNamed('vllm-tp8-pp2-2nodes'));
    const b = get(m, 'server-n1');
    expect(flag(b, '--pipeline-parallel-size')).toBe('2');
    expect([flag(b, '--nnodes'), flag(b, '--node-rank'), flag(b, '--master-addr')]).toEqual(['2', '1', '${NODES[0]}']);
    expect(b.command).toContain('--headless');
  });

  it('mtp: the speculative config, the chat template, the model tokenizer; options add flags and env', () => {
    const { launch } = render(caseNamed('vllm-tp8-mtp-options'));
    const p = launch.processes[0]!;
    expect(JSON.parse(flag(p, '--speculative-config')!)).toEqual({ method: 'mtp', num_speculative_tokens: 2 });
    expect(flag(p, '--gpu-memory-utilization')).toBe('0.9');
    expect(p.command).toContain('--trust-remote-code');
    expect(p.command.slice(-4)).toEqual([
      '--block-size',
      '256',
      '--compilation-config',
      '{"cudagraph_mode":"FULL_AND_PIECEWISE"}',
    ]);
    expect(p.env).toEqual({ VLLM_ENGINE_READY_TIMEOUT_S: '3600' });
    expect(launch.client).toMatchObject({ tokenizer: '/models/dsr1-fp8', useChatTemplate: true });
  });
});

describe('sglang', () => {
  it('DEP8: DP attention over the TP group, EP 8, metrics on', () => {
    const p = get(byName(caseNamed('sglang-dep8')), 'server');
    expect(p.command.slice(0, 3)).toEqual(['python3', '-m', 'sglang.launch_server']);
    expect(flag(p, '--tensor-parallel-size')).toBe('8');
    expect(flag(p, '--data-parallel-size')).toBe('8');
    expect(p.command).toContain('--enable-dp-attention');
    expect(flag(p, '--ep-size')).toBe('8');
    expect(flag(p, '--max-running-requests')).toBe('256');
    expect(flag(p, '--cuda-graph-max-bs')).toBe('32');
    expect(flag(p, '--kv-cache-dtype')).toBe('fp8_e4m3');
    expect(p.command).toContain('--enable-metrics');
  });

  it('TP16 on two nodes: the same command per node with --dist-init-addr and its node rank', () => {
    const m = byName(caseNamed('sglang-tp16-2nodes'));
    const [a, b] = [get(m, 'server'), get(m, 'server-n1')];
    expect(flag(a, '--dist-init-addr')).toBe('${NODES[0]}:8001');
    expect(flag(b, '--dist-init-addr')).toBe('${NODES[0]}:8001');
    expect([flag(a, '--node-rank'), flag(b, '--node-rank'), flag(b, '--nnodes')]).toEqual(['0', '1', '2']);
    expect(b.port).toBeUndefined();
  });

  it('mtp: EAGLE with 2 steps and 3 draft tokens, as InferenceX dsr1_fp8_h200_mtp.sh', () => {
    const p = get(byName(caseNamed('sglang-tp8-mtp')), 'server');
    expect(flag(p, '--speculative-algorithm')).toBe('EAGLE');
    expect([
      flag(p, '--speculative-num-steps'),
      flag(p, '--speculative-eagle-topk'),
      flag(p, '--speculative-num-draft-tokens'),
    ]).toEqual(['2', '1', '3']);
    expect(flag(p, '--mem-fraction-static')).toBe('0.82');
  });
});

describe('trt', () => {
  const options = (p: EngineProcess): Record<string, unknown> => JSON.parse(p.env[LLM_API_ENV]!) as Record<string, unknown>;

  it('TP8: trtllm-serve under mpirun -n 1, the LLM API options written on the node by bash -c', () => {
    const { launch } = render(caseNamed('trt-tp8'));
    const p = launch.processes[0]!;
    expect(p.command.slice(0, 2)).toEqual(['bash', '-c']);
    expect(p.command.slice(3, 10)).toEqual([
      'bash',
      'mpirun',
      '-n',
      '1',
      '--oversubscribe',
      '--allow-run-as-root',
      'trtllm-serve',
    ]);
    expect([flag(p, '--tp_size'), flag(p, '--ep_size'), flag(p, '--max_batch_size'), flag(p, '--max_seq_len')]).toEqual([
      '8',
      '1',
      '256',
      '2248',
    ]);
    expect(flag(p, '--max_num_tokens')).toBe('8192');
    expect(options(p)).toEqual({
      cuda_graph_config: { enable_padding: true, max_batch_size: 256 },
      enable_attention_dp: false,
      kv_cache_config: { dtype: 'fp8' },
    });
    // trtllm-serve lists a model directory by its name.
    expect(launch.ready[1]).toEqual({ path: '/v1/models', contains: 'dsr1-fp8' });
    expect(launch.metricsPath).toBeUndefined();
    expect(launch.client.tokenizer).toBe('/models/dsr1-fp8');
  });

  it('DEP8 with mtp: attention DP, EP 8, batch per rank, one MTP layer, option JSON merged, Prometheus metrics', () => {
    const { launch } = render(caseNamed('trt-dep8-mtp'));
    const p = launch.processes[0]!;
    expect(launch.metricsPath).toBe('/prometheus/metrics');
    expect([flag(p, '--tp_size'), flag(p, '--ep_size'), flag(p, '--max_batch_size')]).toEqual(['8', '8', '32']);
    expect(options(p)).toMatchObject({
      enable_attention_dp: true,
      cuda_graph_config: { max_batch_size: 32 },
      speculative_config: { decoding_type: 'MTP', num_nextn_predict_layers: 1 },
      moe_config: { backend: 'DEEPGEMM' },
      return_perf_metrics: true,
    });
  });

  it('the bash -c wrapper writes the options to a file on the node and passes it last', () => {
    const p = render(caseNamed('trt-dep8-mtp')).launch.processes[0]!;
    // A stand-in mpirun that prints its arguments and the options file it was given.
    const bin = join(TMP, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'mpirun'),
      '#!/usr/bin/env bash\nprintf "%s\\n" "$@"\nwhile [ "$#" -gt 1 ]; do [ "$1" = --extra_llm_api_options ] && cat "$2"; shift; done\n',
      { mode: 0o755 },
    );
    const run = spawnSync(p.command[0]!, p.command.slice(1), {
      encoding: 'utf8',
      env: { ...process.env, ...p.env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(run.stderr).toBe('');
    const out = run.stdout.trimEnd().split('\n');
    expect(out.slice(0, 5)).toEqual(['-n', '1', '--oversubscribe', '--allow-run-as-root', 'trtllm-serve']);
    expect(out.at(-3)).toBe('--extra_llm_api_options');
    expect(out.at(-1)).toBe(p.env[LLM_API_ENV]);
  });

  it('a config file on the nodes replaces the rendered options; mpirun can be left out', () => {
    const p = render(caseNamed('trt-tp8-config-file')).launch.processes[0]!;
    expect(p.command[0]).toBe('trtllm-serve');
    expect(p.command.slice(-2)).toEqual(['--extra_llm_api_options', '/configs/dsr1-fp4.yml']);
    expect(p.env).toEqual({});
  });

  it('refuses a worker across nodes (an MPI job, not per-node processes)', () => {
    const d = deployment('trt', agg(shape(16)));
    expect(() => trt.launch(d, place(d.layout), new JobPorts())).toThrow(/spans 2 nodes.*MPI/);
  });
});

describe('dynamo-*', () => {
  const layouts: [AdapterName, string][] = [
    ['dynamo-vllm', 'dynamo.vllm'],
    ['dynamo-sglang', 'dynamo.sglang'],
    ['dynamo-trt', 'dynamo.trtllm'],
  ];

  it.each(layouts)(
    '%s 1P1D TP4/TP8: infra and frontend on the head, prefill on node 0 GPUs 0-3, decode on node 1',
    (a, module) => {
      const { launch } = render(caseNamed(`${a}-1p1d-tp4-tp8`));
      const m = new Map(launch.processes.map((p) => [p.name, p]));
      expect([...m.keys()]).toEqual(['etcd', 'nats', 'frontend', 'prefill-0', 'decode-0']);
      expect(get(m, 'etcd').command).toEqual([
        'etcd',
        '--data-dir',
        'dynamo-state/etcd',
        '--listen-client-urls',
        'http://0.0.0.0:2379',
        '--advertise-client-urls',
        'http://${NODES[0]}:2379',
      ]);
      expect(get(m, 'nats').command).toEqual(['nats-server', '-js', '-sd', 'dynamo-state/nats', '-p', '4222']);
      expect(get(m, 'frontend').command).toEqual(['python3', '-m', 'dynamo.frontend', '--http-port', '8000']);
      const [prefill, decode] = [get(m, 'prefill-0'), get(m, 'decode-0')];
      expect(prefill.command.slice(0, 3)).toEqual(['python3', '-m', module]);
      expect([prefill.host, prefill.gpus]).toEqual(['${NODES[0]}', [0, 1, 2, 3]]);
      expect([decode.host, decode.gpus]).toEqual(['${NODES[1]}', [0, 1, 2, 3, 4, 5, 6, 7]]);
      expect(flag(prefill, '--disaggregation-mode')).toBe('prefill');
      expect(flag(decode, '--disaggregation-mode')).toBe('decode');
      for (const p of [prefill, decode]) {
        expect(p.env).toMatchObject({
          HEAD_NODE_IP: '${NODES[0]}',
          ETCD_ENDPOINTS: 'http://${NODES[0]}:2379',
          NATS_SERVER: 'nats://${NODES[0]}:4222',
          DYN_SYSTEM_PORT: String(p.port),
        });
      }
      expect(launch.endpoint).toEqual({ host: '${NODES[0]}', port: 8000 });
      expect(launch.ready).toEqual([
        { path: '/health', contains: '"component":"prefill"' },
        { path: '/v1/models', contains: 'deepseek-ai/DeepSeek-R1-0528' },
      ]);
      expect(launch.client).toMatchObject({ backend: 'vllm', tokenizer: '/models/dsr1-fp8' });
    },
  );

  it.each(layouts)('%s 5P2D TP1/DEP8: five prefill workers on one GPU each of node 0, each decode on a node of its own', (a) => {
    const { launch } = render(caseNamed(`${a}-5p2d-tp1-dep8`));
    const prefill = launch.processes.filter((p) => p.role === 'prefill');
    const decode = launch.processes.filter((p) => p.role === 'decode');
    expect(prefill.map((p) => [p.name, p.host, p.gpus])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`prefill-${i}`, '${NODES[0]}', [i]]),
    );
    expect(decode.map((p) => [p.name, p.host, p.gpus.length])).toEqual([
      ['decode-0', '${NODES[1]}', 8],
      ['decode-1', '${NODES[2]}', 8],
    ]);
    // Five workers on one node: a system port each.
    expect(new Set(prefill.map((p) => p.env.DYN_SYSTEM_PORT)).size).toBe(5);
  });

  it('dynamo-vllm DEP8 decode: per-node DP with hybrid load balancing; NIXL side channel per DP rank', () => {
    const d = get(byName(caseNamed('dynamo-vllm-5p2d-tp1-dep8')), 'decode-1');
    expect(flag(d, '--kv-transfer-config')).toBe('{"kv_connector":"NixlConnector","kv_role":"kv_both"}');
    expect([flag(d, '--tensor-parallel-size'), flag(d, '--data-parallel-size'), flag(d, '--data-parallel-size-local')]).toEqual([
      '1',
      '8',
      '8',
    ]);
    expect(d.command).toContain('--enable-expert-parallel');
    expect(d.command).toContain('--data-parallel-hybrid-lb');
    expect(flag(d, '--data-parallel-address')).toBe('${NODES[2]}');
    expect(d.env.VLLM_NIXL_SIDE_CHANNEL_HOST).toBe('${NODES[2]}');
  });

  it('dynamo-vllm DEP16 decode across two nodes: ranks 0-7 and 8-15, one per node', () => {
    const m = byName(caseNamed('dynamo-vllm-1p1d-dep8-dep16'));
    const [a, b] = [get(m, 'decode-0'), get(m, 'decode-0-n1')];
    expect([flag(a, '--data-parallel-start-rank'), flag(b, '--data-parallel-start-rank')]).toEqual(['0', '8']);
    expect(flag(b, '--data-parallel-address')).toBe('${NODES[1]}');
    expect(flag(b, '--data-parallel-rpc-port')).toBe(flag(a, '--data-parallel-rpc-port'));
    // vLLM binds base + global DP rank: each node reserves a block of 16.
    expect(Number(b.env.VLLM_NIXL_SIDE_CHANNEL_PORT) + 15).toBeLessThan(8000 + 20);
  });

  it('dynamo-sglang: transfer backend, a bootstrap port on prefill only, dist-init across nodes', () => {
    const m = byName(caseNamed('dynamo-sglang-1p1d-tp8-dep16'));
    const prefill = get(m, 'prefill-0');
    const [a, b] = [get(m, 'decode-0'), get(m, 'decode-0-n1')];
    expect(flag(prefill, '--disaggregation-transfer-backend')).toBe('mooncake');
    expect(flag(prefill, '--disaggregation-bootstrap-port')).toBeDefined();
    expect(flag(a, '--disaggregation-bootstrap-port')).toBeUndefined();
    expect(flag(a, '--dist-init-addr')).toBe(flag(b, '--dist-init-addr'));
    expect([flag(a, '--node-rank'), flag(b, '--node-rank'), flag(b, '--nnodes')]).toEqual(['0', '1', '2']);
    expect([flag(a, '--data-parallel-size'), flag(a, '--ep-size')]).toEqual(['16', '16']);
  });

  it('dynamo-sglang options: request plane on workers and frontend, frontend args', () => {
    const m = byName(caseNamed('dynamo-sglang-5p2d-tp1-dep8'));
    expect(flag(get(m, 'prefill-3'), '--request-plane')).toBe('nats');
    expect(get(m, 'frontend').env.DYN_REQUEST_PLANE).toBe('nats');
    expect(get(m, 'frontend').command.slice(-2)).toEqual(['--router-mode', 'kv']);
  });

  it('dynamo-trt: engine arguments as --override-engine-args JSON, per role', () => {
    const m = byName(caseNamed('dynamo-trt-5p2d-tp1-dep8'));
    const args = (name: string): Record<string, unknown> =>
      JSON.parse(flag(get(m, name), '--override-engine-args')!) as Record<string, unknown>;
    expect(args('prefill-0')).toMatchObject({
      tensor_parallel_size: 1,
      enable_attention_dp: false,
      disable_overlap_scheduler: true,
      cache_transceiver_config: { backend: 'UCX' },
      speculative_config: { decoding_type: 'MTP', num_nextn_predict_layers: 3 },
    });
    expect(args('decode-1')).toMatchObject({
      tensor_parallel_size: 8,
      moe_expert_parallel_size: 8,
      enable_attention_dp: true,
      max_batch_size: 32,
      cache_transceiver_config: { backend: 'UCX' },
      speculative_config: { num_nextn_predict_layers: 1 },
    });
    expect(args('decode-1')).not.toHaveProperty('disable_overlap_scheduler');
  });

  it('aggregated on dynamo: workers without a disaggregation mode; ready once a generate endpoint registers', () => {
    for (const a of ['dynamo-vllm', 'dynamo-sglang', 'dynamo-trt'] as const) {
      const { launch } = render(caseNamed(`${a}-agg-tp8`));
      const w = launch.processes.find((p) => p.role === 'server')!;
      expect(w.name).toBe('server-0');
      expect(w.command).not.toContain('--disaggregation-mode');
      expect(launch.ready[0]).toEqual({ path: '/health', contains: '"endpoint":"generate"' });
    }
    const trtAgg = render(caseNamed('dynamo-trt-agg-tp8')).launch.processes.find((p) => p.role === 'server')!;
    expect(flag(trtAgg, '--extra-engine-args')).toBe('/configs/agg.yaml');
  });

  it('dynamo-trt refuses a worker across nodes', () => {
    const d = deployment('dynamo-trt', disagg(pool(1, shape(8)), pool(1, dep(16))), { kvTransfer: 'nixl' });
    expect(() => dynamoTrt.launch(d, place(d.layout), new JobPorts())).toThrow(/spans 2 nodes/);
  });
});

// --- check() -----------------------------------------------------------------------------------

describe('check()', () => {
  const one = (a: EngineAdapter, d: Deployment): string[] => a.check(d);

  it('plain engines send disaggregated deployments to the dynamo-* adapters', () => {
    for (const [a, fw, dyn] of [
      [vllm, 'vllm', 'dynamo-vllm'],
      [sglang, 'sglang', 'dynamo-sglang'],
      [trt, 'trt', 'dynamo-trt'],
    ] as const) {
      const problems = one(a, deployment(fw, P1D1));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`dynamo-\\* adapters; use framework ${dyn}$`));
    }
  });

  it('rules on expert parallelism per engine', () => {
    expect(one(vllm, deployment('vllm', agg(shape(8, { ep: 4 }))))).toEqual([
      "worker ep 4: vLLM's expert-parallel size is always DP×TP (8 here) with --enable-expert-parallel; set ep to 1 or 8",
    ]);
    expect(one(sglang, deployment('sglang', agg(shape(8, { ep: 16 }))))[0]).toMatch(
      /--ep-size must divide --tensor-parallel-size \(8\)/,
    );
    expect(one(trt, deployment('trt', agg(shape(8, { ep: 3 }))))[0]).toMatch(/must divide tp \(8\)/);
    expect(one(dynamoSglang, deployment('dynamo-sglang', disagg(pool(1, shape(4, { ep: 8 })), pool(1, shape(8)))))[0]).toMatch(
      /^prefill ep 8/,
    );
  });

  it('rules on context parallelism per engine', () => {
    expect(one(vllm, deployment('vllm', agg(shape(8, { dcp: 4 }))))).toEqual([]);
    expect(one(vllm, deployment('vllm', agg(shape(8, { dcp: 3 }))))[0]).toMatch(
      /dcp 3: vLLM splits decode context within a TP group of 8/,
    );
    expect(one(vllm, deployment('vllm', agg(dep(8)))).concat(one(vllm, deployment('vllm', agg({ ...dep(8), dcp: 2 }))))).toEqual([
      'worker dcp 2: vLLM splits decode context within a TP group of 1 (dp-attn runs TP 1 per rank); set dcp to a divisor of 1',
    ]);
    expect(one(sglang, deployment('sglang', agg(shape(8, { pcp: 2 }))))).toEqual([
      'worker pcp 2: SGLang has no prefill context parallelism here; set pcp to 1',
    ]);
    expect(one(trt, deployment('trt', agg(shape(8, { dcp: 2 }))))).toEqual([
      'worker dcp 2: TensorRT-LLM has no decode context parallelism here; set dcp to 1',
    ]);
  });

  it('rules on the KV transfer of each dynamo engine', () => {
    expect(one(dynamoVllm, deployment('dynamo-vllm', P1D1, { kvTransfer: 'mooncake' }))[0]).toMatch(
      /kv-p2p-transfer mooncake: dynamo-vllm knows nixl/,
    );
    expect(
      one(
        dynamoVllm,
        deployment('dynamo-vllm', P1D1, {
          kvTransfer: 'mooncake',
          options: { 'kv-transfer-config': '{"kv_connector":"MooncakeConnector","kv_role":"kv_both"}' },
        }),
      ),
    ).toEqual([]);
    expect(one(dynamoSglang, deployment('dynamo-sglang', P1D1, { kvTransfer: 'ucx' }))[0]).toMatch(/takes nixl, mooncake, mori/);
    expect(one(dynamoTrt, deployment('dynamo-trt', P1D1, { kvTransfer: 'mooncake' }))[0]).toMatch(/takes nixl, ucx here/);
  });

  it('reports unknown options, wrong types and options that do not parse, all at once', () => {
    const problems = one(
      vllm,
      deployment('vllm', agg(shape(8)), {
        options: { 'gpu-memory-utilisation': 0.9, 'trust-remote-code': 'yes', 'mtp-tokens': 'two' },
      }),
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(
      /^unknown vllm option "gpu-memory-utilisation": use one of env, extra-args, gpu-memory-utilization, kv-cache-dtype/,
    );
    expect(problems[1]).toMatch(/^option trust-remote-code "yes" is not true or false/);
    expect(problems[2]).toMatch(/^option mtp-tokens "two" is not a number/);
    expect(one(sglang, deployment('sglang', agg(shape(8)), { options: { 'extra-args': '--x "unclosed' } }))).toEqual([
      'an unclosed " in "--x \\"unclosed": fix the option in the cluster profile (engines.sglang)',
    ]);
    expect(one(trt, deployment('trt', agg(shape(8)), { options: { 'llm-api-options': '{"a":' } }))[0]).toMatch(
      /^option llm-api-options is not JSON/,
    );
    expect(one(dynamoTrt, deployment('dynamo-trt', P1D1, { options: { env: 'not-a-pair' } }))[0]).toMatch(
      /^option env: "not-a-pair" is not NAME=value/,
    );
  });

  it('rules on what no engine can serve', () => {
    expect(one(vllm, deployment('vllm', agg(shape(8)), { specDecoding: 'draft_model' }))[0]).toMatch(
      /draft_model needs a draft checkpoint/,
    );
    expect(one(sglang, deployment('sglang', agg(shape(8)), { maxModelLen: 1024 }))).toEqual([
      'max-model-len 1024 is below isl + osl (2048): requests that long would be rejected; raise max-model-len',
    ]);
    expect(one(trt, deployment('sglang', agg(shape(8))))[0]).toMatch(
      /^framework sglang is not served by this adapter \(it serves trt\)/,
    );
    expect(one(dynamoVllm, deployment('dynamo-vllm', disagg(pool(0, shape(1)), pool(1, shape(8)))))[0]).toMatch(
      /prefill num-worker 0/,
    );
  });

  it('accepts every golden case', () => {
    for (const k of CASES) expect(k.adapter.check(k.d), k.name).toEqual([]);
  });
});

describe('splitArgs', () => {
  it('splits like a shell', () => {
    expect(splitArgs(`  --a 1 --b 'x y' --c "q \\"z\\"" d\\ e  `)).toEqual(['--a', '1', '--b', 'x y', '--c', 'q "z"', 'd e']);
    expect(splitArgs(`--json '{"k": [1, 2]}'`)).toEqual(['--json', '{"k": [1, 2]}']);
    expect(splitArgs(`''`)).toEqual(['']);
    expect(() => splitArgs(`'open`)).toThrow(/unclosed '/);
  });
});

describe('synthetic acceptance', () => {
  // Qwen3.5's golden curve (thinking_on) at the draft lengths the adapters run.
  const golden = { curve: { 1: 1.93, 2: 2.73, 3: 3.39 }, source: 'qwen3.5_mtp.yaml qwen3.5-397b-a17b-nvfp4 thinking_on' };
  const mtp = (framework: string, layout: Layout, o: Partial<Deployment> = {}): Deployment =>
    deployment(framework, layout, { specDecoding: 'mtp', syntheticAcceptance: golden, ...o });
  const processes = (adapter: EngineAdapter, d: Deployment): EngineProcess[] =>
    render({ adapter, name: 'x', d }).launch.processes;

  it('injects the golden AL of the draft length each engine runs, with its own knob', () => {
    // vLLM (2 drafts by default): synthetic rejection sampling in the speculative config, as the injector writes it.
    const [server] = processes(vllm, mtp('vllm', agg(shape(8))));
    const spec = server!.command[server!.command.indexOf('--speculative-config') + 1]!;
    expect(JSON.parse(spec)).toEqual({
      method: 'mtp',
      num_speculative_tokens: 2,
      rejection_sample_method: 'synthetic',
      synthetic_acceptance_length: 2.73,
    });
    // SGLang: the simulated-acceptance variables in every worker's environment (mtp-tokens 3 → 3.39).
    for (const p of processes(dynamoSglang, mtp('dynamo-sglang', P1D1, { options: { 'mtp-tokens': 3 } })).filter(
      (p) => p.role !== 'frontend' && p.role !== 'infra',
    ))
      expect(p.env).toMatchObject({
        SGLANG_SIMULATE_ACC_LEN: '3.39',
        SGLANG_SIMULATE_ACC_METHOD: 'match-expected',
        SGLANG_SIMULATE_ACC_TOKEN_MODE: 'real-draft-token',
      });
    // TensorRT-LLM counts accepted drafts only: AL − 1 (3 MTP layers without attention DP, 1 with).
    expect(processes(trt, mtp('trt', agg(shape(8))))[0]!.env.TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS).toBe('2.39');
    expect(processes(trt, mtp('trt', agg(dep(8))))[0]!.env.TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS).toBe('0.93');
  });

  it('tells the client the AL injected into the workers that decode, to check the measured one against', () => {
    const client = (adapter: EngineAdapter, d: Deployment): ClientSettings => render({ adapter, name: 'x', d }).launch.client;
    expect(client(vllm, mtp('vllm', agg(shape(8)))).expectedAcceptanceLength).toBe(2.73);
    expect(client(sglang, mtp('sglang', agg(shape(8)), { options: { 'mtp-tokens': 1 } })).expectedAcceptanceLength).toBe(1.93);
    expect(client(dynamoVllm, mtp('dynamo-vllm', P1D1)).expectedAcceptanceLength).toBe(2.73);
    // TensorRT-LLM's draft length follows the decoder's shape: 1 MTP layer on attention-DP decoders, whatever the prefill runs.
    expect(client(dynamoTrt, mtp('dynamo-trt', disagg(pool(1, shape(4)), pool(1, dep(8))))).expectedAcceptanceLength).toBe(1.93);
    expect(client(dynamoTrt, mtp('dynamo-trt', disagg(pool(1, dep(4)), pool(1, shape(8))))).expectedAcceptanceLength).toBe(3.39);
    // Real acceptance, or no speculative decoding: nothing to check.
    expect(client(vllm, mtp('vllm', agg(shape(8)), { syntheticAcceptance: undefined })).expectedAcceptanceLength).toBeUndefined();
    expect(
      client(vllm, deployment('vllm', agg(shape(8)), { syntheticAcceptance: golden })).expectedAcceptanceLength,
    ).toBeUndefined();
  });

  it('injects nothing for real acceptance, and refuses a draft length the curve does not have', () => {
    const [server] = processes(vllm, mtp('vllm', agg(shape(8)), { syntheticAcceptance: undefined }));
    expect(JSON.parse(server!.command[server!.command.indexOf('--speculative-config') + 1]!)).toEqual({
      method: 'mtp',
      num_speculative_tokens: 2,
    });
    expect(processes(sglang, deployment('sglang', agg(shape(8)), { syntheticAcceptance: golden }))[0]!.env).toEqual({});
    expect(() => processes(vllm, mtp('vllm', agg(shape(8)), { options: { 'mtp-tokens': 7 } }))).toThrow(
      'no golden AL at draft length 7 (qwen3.5_mtp.yaml qwen3.5-397b-a17b-nvfp4 thinking_on has 1, 2, 3); set the engine',
    );
  });
});
