import { describe, expect, it } from 'vitest';
import { flagSpans, tuneCommand, tuningProblems } from '../../src/engines/common.js';
import { dynamoVllm } from '../../src/engines/dynamo-vllm.js';
import { llamaCpp } from '../../src/engines/llamacpp.js';
import { sglang } from '../../src/engines/sglang.js';
import { trt } from '../../src/engines/trt.js';
import type { Deployment, EngineAdapter, EngineProcess, EngineTuning, Layout, WorkerShape } from '../../src/engines/types.js';
import { vllm } from '../../src/engines/vllm.js';
import { deploymentOf, planRun } from '../../src/plan/launches.js';
import { placeWorkers } from '../../src/plan/placement.js';
import type { SingleNodeRow } from '../../src/matrix/index.js';

const shape = (tp: number, o: Partial<WorkerShape> = {}): WorkerShape => ({
  tp,
  pp: 1,
  ep: 1,
  dpAttn: false,
  dcp: 1,
  pcp: 1,
  ...o,
});

const deployment = (framework: string, layout: Layout, tuning?: EngineTuning): Deployment => ({
  framework,
  model: 'org/model',
  modelPath: '/models/model',
  servedModelName: 'org/model',
  precision: 'fp8',
  image: 'img',
  gpu: 'h200',
  isl: 1024,
  osl: 1024,
  maxModelLen: 2304,
  specDecoding: 'none',
  maxConcurrency: 64,
  layout,
  options: {},
  ...(tuning ? { tuning } : {}),
});

function render(adapter: EngineAdapter, d: Deployment): EngineProcess[] {
  expect(adapter.check(d)).toEqual([]);
  let port = 8000;
  const hosts = ['node0', 'node1'];
  return adapter.launch(d, placeWorkers(d.layout, 8, hosts), { next: () => port++ }).processes;
}

const count = (argv: readonly string[], flag: string): number => argv.filter((w) => w === flag).length;
const valueOf = (argv: readonly string[], flag: string): string | undefined => argv[argv.indexOf(flag) + 1];

describe('tuneCommand: one shared edit of what an adapter renders', () => {
  const argv = ['vllm', 'serve', '/m', '--max-num-seqs', '64', '--enable-expert-parallel', '--kv-cache-dtype', 'fp8', '--x=1'];

  it('finds a flag with its value word, a bare flag, and flag=value', () => {
    expect(flagSpans(argv, '--max-num-seqs')).toEqual([[3, 5]]);
    expect(flagSpans(argv, '--enable-expert-parallel')).toEqual([[5, 6]]);
    expect(flagSpans(argv, '--x')).toEqual([[8, 9]]);
    expect(flagSpans(['--offset', '-1'], '--offset')).toEqual([[0, 2]]);
  });

  it('replaces a rendered flag in place (never twice), appends a new one, removes with the value', () => {
    expect(
      tuneCommand([...argv, '--max-num-seqs', '8'], {
        args: { '--max-num-seqs': '256', '--enforce-eager': true, '--x': ['a', 'b'] },
        remove: ['--kv-cache-dtype', '--enable-expert-parallel'],
      }),
    ).toEqual(['vllm', 'serve', '/m', '--max-num-seqs', '256', '--x', 'a', 'b', '--enforce-eager']);
  });

  it('a bare flag set with a value takes the value; a valued flag set to true loses it', () => {
    expect(tuneCommand(argv, { args: { '--enable-expert-parallel': 'yes', '--kv-cache-dtype': true } })).toEqual([
      'vllm',
      'serve',
      '/m',
      '--max-num-seqs',
      '64',
      '--enable-expert-parallel',
      'yes',
      '--kv-cache-dtype',
      '--x=1',
    ]);
  });
});

describe('adapters apply the deployment tuning', () => {
  const tuning: EngineTuning = {
    args: { '--max-num-seqs': '256', '--enable-chunked-prefill': true },
    env: { VLLM_USE_DEEP_GEMM: '1' },
    remove: ['--kv-cache-dtype'],
  };

  it('vllm: argv replaced, not duplicated; removed flag absent; env set', () => {
    const untuned = render(vllm, deployment('vllm', { kind: 'aggregated', worker: shape(8) }))[0]!;
    expect(valueOf(untuned.command, '--max-num-seqs')).toBe('64');
    expect(untuned.command).toContain('--kv-cache-dtype');
    const [p] = render(vllm, deployment('vllm', { kind: 'aggregated', worker: shape(8) }, tuning));
    expect(count(p!.command, '--max-num-seqs')).toBe(1);
    expect(valueOf(p!.command, '--max-num-seqs')).toBe('256');
    expect(p!.command).not.toContain('--kv-cache-dtype');
    expect(p!.command).not.toContain('fp8');
    expect(p!.command.at(-1)).toBe('--enable-chunked-prefill');
    expect(p!.env.VLLM_USE_DEEP_GEMM).toBe('1');
  });

  it('tuning wins over the cluster profile options (extra-args, env)', () => {
    const d = {
      ...deployment('vllm', { kind: 'aggregated', worker: shape(8) }, tuning),
      options: { 'extra-args': '--max-num-seqs 32', env: 'VLLM_USE_DEEP_GEMM=0 OTHER=1' },
    };
    const [p] = render(vllm, d);
    expect(count(p!.command, '--max-num-seqs')).toBe(1);
    expect(valueOf(p!.command, '--max-num-seqs')).toBe('256');
    expect(p!.env).toMatchObject({ VLLM_USE_DEEP_GEMM: '1', OTHER: '1' });
  });

  it('every node of a worker across nodes is tuned', () => {
    const processes = render(
      vllm,
      deployment(
        'vllm',
        { kind: 'aggregated', worker: shape(16, { ep: 16, dpAttn: true }) },
        { remove: ['--enable-expert-parallel'] },
      ),
    );
    expect(processes).toHaveLength(2);
    for (const p of processes) expect(p.command).not.toContain('--enable-expert-parallel');
  });

  it('sglang and trt: the same shared edit', () => {
    const [s] = render(
      sglang,
      deployment(
        'sglang',
        { kind: 'aggregated', worker: shape(8) },
        { args: { '--cuda-graph-max-bs': '128' }, remove: ['--enable-metrics'] },
      ),
    );
    expect(count(s!.command, '--cuda-graph-max-bs')).toBe(1);
    expect(valueOf(s!.command, '--cuda-graph-max-bs')).toBe('128');
    expect(s!.command).not.toContain('--enable-metrics');
    const [t] = render(trt, deployment('trt', { kind: 'aggregated', worker: shape(8) }, { args: { '--max_batch_size': '512' } }));
    expect(count(t!.command, '--max_batch_size')).toBe(1);
    expect(valueOf(t!.command, '--max_batch_size')).toBe('512');
  });

  it('llama.cpp too', () => {
    const d: Deployment = {
      ...deployment('llama.cpp', { kind: 'aggregated', worker: shape(1) }, { args: { '-t': '2' }, env: { X: '1' } }),
      gpu: 'cpu',
    };
    let port = 8000;
    const [p] = llamaCpp.launch(d, placeWorkers(d.layout, 1, ['127.0.0.1']), { next: () => port++ }).processes;
    expect(count(p!.command, '-t')).toBe(1);
    expect(valueOf(p!.command, '-t')).toBe('2');
    expect(p!.env.X).toBe('1');
  });

  it('dynamo, disaggregated: prefill and decode get their own role settings; frontend and infra nothing', () => {
    const layout: Layout = {
      kind: 'disaggregated',
      prefill: { workers: 1, ...shape(4) },
      decode: { workers: 1, ...shape(4) },
    };
    const processes = render(
      dynamoVllm,
      deployment('dynamo-vllm', layout, {
        prefill: { args: { '--max-num-seqs': '8' }, env: { ROLE: 'p' }, remove: ['--kv-cache-dtype'] },
        decode: { args: { '--max-num-seqs': '512' }, env: { ROLE: 'd' } },
      }),
    );
    const role = (r: string): EngineProcess => processes.find((p) => p.role === r)!;
    expect(valueOf(role('prefill').command, '--max-num-seqs')).toBe('8');
    expect(role('prefill').command).not.toContain('--kv-cache-dtype');
    expect(role('prefill').env.ROLE).toBe('p');
    expect(valueOf(role('decode').command, '--max-num-seqs')).toBe('512');
    expect(role('decode').command).toContain('--kv-cache-dtype');
    expect(role('decode').env.ROLE).toBe('d');
    for (const p of processes.filter((x) => x.role === 'frontend' || x.role === 'infra')) expect(p.env.ROLE).toBeUndefined();
  });

  it('a disaggregated deployment tuned for one role leaves the other as rendered', () => {
    const layout: Layout = { kind: 'disaggregated', prefill: { workers: 1, ...shape(4) }, decode: { workers: 1, ...shape(4) } };
    const plain = render(dynamoVllm, deployment('dynamo-vllm', layout)).find((p) => p.role === 'decode')!;
    const tuned = render(dynamoVllm, deployment('dynamo-vllm', layout, { prefill: { env: { P: '1' } } })).find(
      (p) => p.role === 'decode',
    )!;
    expect(tuned).toEqual(plain);
  });

  it('tuningProblems: a remove of a flag the adapter does not render', () => {
    const d = deployment('vllm', { kind: 'aggregated', worker: shape(8) }, { remove: ['--kv-cache-dtype', '--no-such-flag'] });
    const untuned = vllm.launch({ ...d, tuning: undefined } as Deployment, placeWorkers(d.layout, 8, ['n0']), { next: () => 1 });
    expect(tuningProblems(d, untuned)).toEqual([
      expect.stringMatching(/^engine-tuning removes --no-such-flag, which the vllm adapter does not render/),
    ]);
  });
});

describe('planning: tuning that differs by conc splits launches', () => {
  const row = (conc: number, tuning?: SingleNodeRow['engine-tuning']): SingleNodeRow => ({
    image: 'img',
    model: 'org/model',
    'model-prefix': 'm',
    precision: 'fp8',
    framework: 'vllm',
    runner: 'h200',
    isl: 1024,
    osl: 1024,
    tp: 8,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    conc,
    'max-model-len': 2304,
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    'exp-name': 'm_1k1k',
    disagg: false,
    'run-eval': false,
    ...(tuning ? { 'engine-tuning': tuning } : {}),
  });

  it('rows that differ only in conc share one launch; different tuning makes different launches', () => {
    expect(planRun([row(4), row(8), row(16)], 'c')).toHaveLength(1);
    const small = { args: { '--max-num-seqs': '16' } };
    const large = { args: { '--max-num-seqs': '512' } };
    const groups = planRun([row(4, small), row(8, small), row(32, large), row(64, large)], 'c');
    expect(groups.map((g) => g.points.map((p) => p.conc))).toEqual([
      [4, 8],
      [32, 64],
    ]);
    const settings = { framework: 'vllm', modelPath: '/m', gpu: 'h200', options: {} };
    expect(deploymentOf(groups[0]!, settings)).toMatchObject({ tuning: small, maxConcurrency: 8 });
    expect(deploymentOf(groups[1]!, settings)).toMatchObject({ tuning: large, maxConcurrency: 64 });
    expect('tuning' in deploymentOf(planRun([row(4)], 'c')[0]!, settings)).toBe(false);
  });
});
