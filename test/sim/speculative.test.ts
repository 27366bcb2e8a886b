import { afterEach, describe, expect, it } from 'vitest';
import { acceptedTokensVariance, specDecodeCounters } from '../../src/bench/index.js';
import { Cluster, NO_FAULTS, buildTopology, startSimServer } from '../../src/sim/index.js';
import type { DeploymentOptions, SimServer } from '../../src/sim/index.js';
import { AcceptanceSampler, acceptanceRates, conditionalRates } from '../../src/sim/speculative.js';
import { Rng } from '../../src/util/rng.js';

const DEPLOYMENT: DeploymentOptions = { model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' };
const SPEC = { draftTokens: 3, acceptanceLength: 2.49 };

describe("vLLM's synthetic acceptance schedule", () => {
  it('resolves a mean acceptance length to the minimum-variance unconditional rates (vLLM’s own cases)', () => {
    // tests/v1/spec_decode: test_acceptance_length_to_rates.
    const cases: [number, number, number[]][] = [
      [2.6, 3, [1, 0.6, 0]],
      [1, 3, [0, 0, 0]],
      [4, 3, [1, 1, 1]],
      [2, 3, [1, 0, 0]],
      [3.5, 4, [1, 1, 0.5, 0]],
    ];
    for (const [length, n, rates] of cases) {
      const got = acceptanceRates(length, n);
      expect(got).toHaveLength(n);
      got.forEach((r, i) => expect(r).toBeCloseTo(rates[i]!, 12));
    }
  });

  it('turns unconditional rates into the conditional ones of the early-stopping walk', () => {
    const c = conditionalRates([0.7, 0.4, 0.1]);
    [0.7, 0.4 / 0.7, 0.25].forEach((r, i) => expect(c[i]).toBeCloseTo(r, 12));
    // After a zero the chain has ended.
    expect(conditionalRates([1, 0.6, 0, 0])).toEqual([1, 0.6, 0, 0]);
  });
});

describe('AcceptanceSampler', () => {
  const draws = (config: typeof SPEC, n: number, seed = 1): number[] => {
    const sampler = new AcceptanceSampler(config, new Rng(seed));
    return Array.from({ length: n }, () => sampler.draw());
  };

  for (const config of [SPEC, { draftTokens: 7, acceptanceLength: 3.78 }, { draftTokens: 2, acceptanceLength: 1.3 }]) {
    it(`draws AL ${config.acceptanceLength} over ${config.draftTokens} drafts with the schedule's mean, variance and support`, () => {
      const n = 200_000;
      const sample = draws(config, n);
      const rates = acceptanceRates(config.acceptanceLength, config.draftTokens);
      const theoryMean = rates.reduce((a, b) => a + b, 0);
      const theoryVar = acceptedTokensVariance(rates);
      // The minimum-variance schedule: f(1 − f), f the fractional part of AL − 1.
      const f = config.acceptanceLength - 1 - Math.floor(config.acceptanceLength - 1);
      expect(theoryVar).toBeCloseTo(f * (1 - f), 12);
      const mean = sample.reduce((a, b) => a + b, 0) / n;
      const variance = sample.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1);
      expect(Math.abs(mean - theoryMean)).toBeLessThan(5 * Math.sqrt(theoryVar / n));
      // The variance of a Bernoulli's sample variance is below p(1 − p)/n.
      expect(Math.abs(variance - theoryVar)).toBeLessThan(5 * Math.sqrt(theoryVar / n));
      // Only the two lengths around the mean ever occur.
      const full = Math.floor(config.acceptanceLength - 1);
      expect(new Set(sample)).toEqual(new Set([full, full + 1]));
    });
  }

  it('is reproducible from its seed, and another seed draws another sequence', () => {
    expect(draws(SPEC, 1000, 5)).toEqual(draws(SPEC, 1000, 5));
    expect(draws(SPEC, 1000, 5)).not.toEqual(draws(SPEC, 1000, 6));
  });
});

/** Run `n` requests through a cluster in virtual time; output tokens each request received. */
function run(
  deployment: Partial<DeploymentOptions>,
  seed: number,
  n = 40,
  outputTokens = 100,
): { cluster: Cluster; got: number[] } {
  const cluster = new Cluster(buildTopology({ ...DEPLOYMENT, ...deployment }), seed);
  const got = new Array<number>(n).fill(0);
  for (let id = 0; id < n; id++) cluster.submit({ id, promptTokens: 200, outputTokens }, 0);
  let done = 0;
  while (done < n) {
    const next = cluster.nextEventTime();
    if (next === undefined) throw new Error('stalled');
    cluster.advance(next, (e) => {
      got[e.id]! += e.tokens;
      if (e.finished) done++;
    });
  }
  return { cluster, got };
}

describe('the simulated engine with speculative decoding', () => {
  it('accepts a random number of draft tokens per step, counted as vLLM counts them', () => {
    const { cluster, got } = run({ speculative: SPEC }, 3);
    expect(got.every((t) => t === 100)).toBe(true);
    const c = cluster.stats().specDecode!;
    expect(c.drafts).toBeGreaterThan(1000);
    expect(c.draftTokens).toBe(3 * c.drafts);
    // Position 0 is always accepted at AL 2.49, position 1 about half the time, position 2 never.
    expect(c.acceptedPerPosition[0]).toBe(c.drafts);
    expect(c.acceptedPerPosition[2]).toBe(0);
    expect(c.acceptedTokens).toBe(c.acceptedPerPosition.reduce((a, b) => a + b, 0));
    const al = 1 + c.acceptedTokens / c.drafts;
    expect(Math.abs(al - 2.49)).toBeLessThan(4 * Math.sqrt((0.49 * 0.51) / c.drafts));
    // Decode steps emit 1 + accepted tokens, cut at max_tokens: never more than the accepted count allows.
    expect(cluster.stats().generatedTokens).toBeLessThanOrEqual(40 + c.drafts + c.acceptedTokens);
  });

  it('is reproducible from the seed; another seed draws differently', () => {
    const a = run({ speculative: SPEC }, 11).cluster.stats().specDecode;
    expect(run({ speculative: SPEC }, 11).cluster.stats().specDecode).toEqual(a);
    expect(run({ speculative: SPEC }, 12).cluster.stats().specDecode).not.toEqual(a);
  });

  it('disaggregated: the decode instances draft, and only they are counted', () => {
    const { cluster, got } = run({ speculative: SPEC, prefillWorkers: 1, decodeWorkers: 2 }, 3);
    expect(got.every((t) => t === 100)).toBe(true);
    const total = cluster.stats().specDecode!;
    expect(total.drafts).toBeGreaterThan(0);
    expect(cluster.prefill.every((i) => i.specDecode!.drafts === 0)).toBe(true);
    expect(cluster.decode.reduce((s, i) => s + i.specDecode!.drafts, 0)).toBe(total.drafts);
  });

  it('counts nothing without speculative decoding', () => {
    const { cluster, got } = run({}, 3);
    expect(got.every((t) => t === 100)).toBe(true);
    expect(cluster.stats().specDecode).toBeUndefined();
  });
});

describe('/metrics', () => {
  const servers: SimServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const serve = async (deployment: Partial<DeploymentOptions>): Promise<SimServer> => {
    const server = await startSimServer({
      topology: buildTopology({ ...DEPLOYMENT, ...deployment }),
      servedModelName: 'm',
      maxModelLen: 8192,
      speed: 50,
      seed: 1,
      naturalOutputTokens: 16,
      host: '127.0.0.1',
      port: 0,
      faults: NO_FAULTS,
    });
    servers.push(server);
    return server;
  };
  const complete = (server: SimServer): Promise<Response> =>
    fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', prompt: 'hello there', max_tokens: 64, ignore_eos: true }),
    });

  it("exports vLLM's spec-decode counters, with its names, types, help and labels, when speculative decoding is on", async () => {
    const server = await serve({ speculative: SPEC });
    await Promise.all(Array.from({ length: 4 }, () => complete(server)));
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const family = (name: string, help: string): void => {
      expect(text).toContain(`# HELP ${name} ${help}\n# TYPE ${name} counter\n`);
    };
    family('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts.');
    family('vllm:spec_decode_num_draft_tokens_total', 'Number of draft tokens.');
    family('vllm:spec_decode_num_accepted_tokens_total', 'Number of accepted tokens.');
    family('vllm:spec_decode_num_accepted_tokens_per_pos_total', 'Accepted tokens per draft position.');
    expect(text).toMatch(/^vllm:spec_decode_num_drafts_total\{model_name="m",engine="0"\} \d+$/m);
    for (const pos of [0, 1, 2])
      expect(text).toMatch(
        new RegExp(
          `^vllm:spec_decode_num_accepted_tokens_per_pos_total\\{model_name="m",engine="0",position="${pos}"\\} \\d+$`,
          'm',
        ),
      );
    expect(text).not.toMatch(/position="3"/);
    const c = specDecodeCounters(text)!;
    // 4 requests × 63 tokens after the first, at most 4 a step.
    expect(c.drafts).toBeGreaterThanOrEqual((4 * 63) / 4);
    expect(c.draftTokens).toBe(3 * c.drafts);
    expect(c.acceptedPerPosition.get(0)).toBe(c.drafts);
    expect(c.acceptedTokens).toBe([...c.acceptedPerPosition.values()].reduce((a, b) => a + b, 0));
  });

  it('streams the tokens of a step as one delta, as vLLM streams a step’s output', async () => {
    const stream = async (server: SimServer): Promise<string[]> => {
      const res = await fetch(`${server.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', prompt: 'hello there', max_tokens: 64, ignore_eos: true, stream: true }),
      });
      const events = (await res.text()).split('\n\n').filter((e) => e.startsWith('data: {'));
      return events.map((e) => (JSON.parse(e.slice(6)) as { choices: { text: string }[] }).choices[0]!.text);
    };
    const plain = await stream(await serve({}));
    expect(plain).toHaveLength(64);
    const spec = await stream(await serve({ speculative: SPEC }));
    // The first token, then one delta per verification step of 1 to 4 tokens: the same text.
    expect(spec.length).toBeLessThan(plain.length / 2);
    expect(spec.join('')).toBe(plain.join(''));
  });

  it('exports none of them without speculative decoding, as vLLM does', async () => {
    const server = await serve({});
    await complete(server);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain('vllm:generation_tokens_total');
    expect(text).not.toContain('spec_decode');
  });
});
