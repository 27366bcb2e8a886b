import { describe, expect, it } from 'vitest';
import {
  Cluster,
  buildTopology,
  engineSpec,
  findHardware,
  findModel,
  kvTransferMs,
  simulateClosedLoop,
  stepTime,
} from '../../src/sim/index.js';
import type { DeploymentOptions, Efficiency, StepLoad } from '../../src/sim/index.js';
import { allToAllMs, imbalanceFactor } from '../../src/sim/perf.js';

/** Each factor of the performance model moves the figures the way it should (docs/simulator.md). */

const dsr1 = findModel('deepseek-r1');
const spec = (
  options: { hardware?: string; tp?: number; ep?: number; dpAttn?: boolean; efficiency?: Partial<Efficiency> } = {},
) =>
  engineSpec({
    model: dsr1,
    hardware: findHardware(options.hardware ?? 'h200'),
    precision: 'fp8',
    tp: options.tp ?? 8,
    ep: options.ep,
    dpAttn: options.dpAttn,
    efficiency: options.efficiency,
  });
const decode = (seqs: number, context: number): StepLoad => ({
  prefillTokens: 0,
  prefillAttention: 0,
  prefillContext: 0,
  decodeSeqs: seqs,
  decodeContext: seqs * context,
});
const run = (options: Partial<DeploymentOptions>, load: { conc: number; isl: number; osl: number; requests?: number }) =>
  simulateClosedLoop(buildTopology({ model: 'deepseek-r1', hardware: 'h200', precision: 'fp8', tp: 8, ...options }), {
    concurrency: load.conc,
    requests: load.requests ?? load.conc * 3,
    isl: load.isl,
    osl: load.osl,
  });

describe('performance-model factors', () => {
  it('attentionMemory: reading the KV cache slows decode with batch × context, and only then', () => {
    const fast = spec({ efficiency: { attentionMemory: 0.8 } });
    const slow = spec({ efficiency: { attentionMemory: 0.4 } });
    const gap = (load: StepLoad): number => stepTime(slow, load).ms - stepTime(fast, load).ms;
    expect(gap(decode(64, 8192))).toBeGreaterThan(2);
    // The same batch with almost no context: the KV term nearly vanishes.
    expect(gap(decode(64, 1))).toBeLessThan(gap(decode(64, 8192)) / 1000);
    // A decode step costs more per sequence as the context grows.
    const s = spec();
    expect(stepTime(s, decode(64, 16384)).ms).toBeGreaterThan(stepTime(s, decode(64, 1024)).ms * 1.3);
  });

  it('expert imbalance: the Poisson maximum, large at few tokens per expert, vanishing at many', () => {
    expect(imbalanceFactor(1, 5, 1)).toBe(1);
    expect(imbalanceFactor(8, 5, 0)).toBe(1);
    expect(imbalanceFactor(8, 1, 1)).toBeGreaterThan(imbalanceFactor(8, 100, 1));
    expect(imbalanceFactor(8, 100, 1)).toBeGreaterThan(imbalanceFactor(8, 10_000, 1));
    expect(imbalanceFactor(64, 1e-6, 1)).toBe(64); // never more than all on one rank
    expect(imbalanceFactor(64, 10, 1)).toBeGreaterThan(imbalanceFactor(4, 10, 1));
    // In a step: expert parallelism with imbalance costs more than without, most at small batches.
    const ratio = (tokens: number): number => {
      const load: StepLoad = {
        prefillTokens: tokens,
        prefillAttention: tokens * 64,
        prefillContext: tokens,
        decodeSeqs: 0,
        decodeContext: 0,
      };
      return (
        stepTime(spec({ ep: 8, efficiency: { expertImbalance: 1 } }), load).ms /
        stepTime(spec({ ep: 8, efficiency: { expertImbalance: 0 } }), load).ms
      );
    };
    expect(ratio(64)).toBeGreaterThan(1);
    expect(ratio(16384)).toBeGreaterThan(1);
  });

  it('all-to-all: latency plus bytes per hop, the NIC beyond the scale-up domain', () => {
    const s = spec({ ep: 8 });
    const bytes = 64e6;
    expect(allToAllMs(s, 8, bytes)).toBeGreaterThan(allToAllMs(s, 8, bytes / 4));
    // Small messages cost the hop's latency.
    expect(allToAllMs(s, 8, 1)).toBeCloseTo(s.efficiency.collectiveLatencyUs / 1e3, 6);
    // Sixteen H200s span two 8-GPU NVLink domains: half the bytes cross the NIC, slower, and the hop is the NIC's.
    expect(allToAllMs(s, 16, bytes)).toBeGreaterThan(allToAllMs(s, 8, bytes) * 2);
    expect(allToAllMs(s, 16, 1)).toBeCloseTo(s.efficiency.scaleOutLatencyUs / 1e3, 6);
    // On GB200 NVL72 the same sixteen stay inside the domain.
    const gb = engineSpec({ model: dsr1, hardware: findHardware('gb200'), precision: 'fp8', tp: 8, ep: 8 });
    expect(allToAllMs(gb, 16, bytes)).toBeLessThan(allToAllMs(s, 16, bytes));
  });

  it('data-parallel attention: the step waits for the busiest rank', () => {
    const s = spec({ ep: 8, dpAttn: true });
    const even = { ...decode(64, 4096), busiestRank: { tokens: 8, attentionWork: 8 * 4096, context: 8 * 4096 } };
    const skewed = { ...decode(64, 4096), busiestRank: { tokens: 20, attentionWork: 20 * 4096, context: 20 * 4096 } };
    expect(stepTime(s, skewed).ms).toBeGreaterThan(stepTime(s, even).ms);
  });

  it('data-parallel attention: one scheduler per rank, each with its own max-num-seqs and KV share', () => {
    const topology = buildTopology({
      model: 'deepseek-r1',
      hardware: 'h200',
      precision: 'fp8',
      tp: 8,
      ep: 8,
      dpAttn: true,
      limits: { maxNumSeqs: 16 },
      efficiency: { requestOverheadMs: 0 },
    });
    const cluster = new Cluster(topology);
    expect(cluster.instances).toHaveLength(8);
    expect(cluster.instances.every((i) => i.gpus === 1)).toBe(true);
    // 64 requests: 8 ranks × 16 each run at once; one scheduler of 16 would leave 48 waiting.
    for (let id = 0; id < 64; id++) cluster.submit({ id, promptTokens: 256, outputTokens: 64 }, 0);
    cluster.advance(50, () => undefined);
    const stats = cluster.stats();
    expect(stats.running).toBe(64);
    expect(stats.waiting).toBe(0);
  });

  it('scheduling: SGLang prefills while decodes wait, vLLM mixes prefill chunks into the decode batch', () => {
    const stepAfterArrival = (engine: string): StepLoad => {
      const cluster = new Cluster(
        buildTopology({
          model: 'deepseek-r1',
          hardware: 'h200',
          precision: 'fp8',
          tp: 8,
          engine,
          efficiency: { requestOverheadMs: 0 },
        }),
      );
      const loads: StepLoad[] = [];
      cluster.instances[0]!.onStep = (_start, _end, _time, load) => loads.push({ ...load });
      for (let id = 0; id < 8; id++) cluster.submit({ id, promptTokens: 512, outputTokens: 1000 }, 0);
      cluster.advance(200, () => undefined); // prefilled, decoding
      cluster.submit({ id: 99, promptTokens: 4096, outputTokens: 10 }, cluster.now);
      cluster.advance(cluster.nextEventTime()!, () => undefined);
      cluster.advance(cluster.nextEventTime()!, () => undefined);
      return loads.find((l) => l.prefillTokens === 4096)!;
    };
    expect(stepAfterArrival('sglang')).toMatchObject({ prefillTokens: 4096, decodeSeqs: 0 });
    expect(stepAfterArrival('dynamo-sglang')).toMatchObject({ decodeSeqs: 0 });
    expect(stepAfterArrival('vllm')).toMatchObject({ prefillTokens: 4096, decodeSeqs: 8 });
    expect(stepAfterArrival('trt')).toMatchObject({ decodeSeqs: 8 });
  });

  it('requestOverheadMs adds to TTFT and nothing to TPOT', () => {
    const load = { conc: 1, isl: 1024, osl: 64, requests: 2 };
    const base = run({ efficiency: { requestOverheadMs: 0 } }, load);
    const slow = run({ efficiency: { requestOverheadMs: 150 } }, load);
    expect(slow.medianTtftMs - base.medianTtftMs).toBeCloseTo(150, 6);
    expect(slow.medianTpotMs).toBeCloseTo(base.medianTpotMs, 9);
  });

  it('the router hop and the KV transfer latency add to a disaggregated TTFT only', () => {
    const load = { conc: 1, isl: 1024, osl: 16, requests: 2 };
    const disagg = (efficiency: Partial<Efficiency>) =>
      run({ prefillWorkers: 1, decodeWorkers: 1, efficiency: { requestOverheadMs: 0, ...efficiency } }, load).medianTtftMs;
    const base = disagg({ routerOverheadMs: 0, kvTransferLatencyMs: 0 });
    expect(disagg({ routerOverheadMs: 5, kvTransferLatencyMs: 0 }) - base).toBeCloseTo(5, 6);
    expect(disagg({ routerOverheadMs: 0, kvTransferLatencyMs: 7 }) - base).toBeCloseTo(7, 6);
    const agg = (routerOverheadMs: number) => run({ efficiency: { requestOverheadMs: 0, routerOverheadMs } }, load).medianTtftMs;
    expect(agg(50)).toBe(agg(0));
    const s = spec();
    expect(
      kvTransferMs({ ...s, efficiency: { ...s.efficiency, kvTransferLatencyMs: 3 } }, 1000, { lanes: 8, sameDomain: true }) -
        kvTransferMs(s, 1000, { lanes: 8, sameDomain: true }),
    ).toBeCloseTo(3 - s.efficiency.kvTransferLatencyMs, 9);
  });

  it('a disaggregated prefill pool saturates: TTFT climbs when prompts arrive faster than it prefills', () => {
    const at = (conc: number) =>
      run(
        { prefillWorkers: 1, decodeWorkers: 4, prefill: { tp: 8 }, decode: { tp: 8 } },
        { conc, isl: 8192, osl: 64, requests: conc * 3 },
      ).medianTtftMs;
    expect(at(64)).toBeGreaterThan(at(4) * 3);
  });

  it('compute and memory efficiency: prefill follows compute, small-batch decode follows memory', () => {
    const prefill: StepLoad = {
      prefillTokens: 8192,
      prefillAttention: 8192 * 4096,
      prefillContext: 8192,
      decodeSeqs: 0,
      decodeContext: 0,
    };
    expect(stepTime(spec({ efficiency: { compute: 0.3 } }), prefill).ms).toBeGreaterThan(
      stepTime(spec({ efficiency: { compute: 0.6 } }), prefill).ms * 1.5,
    );
    expect(stepTime(spec({ efficiency: { memory: 0.4 } }), decode(4, 1024)).ms).toBeGreaterThan(
      stepTime(spec({ efficiency: { memory: 0.8 } }), decode(4, 1024)).ms * 1.3,
    );
  });
});
