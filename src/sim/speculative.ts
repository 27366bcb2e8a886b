import { Rng } from '../util/rng.js';

/**
 * Speculative decoding's acceptance, as vLLM's synthetic rejection sampler draws it
 * (`rejection_sample_method: "synthetic"`, vllm-project/vllm#40662), so the simulator's
 * accepted-length distribution is the one a golden-AL benchmark run gets, not just its mean:
 *
 * - `synthetic_acceptance_length` resolves to per-position *unconditional* rates (entry i: the
 *   probability that the first i + 1 draft tokens are all accepted) by the minimum-variance
 *   schedule (`SpeculativeConfig._acceptance_length_to_rates`, vllm/config/speculative.py): the
 *   integer part of AL − 1 positions always accepted, the next with the fractional part, the rest
 *   never. TRT-LLM's TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS and ATOM's
 *   --spec-decode-acceptance-length give the same distribution.
 * - The rejection sampler turns them into conditional rates c_i = p_i / p_{i−1}
 *   (`unconditional_to_conditional_rates`, vllm/v1/spec_decode/utils.py) and, per draft, walks
 *   the positions with one uniform draw each, accepting while `u < c_i` and stopping at the first
 *   rejection (the SYNTHETIC_MODE branch of `rejection_*_sample_kernel`,
 *   vllm/v1/sample/rejection_sampler.py).
 */

/** What speculative decoding is configured with: draft tokens per step and the mean acceptance length (bonus token included). */
export interface SpeculativeConfig {
  draftTokens: number;
  acceptanceLength: number;
}

/** Per-position unconditional acceptance rates for a mean acceptance length: the minimum-variance schedule. */
export function acceptanceRates(acceptanceLength: number, draftTokens: number): number[] {
  const accepted = acceptanceLength - 1;
  const full = Math.floor(accepted);
  return Array.from({ length: draftTokens }, (_, i) => (i < full ? 1 : i === full ? accepted - full : 0));
}

/** Conditional rates for the early-stopping walk: c_i = p_i / p_{i−1}, 0 once the chain has ended. */
export function conditionalRates(rates: readonly number[]): number[] {
  return rates.map((p, i) => {
    const before = i === 0 ? 1 : rates[i - 1]!;
    return before > 0 ? p / before : 0;
  });
}

/** One sequence of draws: draft tokens accepted per verification step. */
export class AcceptanceSampler {
  readonly rates: readonly number[];
  private readonly conditional: readonly number[];

  constructor(
    config: SpeculativeConfig,
    private readonly rng: Rng,
  ) {
    this.rates = acceptanceRates(config.acceptanceLength, config.draftTokens);
    this.conditional = conditionalRates(this.rates);
  }

  get draftTokens(): number {
    return this.rates.length;
  }

  /** Draft tokens the target accepts in one verification (0 … draftTokens; the bonus token is not counted). */
  draw(): number {
    let accepted = 0;
    while (accepted < this.conditional.length && this.rng.next() < this.conditional[accepted]!) accepted++;
    return accepted;
  }
}

/** vLLM's spec-decode counters (SpecDecodingStats): what /metrics exports. */
export interface SpecDecodeCounts {
  /** Verification steps that carried drafts. */
  drafts: number;
  draftTokens: number;
  /** Draft tokens accepted (bonus tokens not counted). */
  acceptedTokens: number;
  /** Drafts whose position i was accepted, one entry per draft position. */
  acceptedPerPosition: number[];
}

export const emptySpecDecodeCounts = (draftTokens: number): SpecDecodeCounts => ({
  drafts: 0,
  draftTokens: 0,
  acceptedTokens: 0,
  acceptedPerPosition: new Array<number>(draftTokens).fill(0),
});

/** Count one draft as vLLM's SpecDecodingStats.observe_draft does. */
export function observeDraft(counts: SpecDecodeCounts, draftTokens: number, accepted: number): void {
  counts.drafts++;
  counts.draftTokens += draftTokens;
  counts.acceptedTokens += accepted;
  for (let i = 0; i < accepted; i++) counts.acceptedPerPosition[i]!++;
}
