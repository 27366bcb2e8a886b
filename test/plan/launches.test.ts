import { describe, expect, it } from 'vitest';
import { benchOptions } from '../../src/cli/bench.js';
import { sim } from '../../src/engines/index.js';
import { benchArgsOf, benchOptionsOf, goldenFor, replayArgsOf, replayOptionsOf } from '../../src/launch/index.js';
import { planLaunch } from '../../src/plan/index.js';
import type { LaunchPlan } from '../../src/plan/index.js';
import { traceBenchOptions } from '../../src/cli/bench-trace.js';
import type { ReplayOptions } from '../../src/bench/replay/index.js';
import { deploymentOf, nodesNeeded, placeWorkers, planRun } from '../../src/plan/index.js';
import { LOCAL_PROFILE } from '../../src/clusters/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { disaggRow, simCluster, singleRow } from '../launch/fixtures.js';

describe('planRun', () => {
  it('runs the evals of a launch that injects synthetic acceptance on a launch of their own, with real acceptance', async () => {
    const settings = ['SYNTHETIC_ACCEPTANCE=true'];
    const row = disaggRow({
      model: 'Qwen/Qwen3.5-397B-A17B',
      'model-prefix': 'qwen3.5',
      'spec-decoding': 'mtp',
      'run-eval': true,
      prefill: { ...disaggRow().prefill, 'additional-settings': settings },
    });
    const groups = planRun([row], 'lab');
    expect(groups.map((g) => [g.id, g.points.length, g.evals.length])).toEqual([
      ['g0', 2, 0],
      ['g1', 0, 1],
    ]);
    const golden = await goldenFor(undefined);
    const [throughput, evals] = groups.map((g) =>
      deploymentOf(g, { framework: 'sim', modelPath: row.model, gpu: 'h200', options: {}, golden }),
    );
    expect(throughput!.syntheticAcceptance?.curve[3]).toBe(3.39);
    expect(evals!.syntheticAcceptance).toBeUndefined();
    // Without the opt-in the launch keeps its evals, and injects nothing.
    const [plain] = planRun([{ ...row, prefill: disaggRow().prefill }], 'lab');
    expect(plain!.evals).toHaveLength(1);
    expect(
      deploymentOf(plain!, { framework: 'sim', modelPath: row.model, gpu: 'h200', options: {}, golden }).syntheticAcceptance,
    ).toBeUndefined();
  });

  it('groups single-node rows that differ only in conc into one launch, points by conc', () => {
    const rows: MatrixRow[] = [
      singleRow({ conc: 4 }),
      singleRow({ conc: 1 }),
      singleRow({ tp: 2, conc: 2 }),
      singleRow({ conc: 2 }),
    ];
    const groups = planRun(rows, 'lab');
    expect(groups.map((g) => g.points.map((p) => p.conc))).toEqual([[1, 2, 4], [2]]);
    expect(groups[0]!.label).toBe('llama3.1-8b fp8 sim TP1 256/32');
    expect(groups[1]!.label).toBe('llama3.1-8b fp8 sim TP2 256/32');
  });

  it('labels a launch with its topology in the one notation (TP4PP2, TEP8, not TP4-PP2, TP8-EP8)', () => {
    const [pp, ep] = planRun([singleRow({ tp: 4, pp: 2, conc: 1 }), singleRow({ tp: 8, ep: 8, conc: 1 })], 'lab');
    expect(pp!.label).toBe('llama3.1-8b fp8 sim TP4PP2 256/32');
    expect(ep!.label).toBe('llama3.1-8b fp8 sim TEP8 256/32');
  });

  it('names points exactly as the reference RESULT_FILENAME, the runner standing in for the machine', () => {
    const [g] = planRun([singleRow({ conc: 8 })], 'lab');
    expect(g!.points[0]!.resultFilename).toBe(
      'llama3.1-8b_256_32_fp8_sim_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc8_lab',
    );
  });

  it('gives a multinode row one launch, its points the per-conc file names the multinode workflow parses', () => {
    const [g] = planRun([disaggRow({ conc: [4, 8] })], 'lab');
    expect(g!.label).toBe('dsr1 fp8 dynamo-sglang 1P1D TP8/TP8 1024/32');
    expect(g!.points.map((p) => p.resultFilename.slice(p.resultFilename.indexOf('_lab')))).toEqual([
      '_lab_conc4_gpus_16_ctx_8_gen_8',
      '_lab_conc8_gpus_16_ctx_8_gen_8',
    ]);
    const recipe = disaggRow({
      prefill: { ...disaggRow().prefill, 'additional-settings': ['CONFIG_FILE=recipes/sglang/dsr1/1p1d.yaml'] },
    });
    expect(planRun([recipe], 'lab')[0]!.points[0]!.multinodeSuffix).toBe('_1p1d_conc4_gpus_16_ctx_8_gen_8');
  });

  it('gives each agentic point a launch of its own, and leaves eval-only rows out of the benchmarks', () => {
    const agentic = {
      ...singleRow(),
      'scenario-type': 'agentic-coding',
      'kv-offloading': 'none',
      'total-cpu-dram-gb': 0,
      duration: 1800,
    };
    const groups = planRun(
      [
        agentic as unknown as MatrixRow,
        { ...agentic, conc: 2 } as unknown as MatrixRow,
        singleRow({ conc: 16, 'run-eval': true, 'eval-only': true }),
      ],
      'lab',
    );
    // A replay measures the prefix cache it builds: no two agentic points share an engine.
    expect(groups.slice(0, 2).map((g) => g.points.map((p) => p.conc))).toEqual([[1], [2]]);
    expect(groups[0]!.label).toBe('llama3.1-8b fp8 sim TP1 agentic-coding kv none');
    // RESULT_FILENAME as the workflow builds it for an agentic row (no disagg key: false).
    expect(groups[1]!.points[0]!.resultFilename).toBe(
      'llama3.1-8b_256_32_fp8_sim_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc2_lab',
    );
    expect(groups[2]!.points).toEqual([]);
    expect(groups[2]!.evals.map((e) => e.concs)).toEqual([[16]]);
    // eval_<exp>_<RF>, as the reference names the eval artifact.
    expect(groups[2]!.evals[0]!.dir).toBe(
      'eval_llama3.1-8b_256_32_llama3.1-8b_256_32_fp8_sim_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc16_lab',
    );
  });
});

describe('placement', () => {
  it('packs 5P2D TP1/DEP8 as srtctl does: prefill on node 0, each decode worker on its own node', () => {
    const layout = {
      kind: 'disaggregated' as const,
      prefill: { tp: 1, pp: 1, ep: 1, dpAttn: false, dcp: 1, pcp: 1, workers: 5 },
      decode: { tp: 8, pp: 1, ep: 8, dpAttn: true, dcp: 1, pcp: 1, workers: 2 },
    };
    expect(nodesNeeded(layout, 8)).toBe(3);
    const p = placeWorkers(layout, 8, ['a', 'b', 'c']);
    expect(p.workers.map((w) => `${w.role}${w.index}@${w.hosts.join('+')}:${w.gpus.map((g) => g.join(',')).join('|')}`)).toEqual([
      'prefill0@a:0',
      'prefill1@a:1',
      'prefill2@a:2',
      'prefill3@a:3',
      'prefill4@a:4',
      'decode0@b:0,1,2,3,4,5,6,7',
      'decode1@c:0,1,2,3,4,5,6,7',
    ]);
    expect(() => placeWorkers(layout, 8, ['a', 'b'])).toThrow(/not enough nodes.*needs 3 nodes/);
  });

  it('spans nodes with a worker larger than one', () => {
    const layout = { kind: 'aggregated' as const, worker: { tp: 16, pp: 1, ep: 1, dpAttn: false, dcp: 1, pcp: 1 } };
    expect(placeWorkers(layout, 8, ['a', 'b']).workers[0]!.hosts).toEqual(['a', 'b']);
  });
});

const reasonsOf = (plan: LaunchPlan): string[] => (plan.kind === 'cannot-run' ? plan.reasons : []);

describe('planLaunch', () => {
  it('runs GPU engines on the simulator on a simulated cluster, modelling the row’s own GPU', () => {
    const [g] = planRun([disaggRow({ runner: 'b200-multinode' })], 'lab');
    const plan = planLaunch(g!, { cluster: simCluster(), frontierCommand: ['frontier'] });
    expect(reasonsOf(plan)).toEqual([]);
    if (plan.kind !== 'adapter') throw new Error(`planned as ${plan.kind}`);
    expect(plan.adapter).toBe(sim);
    expect(plan.simulated).toBe(true);
    expect(plan.engine).toBe('sim (for dynamo-sglang)');
    expect(plan.deployment.gpu).toBe('b200');
    expect(plan.hardware).toBe('b200');
    expect(plan.gpus).toBe(16);
    expect(plan.nodes).toBe(2);
    // Its workers on the plan's nodes, by name: prefill on node0, decode from a fresh node.
    expect(plan.placement.workers.map((w) => `${w.role}@${w.hosts.join('+')}`)).toEqual(['prefill@node0', 'decode@node1']);
  });

  it("decides the launch's hardware once: the row's GPU on a simulating cluster, the cluster's on a real one", () => {
    const [g] = planRun([singleRow({ runner: 'mi355x' })], 'lab');
    const simulated = planLaunch(g!, { cluster: simCluster(), frontierCommand: ['frontier'] });
    const real = planLaunch(g!, { cluster: { ...LOCAL_PROFILE, simulate: false, gpu: 'b200' }, frontierCommand: ['frontier'] });
    if (simulated.kind === 'cannot-run' || real.kind === 'cannot-run') throw new Error('planned as cannot-run');
    expect([simulated.hardware, simulated.deployment.gpu]).toEqual(['mi355x', 'mi355x']);
    expect([real.hardware, real.deployment.gpu]).toEqual(['b200', 'b200']);
  });

  it('says why a launch cannot run: too few nodes, an engine that cannot model it, an unknown framework', () => {
    const [big] = planRun([disaggRow({ decode: { ...disaggRow().decode, 'num-worker': 4 } })], 'lab');
    expect(reasonsOf(planLaunch(big!, { cluster: simCluster({ nodes: 2 }), frontierCommand: ['frontier'] }))).toEqual([
      'needs 5 nodes of 8 GPUs (40 GPUs); cluster test-sim has 2',
    ]);
    const [q8] = planRun([singleRow({ precision: 'q8' })], 'lab');
    expect(reasonsOf(planLaunch(q8!, { cluster: simCluster(), frontierCommand: ['frontier'] }))[0]).toMatch(
      /precision "q8": the simulated engine models bf16, fp8, fp4/,
    );
    const [unknown] = planRun([singleRow({ framework: 'tgi' })], 'lab');
    expect(reasonsOf(planLaunch(unknown!, { cluster: { ...LOCAL_PROFILE }, frontierCommand: ['frontier'] }))).toEqual([
      'no engine adapter for framework "tgi"',
    ]);
  });
});

describe('point benchmark settings', () => {
  it('an agentic point: the job-script replay and the in-process one are the same, expected AL included', async () => {
    const point = {
      baseUrl: 'http://127.0.0.1:9',
      model: 'm',
      conc: 4,
      durationS: 600,
      warmupRequestsPerLane: 10,
      timeScale: 4,
      maxContextLength: 131072,
      dynamoSessionBinding: false,
      artifacts: '/tmp/artifacts',
      expectedAcceptanceLength: 3.39,
    };
    const args = replayArgsOf(point, '/tmp/traces.jsonl');
    expect(args).toContain('--expected-acceptance-length');
    const parsed = (await traceBenchOptions(args.slice(1)))!;
    // The command line leaves the minimum sample to the replay's default, the same 10.
    const inProcess: Partial<ReplayOptions> = replayOptionsOf(point);
    expect(parsed.options.failedRequestMinSample ?? 10).toBe(inProcess.failedRequestMinSample);
    delete inProcess.failedRequestMinSample;
    expect(parsed.options).toMatchObject(inProcess);
    const real = { ...point, expectedAcceptanceLength: undefined };
    expect(replayArgsOf(real, '/tmp/traces.jsonl')).not.toContain('--expected-acceptance-length');
  });

  it('the job-script command line and the in-process options are the same benchmark', async () => {
    const client = {
      backend: 'vllm',
      endpoint: '/v1/completions' as const,
      tokenizer: 'gpt2',
      useChatTemplate: true,
      timeScale: 4,
    };
    const point = { baseUrl: 'http://127.0.0.1:9', model: 'm', isl: 1024, osl: 128, conc: 16, client };
    const parsed = await benchOptions(benchArgsOf(point, '/tmp/x.json').slice(1));
    expect(parsed!.out).toBe('/tmp/x.json');
    expect({ ...parsed!.options, goodput: undefined, apiKey: undefined }).toEqual({
      ...benchOptionsOf(point),
      goodput: undefined,
      apiKey: undefined,
    });
    // DeepSeek-V4 MTP rows frame prompts with its encoder, as InferenceX's dsv4 scripts pass --dsv4.
    const dsv4 = { ...point, client: { ...client, dsv4: true } };
    expect(benchArgsOf(dsv4, '/tmp/x.json')).toContain('--dsv4');
    expect((await benchOptions(benchArgsOf(dsv4, '/tmp/x.json').slice(1)))!.options.dsv4).toBe(true);
    expect(benchOptionsOf(dsv4).dsv4).toBe(true);
    // Synthetic acceptance: the AL injected, checked against the decoding servers' counters.
    const spec = {
      ...point,
      client: { ...client, expectedAcceptanceLength: 3.39 },
      specDecodeMetricsUrls: ['http://10.0.0.2:8001/metrics', 'http://10.0.0.3:8001/metrics'],
    };
    const specParsed = (await benchOptions(benchArgsOf(spec, '/tmp/x.json').slice(1)))!.options;
    expect(specParsed).toMatchObject({
      expectedAcceptanceLength: 3.39,
      specDecodeMetricsUrls: spec.specDecodeMetricsUrls,
    });
    expect({ ...specParsed, goodput: undefined, apiKey: undefined }).toEqual({
      ...benchOptionsOf(spec),
      goodput: undefined,
      apiKey: undefined,
    });
    expect(benchOptionsOf(point)).toMatchObject({
      concurrency: 16,
      warmups: 32,
      dataset: { numPrompts: 160, inputLen: 1024, outputLen: 128, rangeRatio: 0.8 },
      percentiles: [90, 99, 99.9],
    });
  });
});
