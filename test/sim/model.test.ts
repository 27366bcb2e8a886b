import { describe, expect, it } from 'vitest';
import {
  CatalogError,
  Cluster,
  DEFAULT_LIMITS,
  HARDWARE,
  Instance,
  MODELS,
  SimConfigError,
  buildTopology,
  engineSpec,
  findHardware,
  findModel,
  kvBytesPerTokenPerGpu,
  kvTransferMs,
  memory,
  simulateClosedLoop,
  stepTime,
  weightBytesPerGpu,
} from '../../src/sim/index.js';
import type { DeploymentOptions, SimRequest, SimulatedRun, TokenEvent, Topology } from '../../src/sim/index.js';

const run = (
  options: Partial<DeploymentOptions>,
  load: { conc: number; isl: number; osl: number; requests?: number },
): SimulatedRun =>
  simulateClosedLoop(buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8', ...options }), {
    concurrency: load.conc,
    requests: load.requests ?? load.conc * 6,
    isl: load.isl,
    osl: load.osl,
  });

describe('catalogs', () => {
  it('has the required accelerators, every number with a source URL', () => {
    expect(HARDWARE.map((h) => h.id)).toEqual(['h100', 'h200', 'b200', 'b300', 'gb200', 'gb300', 'mi300x', 'mi325x', 'mi355x']);
    for (const h of HARDWARE) {
      const numbers: [string, unknown][] = [
        ['gpusPerNode', h.gpusPerNode],
        ['scaleUpDomain', h.scaleUpDomain],
        ['memoryGB', h.memoryGB],
        ['memoryBandwidthTBps', h.memoryBandwidthTBps],
        ['scaleUpBandwidthGBps', h.scaleUpBandwidthGBps],
        ...Object.entries(h.denseTflops).map(([p, v]): [string, unknown] => [`denseTflops.${p}`, v]),
      ];
      for (const [field, value] of numbers) {
        if (value === null) continue;
        expect(typeof value, `${h.id}.${field}`).toBe('number');
        expect(h.sources[field], `${h.id}.${field} source`).toMatch(/^https:\/\//);
      }
      // Each precision is at least as fast as the wider one, where supported.
      expect(h.denseTflops.fp8!).toBeGreaterThanOrEqual(h.denseTflops.bf16!);
      if (h.denseTflops.fp4 !== null) expect(h.denseTflops.fp4).toBeGreaterThanOrEqual(h.denseTflops.fp8!);
    }
  });

  it('has the required models, each from a public config', () => {
    const ids = MODELS.map((m) => m.id);
    for (const id of [
      'deepseek-r1',
      'qwen3.5-397b-a17b',
      'minimax-m3',
      'kimi-k2',
      'glm-5',
      'gpt-oss-120b',
      'llama-3.1-8b',
      'llama-3.1-70b',
    ]) {
      expect(ids).toContain(id);
    }
    for (const m of MODELS) {
      expect(m.sources.config, m.id).toMatch(/^https:\/\/huggingface\.co\/.+config\.json$/);
      expect(m.activeParamsB).toBeLessThanOrEqual(m.totalParamsB);
      expect(m.attention.fullAttentionLayers + m.attention.slidingWindowLayers).toBeLessThanOrEqual(m.layers);
      if (m.moe) expect(m.moe.topK).toBeLessThan(m.moe.experts);
    }
  });

  it('finds hardware by runner label and models by Hugging Face name', () => {
    expect(findHardware('cluster:gb200-nv').id).toBe('gb200');
    expect(findHardware('B200').id).toBe('b200');
    expect(findModel('deepseek-ai/DeepSeek-R1-0528').id).toBe('deepseek-r1');
    expect(() => findModel('gpt-5')).toThrow(/unknown model "gpt-5"; known: deepseek-r1/);
    expect(() => findHardware('tpu-v5')).toThrow(CatalogError);
  });
});

describe('memory', () => {
  const llama = findModel('llama-3.1-8b');
  const dsr1 = findModel('deepseek-r1');

  it('weights per GPU: parameters × bytes per weight / GPUs', () => {
    const spec = engineSpec({ model: llama, hardware: findHardware('h100'), precision: 'bf16' });
    expect(weightBytesPerGpu(spec)).toBeCloseTo(8.03e9 * 2, -6);
    const tp8 = engineSpec({ model: dsr1, hardware: findHardware('h200'), precision: 'fp8', tp: 8 });
    expect(weightBytesPerGpu(tp8) / 1e9).toBeCloseTo(671 / 8, 0);
  });

  it('KV per token: GQA heads split by TP, an MLA latent replicated', () => {
    const bf16 = engineSpec({ model: llama, hardware: findHardware('h100'), precision: 'bf16' });
    expect(kvBytesPerTokenPerGpu(bf16).full).toBe(2 * 8 * 128 * 2 * 32); // K and V, 8 KV heads, dim 128, bf16, 32 layers
    const tp2 = engineSpec({ model: llama, hardware: findHardware('h100'), precision: 'bf16', tp: 2 });
    expect(kvBytesPerTokenPerGpu(tp2).full).toBe(kvBytesPerTokenPerGpu(bf16).full / 2);
    const mla = engineSpec({ model: dsr1, hardware: findHardware('h200'), precision: 'fp8', tp: 8 });
    expect(kvBytesPerTokenPerGpu(mla).full).toBe((512 + 64) * 1 * 61); // fp8 latent + rope key, every layer, on every GPU
  });

  it('dp-attention multiplies the cache: each rank holds its own sequences', () => {
    const h200 = findHardware('h200');
    const tp = memory(engineSpec({ model: dsr1, hardware: h200, precision: 'fp8', tp: 8, ep: 8 }));
    const dep = memory(engineSpec({ model: dsr1, hardware: h200, precision: 'fp8', tp: 8, ep: 8, dpAttn: true }));
    expect(dep.kvCapacityBytes).toBeGreaterThan(tp.kvCapacityBytes * 4);
  });

  it('refuses what does not fit or does not exist, saying why', () => {
    expect(() => engineSpec({ model: dsr1, hardware: findHardware('h100'), precision: 'fp8', tp: 1 })).toThrow(
      /needs 671\.0 GB of weights per GPU with tp 1: it does not fit on h100/,
    );
    expect(() => engineSpec({ model: llama, hardware: findHardware('h100'), precision: 'fp4' })).toThrow(
      /h100 has no fp4 tensor cores/,
    );
    expect(() => engineSpec({ model: llama, hardware: findHardware('h100'), precision: 'fp8', tp: 2, ep: 2 })).toThrow(
      SimConfigError,
    );
    expect(() => engineSpec({ model: dsr1, hardware: findHardware('h200'), precision: 'fp8', tp: 8, ep: 16 })).toThrow(
      /ep 16 is larger than tp 8/,
    );
  });
});

describe('step time (roofline)', () => {
  const spec = engineSpec({ model: findModel('llama-3.1-8b'), hardware: findHardware('h100'), precision: 'fp8' });
  const decode = (seqs: number, context: number) =>
    stepTime(spec, { prefillTokens: 0, prefillAttention: 0, prefillContext: 0, decodeSeqs: seqs, decodeContext: seqs * context });

  it('prefill is compute-bound, small-batch decode memory-bound', () => {
    const prefill = stepTime(spec, {
      prefillTokens: 8192,
      prefillAttention: 8192 * 4096,
      prefillContext: 8192,
      decodeSeqs: 0,
      decodeContext: 0,
    });
    expect(prefill.computeMs).toBeGreaterThan(prefill.memoryMs);
    const d = decode(1, 1024);
    expect(d.memoryMs).toBeGreaterThan(d.computeMs);
    // Reading 8 GB of fp8 weights at 80 % of 3.35 TB/s.
    expect(d.memoryMs).toBeCloseTo((8.03e9 / (3.35e12 * 0.8)) * 1e3 + 0.0, 0);
  });

  it('a decode step costs more with more sequences and longer contexts', () => {
    expect(decode(64, 1024).ms).toBeGreaterThan(decode(1, 1024).ms);
    expect(decode(64, 8192).ms).toBeGreaterThan(decode(64, 1024).ms);
  });

  it('tensor parallelism adds all-reduce time', () => {
    const tp4 = engineSpec({ model: findModel('llama-3.1-70b'), hardware: findHardware('h100'), precision: 'fp8', tp: 4 });
    expect(
      stepTime(tp4, { prefillTokens: 0, prefillAttention: 0, prefillContext: 0, decodeSeqs: 8, decodeContext: 8 * 1024 }).commMs,
    ).toBeGreaterThan(0);
    expect(decode(8, 1024).commMs).toBe(0);
  });
});

describe('scheduler', () => {
  const spec = engineSpec({ model: findModel('llama-3.1-8b'), hardware: findHardware('h100'), precision: 'fp8' });

  it('chunks a long prefill by the token budget, then emits the first token', () => {
    const instance = new Instance(spec, { ...DEFAULT_LIMITS, maxNumBatchedTokens: 8192 });
    instance.enqueue({ id: 0, promptTokens: 20000, outputTokens: 4 });
    const steps: number[] = [];
    for (let t = 0, emitted = 0; emitted === 0;) {
      t = instance.start(t)!;
      const out = instance.finish();
      steps.push(out[0]!.tokens);
      emitted = out[0]!.tokens;
    }
    expect(steps).toEqual([0, 0, 1]); // 8192 + 8192 + 3616 prompt tokens
    expect(instance.promptTokensComputed).toBe(20000);
  });

  it('caps the batch at max-num-seqs; the rest wait', () => {
    const instance = new Instance(spec, { ...DEFAULT_LIMITS, maxNumSeqs: 4 });
    for (let id = 0; id < 10; id++) instance.enqueue({ id, promptTokens: 16, outputTokens: 100 });
    instance.start(0);
    expect(instance.running).toHaveLength(4);
    expect(instance.waiting).toHaveLength(6);
  });

  it('preempts the newest sequence when the KV cache is full, and recomputes it later', () => {
    const tiny = engineSpec({
      model: findModel('llama-3.1-8b'),
      hardware: findHardware('h100'),
      precision: 'fp8',
      gpuMemoryUtilization: 0.2,
    });
    const instance = new Instance(tiny, DEFAULT_LIMITS);
    const perSeq = Math.floor(instance.maxSequenceTokens / 3);
    for (let id = 0; id < 4; id++) instance.enqueue({ id, promptTokens: perSeq - 200, outputTokens: 1000 });
    let t = 0;
    let finished = 0;
    while (finished < 4) {
      t = instance.start(t)!;
      finished += instance.finish().filter((o) => o.finished).length;
    }
    expect(instance.preemptions).toBeGreaterThan(0);
    expect(instance.generatedTokens).toBe(4000);
    expect(instance.kvUsedBytes).toBe(0);
  });

  it('a cancelled sequence frees its cache', () => {
    const instance = new Instance(spec, DEFAULT_LIMITS);
    const s = instance.enqueue({ id: 0, promptTokens: 1000, outputTokens: 100 });
    instance.finish();
    instance.start(0);
    expect(instance.kvUsedBytes).toBeGreaterThan(0);
    instance.cancel(s);
    instance.finish();
    expect(instance.kvUsedBytes).toBe(0);
    expect(instance.hasWork).toBe(false);
  });
});

describe('sanity of the model (derived, not tuned)', () => {
  it('a single request’s TTFT is its fixed request latency and its prefill step', () => {
    const r = run({}, { conc: 1, requests: 1, isl: 2048, osl: 16 });
    const topology = buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' });
    const spec = topology.kind === 'aggregated' ? topology.pool.engine : topology.prefill.engine;
    expect(spec.efficiency.requestOverheadMs).toBeGreaterThan(0);
    const prefill = stepTime(spec, {
      prefillTokens: 2048,
      prefillAttention: 2048 * 1024,
      prefillContext: 2048,
      decodeSeqs: 0,
      decodeContext: 0,
    });
    expect(r.medianTtftMs).toBeCloseTo(spec.efficiency.requestOverheadMs + prefill.ms, 6);
  });

  const concs = [1, 2, 4, 8, 16, 32, 64, 128, 256];
  const curve = concs.map((conc) => run({}, { conc, isl: 1024, osl: 512 }));

  it('throughput does not fall as concurrency rises, up to saturation', () => {
    for (let i = 1; i < curve.length; i++)
      expect(curve[i]!.outputThroughput).toBeGreaterThanOrEqual(curve[i - 1]!.outputThroughput);
    expect(curve.at(-1)!.outputThroughput).toBeGreaterThan(curve[0]!.outputThroughput * 20);
  });

  it('interactivity does not rise with concurrency, and TTFT grows with queueing', () => {
    for (let i = 1; i < curve.length; i++) expect(curve[i]!.interactivity).toBeLessThanOrEqual(curve[i - 1]!.interactivity);
    expect(curve.at(-1)!.medianTtftMs).toBeGreaterThan(curve[0]!.medianTtftMs * 2);
  });

  it('beyond max-num-seqs, requests queue: throughput flattens and TTFT climbs', () => {
    const at = run({ limits: { maxNumSeqs: 32 } }, { conc: 32, isl: 1024, osl: 256 });
    const over = run({ limits: { maxNumSeqs: 32 } }, { conc: 128, isl: 1024, osl: 256 });
    expect(over.outputThroughput).toBeLessThan(at.outputThroughput * 1.1);
    expect(over.medianTtftMs).toBeGreaterThan(at.medianTtftMs * 2);
  });

  it('long prompts interfere with decoding (chunked prefill shares the steps)', () => {
    const short = run({}, { conc: 32, isl: 128, osl: 256 });
    const long = run({}, { conc: 32, isl: 8192, osl: 256 });
    expect(long.medianTpotMs).toBeGreaterThan(short.medianTpotMs * 1.5);
  });

  it('KV-cache exhaustion causes preemptions; a big enough cache has none', () => {
    const dsr1 = { model: 'deepseek-r1', hardware: 'h200', precision: 'fp8' as const, tp: 8 };
    expect(run(dsr1, { conc: 256, isl: 8192, osl: 1024, requests: 512 }).preemptions).toBeGreaterThan(0);
    expect(run(dsr1, { conc: 64, isl: 8192, osl: 1024, requests: 128 }).preemptions).toBe(0);
  });

  it('a decode-heavy load benefits from more decode workers', () => {
    // 512 users of 2,048-token answers: more than one decode worker's batch (max-num-seqs 256).
    const disagg = (decodeWorkers: number): SimulatedRun =>
      run(
        { model: 'llama-3.1-70b', tp: 4, prefillWorkers: 1, decodeWorkers },
        { conc: 512, isl: 512, osl: 2048, requests: 1024 },
      );
    const one = disagg(1);
    const two = disagg(2);
    const three = disagg(3);
    expect(two.outputThroughput).toBeGreaterThan(one.outputThroughput * 1.2);
    expect(three.outputThroughput).toBeGreaterThan(two.outputThroughput);
    expect(three.medianTpotMs).toBeLessThan(one.medianTpotMs);
  });

  it('disaggregated TTFT includes the KV transfer; decode is not slowed by prefills', () => {
    const agg = run({ model: 'llama-3.1-70b', tp: 4, workers: 2 }, { conc: 32, isl: 8192, osl: 256 });
    const pd = run({ model: 'llama-3.1-70b', tp: 4, prefillWorkers: 1, decodeWorkers: 1 }, { conc: 32, isl: 8192, osl: 256 });
    expect(pd.medianTpotMs).toBeLessThan(agg.medianTpotMs);
    const single = run(
      { model: 'llama-3.1-70b', tp: 4, prefillWorkers: 1, decodeWorkers: 1 },
      { conc: 1, requests: 1, isl: 8192, osl: 8 },
    );
    const aggSingle = run({ model: 'llama-3.1-70b', tp: 4 }, { conc: 1, requests: 1, isl: 8192, osl: 8 });
    expect(single.medianTtftMs).toBeGreaterThan(aggSingle.medianTtftMs);
  });

  it('fp4 beats fp8 where the hardware supports it', () => {
    const at = (precision: 'fp8' | 'fp4'): SimulatedRun =>
      run({ model: 'deepseek-r1', hardware: 'b200', precision, tp: 8, ep: 8 }, { conc: 64, isl: 1024, osl: 1024, requests: 128 });
    const fp8 = at('fp8');
    const fp4 = at('fp4');
    expect(fp4.outputThroughputPerGpu).toBeGreaterThan(fp8.outputThroughputPerGpu);
    expect(fp4.interactivity).toBeGreaterThan(fp8.interactivity);
  });

  it('speculative decoding raises interactivity at low concurrency', () => {
    const plain = run({}, { conc: 4, isl: 1024, osl: 512 });
    const mtp = run({ speculative: { draftTokens: 3, acceptanceLength: 2.5 } }, { conc: 4, isl: 1024, osl: 512 });
    expect(mtp.interactivity).toBeGreaterThan(plain.interactivity * 1.5);
  });
});

describe('disaggregated across processes (Cluster.submitPrefilled)', () => {
  const deploy = (options: Partial<DeploymentOptions> = {}): Topology =>
    buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8', ...options });
  /** Run a cluster until idle; every token event. */
  const drain = (cluster: Cluster): TokenEvent[] => {
    const events: TokenEvent[] = [];
    for (let next = cluster.nextEventTime(); next !== undefined; next = cluster.nextEventTime())
      cluster.advance(next, (e) => events.push(e));
    return events;
  };
  const request: SimRequest = { id: 7, promptTokens: 3000, outputTokens: 12 };

  it('a prefill server, a transfer and a decode server give the one-process 1P1D token times', () => {
    const one = new Cluster(deploy({ prefillWorkers: 1, decodeWorkers: 1 }));
    one.submit(request, 0);
    const reference = drain(one).filter((e) => e.tokens > 0);

    // The prefill server: an ordinary engine asked for one token, after the router's hop (a
    // process of its own here, which the one-process deployment models).
    const prefill = new Cluster(deploy());
    prefill.submit({ ...request, outputTokens: 1 }, prefill.prefill[0]!.spec.efficiency.routerOverheadMs);
    const [prefilled] = drain(prefill);
    expect(prefilled).toMatchObject({ id: 7, tokens: 1, finished: true });

    // The decode server: the KV cache travels, the first token comes when it lands.
    const decode = new Cluster(deploy());
    const lands = decode.submitPrefilled(request, prefilled!.time, { gpus: 1 });
    const spec = decode.decode[0]!.spec;
    expect(lands - prefilled!.time).toBeCloseTo(kvTransferMs(spec, 3000, { lanes: 1, sameDomain: true }), 9);
    expect(decode.inFlight).toBe(1);
    const events = drain(decode).filter((e) => e.tokens > 0);
    expect(events[0]).toMatchObject({ id: 7, tokens: 1, time: lands, finished: false });
    expect(events.map((e) => e.time)).toEqual(reference.map((e) => e.time));
    expect(events.reduce((n, e) => n + e.tokens, 0)).toBe(12);
    expect(events.at(-1)!.finished).toBe(true);
    // Nothing of the prompt is computed on the decode side; it emitted every token.
    expect(decode.stats()).toMatchObject({ promptTokens: 0, generatedTokens: 12, running: 0, waiting: 0 });
    expect(decode.inFlight).toBe(0);
  });

  it('the transfer is the prompt’s KV over the link: longer prompts and scale-out links take longer', () => {
    const at = (promptTokens: number, gpus?: number): number =>
      new Cluster(deploy()).submitPrefilled({ id: 0, promptTokens, outputTokens: 4 }, 100, { gpus }) - 100;
    expect(at(8000)).toBeGreaterThan(at(1000));
    expect(at(1)).toBeGreaterThanOrEqual(0.5); // the fixed latency
    // A TP8 prefill and this GPU do not fit one 8-GPU NVLink domain: the NIC carries it.
    expect(at(8000, 8)).toBeGreaterThan(at(8000, 1));
  });

  it('takes the least-loaded worker; a one-token request ends when its KV lands; a cancel frees the transfer', () => {
    const cluster = new Cluster(deploy({ workers: 2 }));
    cluster.submitPrefilled({ id: 1, promptTokens: 100, outputTokens: 50 }, 0);
    cluster.advance(cluster.nextEventTime()!, () => undefined);
    cluster.submitPrefilled({ id: 2, promptTokens: 100, outputTokens: 50 }, cluster.now);
    cluster.advance(cluster.nextEventTime()!, () => undefined);
    expect(cluster.decode.map((i) => i.load)).toEqual([1, 1]);

    const one = new Cluster(deploy());
    one.submitPrefilled({ id: 3, promptTokens: 100, outputTokens: 1 }, 0);
    expect(drain(one)).toEqual([{ id: 3, tokens: 1, time: expect.any(Number) as number, finished: true }]);
    expect(one.inFlight).toBe(0);

    const cancelled = new Cluster(deploy());
    cancelled.submitPrefilled({ id: 4, promptTokens: 100, outputTokens: 10 }, 0);
    expect(() => cancelled.submitPrefilled({ id: 4, promptTokens: 100, outputTokens: 10 }, 0)).toThrow(/already in flight/);
    cancelled.cancel(4);
    expect(cancelled.inFlight).toBe(0);
    expect(cancelled.nextEventTime()).toBeUndefined();
  });
});
