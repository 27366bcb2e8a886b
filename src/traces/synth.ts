import { Rng } from '../util/rng.js';
import type { SourceLine, Trace, TraceEntry, TraceRequest, TraceSubagent } from './types.js';

/**
 * A seeded synthetic corpus of coding-agent sessions in the Weka shape, for replay and
 * simulation when no recorded corpus is at hand. Each trace is a main agent's turns over one
 * growing context: turn k sends the context of turn k-1, its output and a new user or tool
 * delta, so its hash blocks extend the previous turn's (the prefix a cache reuses). Now and then
 * the context is compacted (a summary replaces it; only the system prompt's blocks survive), and
 * always when it would pass `maxContext`. At a turn the agent may fan out sibling subagents
 * (a Poisson count), each a short stream of its own over a system prompt shared by the subagents
 * of its type, and the main agent waits for them. Idle gaps are lognormal: mostly short tool
 * gaps, sometimes a long human one, capped at `maxGap`. Everything is drawn from one Rng, so a
 * seed gives the same corpus.
 */
export interface SynthOptions {
  /** Traces to write. */
  traces: number;
  seed: number;
  /** Mean main-agent turns per trace. */
  meanTurns: number;
  /** Tokens per hash block. */
  blockSize: number;
  /** Context tokens beyond which the agent compacts before the next turn. */
  maxContext: number;
  /** Probability that a main turn fans out subagents. */
  subagentRate: number;
  /** Mean subagents spawned together when a turn fans out (at least 1). */
  meanFanout: number;
  /** Mean turns of one subagent. */
  meanSubagentTurns: number;
  /** Probability per main turn of a compaction before the context is full. */
  compactionRate: number;
  /** Mean idle seconds of a tool gap (lognormal). */
  meanGap: number;
  /** Share of main-agent gaps that are a human's (lognormal, mean `meanHumanGap`). */
  humanGapShare: number;
  meanHumanGap: number;
  /** No gap is longer than this, seconds. */
  maxGap: number;
  /** Tokens of the main agent's system prompt and of each subagent type's. */
  systemTokens: number;
  subagentSystemTokens: number;
  /** Mean tokens of a new user message or tool result per turn (lognormal). */
  meanDelta: number;
  /** Mean output tokens per request (lognormal), and its cap. */
  meanOutput: number;
  maxOutput: number;
  /** Multiplies every token size, the context cap and the mean turn counts: 0.05 makes tiny corpora for tests. */
  scale: number;
  model: string;
  subagentModel: string;
  /** The file name the traces' sources name (where they will be written). */
  file: string;
}

export const DEFAULT_SYNTH_OPTIONS: SynthOptions = {
  traces: 100,
  seed: 1,
  meanTurns: 40,
  blockSize: 64,
  maxContext: 160_000,
  subagentRate: 0.08,
  meanFanout: 2,
  meanSubagentTurns: 8,
  compactionRate: 0.01,
  meanGap: 3,
  humanGapShare: 0.1,
  meanHumanGap: 60,
  maxGap: 600,
  systemTokens: 16_000,
  subagentSystemTokens: 6_000,
  meanDelta: 1_500,
  meanOutput: 400,
  maxOutput: 16_000,
  scale: 1,
  model: 'synthetic-agent',
  subagentModel: 'synthetic-subagent',
  file: 'traces.jsonl',
};

const SUBAGENT_TYPES = ['Explore', 'general-purpose', 'Plan'] as const;

/** Lognormal with the given mean (sigma: the spread of its log). */
const lognormal = (rng: Rng, mean: number, sigma: number): number => mean * Math.exp(sigma * rng.normal() - (sigma * sigma) / 2);

/** Poisson(lambda), by Knuth's product of uniforms (lambda here is small). */
function poisson(rng: Rng, lambda: number): number {
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = rng.next(); p > limit; p *= rng.next()) k++;
  return k;
}

const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** The recorded server time of a call: a prefill over the uncached part and a decode, roughly. */
const apiTime = (newTokens: number, output: number): number => ms(0.2 + newTokens / 20_000 + output / 70);

/** One agent's context: its hash blocks and where the next new id comes from (shared per trace). */
class Context {
  blocks: number[] = [];
  constructor(private readonly ids: { next: number }) {}

  /** Append `tokens` of new content as whole new blocks; the number of new blocks. */
  append(tokens: number, blockSize: number): number {
    const n = Math.max(1, Math.ceil(tokens / blockSize));
    for (let i = 0; i < n; i++) this.blocks.push(this.ids.next++);
    return n;
  }
}

class TraceBuilder {
  private readonly ids = { next: 0 };
  private readonly typePrefixes = new Map<string, number[]>();
  readonly entries: TraceEntry[] = [];
  private readonly o: SynthOptions;

  constructor(
    private readonly rng: Rng,
    options: SynthOptions,
    private readonly source: SourceLine,
  ) {
    this.o = options;
  }

  private tokens(mean: number, sigma: number, cap: number): number {
    return Math.max(1, Math.min(cap, Math.round(lognormal(this.rng, mean * this.o.scale, sigma))));
  }

  private gap(humanShare: number): number {
    const human = this.rng.chance(humanShare);
    const g = lognormal(this.rng, human ? this.o.meanHumanGap : this.o.meanGap, human ? 0.8 : 1.0);
    return ms(Math.min(this.o.maxGap, g));
  }

  private request(t: number, ctx: Context, newBlocks: number, model: string, delay: number | undefined): TraceRequest {
    const output = this.tokens(this.o.meanOutput, 1.0, this.o.maxOutput * this.o.scale);
    const bs = this.o.blockSize;
    const r: TraceRequest = {
      t: ms(t),
      input: ctx.blocks.length * bs,
      output,
      hashIds: [...ctx.blocks],
      apiTime: apiTime(newBlocks * bs, output),
      model,
      source: this.source,
    };
    if (delay !== undefined) r.delay = delay;
    return r;
  }

  private subagent(t0: number, index: number): TraceSubagent {
    const o = this.o;
    const type = SUBAGENT_TYPES[this.rng.int(SUBAGENT_TYPES.length)]!;
    const ctx = new Context(this.ids);
    let prefix = this.typePrefixes.get(type);
    if (prefix === undefined) {
      ctx.append(o.subagentSystemTokens * o.scale, o.blockSize);
      prefix = [...ctx.blocks];
      this.typePrefixes.set(type, prefix);
    } else ctx.blocks.push(...prefix);
    let fresh = ctx.append(this.tokens(o.meanDelta, 0.8, 20 * o.meanDelta), o.blockSize);
    const turns = Math.max(1, 1 + poisson(this.rng, Math.max(0, o.meanSubagentTurns * o.scale - 1)));
    const requests: TraceRequest[] = [];
    let t = t0;
    for (let k = 0; k < turns; k++) {
      let delay: number | undefined;
      if (k > 0) {
        const prev = requests[k - 1]!;
        fresh = ctx.append(prev.output, o.blockSize) + ctx.append(this.tokens(o.meanDelta, 1.2, 20 * o.meanDelta), o.blockSize);
        delay = this.gap(0);
        t = prev.t + prev.apiTime! + delay;
      }
      requests.push(this.request(t, ctx, fresh, o.subagentModel, delay));
    }
    const last = requests[requests.length - 1]!;
    return {
      t: requests[0]!.t,
      agentId: `${type.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_${String(index).padStart(3, '0')}`,
      subagentType: type,
      duration: ms(last.t + last.apiTime! - requests[0]!.t),
      requests,
      toolUseCount: turns - 1,
      status: 'completed',
      models: [o.subagentModel],
      source: this.source,
    };
  }

  build(): void {
    const o = this.o;
    const bs = o.blockSize;
    const maxContext = o.maxContext * o.scale;
    const turns = Math.max(2, Math.round(lognormal(this.rng, o.meanTurns * o.scale, 0.7)));
    const ctx = new Context(this.ids);
    ctx.append(o.systemTokens * o.scale, bs);
    const system = ctx.blocks.length;
    let fresh = system + ctx.append(this.tokens(o.meanDelta, 1.0, 20 * o.meanDelta), bs);
    let t = 0;
    let delay: number | undefined;
    let spawned = 0;
    for (let k = 0; k < turns; k++) {
      const r = this.request(t, ctx, fresh, o.model, delay);
      r.streaming = true;
      r.ttft = ms(0.1 + (fresh * bs) / 20_000);
      this.entries.push({ kind: 'request', request: r });
      let end = r.t + r.apiTime!;
      if (this.rng.chance(o.subagentRate)) {
        const fanout = 1 + poisson(this.rng, Math.max(0, o.meanFanout - 1));
        for (let s = 0; s < fanout; s++) {
          const sub = this.subagent(end + ms(0.05 + 0.2 * this.rng.next()), ++spawned);
          this.entries.push({ kind: 'subagent', subagent: sub });
          end = Math.max(end, sub.t + sub.duration);
        }
      }
      // The next turn's context: this one, its output, a new message or tool result — or, on a
      // compaction, the system prompt and a summary.
      const delta = this.tokens(o.meanDelta, 1.2, 20 * o.meanDelta);
      if (this.rng.chance(o.compactionRate) || (ctx.blocks.length + Math.ceil((r.output + delta) / bs)) * bs > maxContext) {
        ctx.blocks.length = system;
        fresh = ctx.append(this.tokens(3_000, 0.5, maxContext / 4), bs) + ctx.append(delta, bs);
      } else fresh = ctx.append(r.output, bs) + ctx.append(delta, bs);
      // As in the recorded corpus, think time counts from the end of whatever the agent last
      // waited for (its own call, or its last subagent's).
      delay = this.gap(o.humanGapShare);
      t = end + delay;
    }
  }
}

/** A synthetic corpus (see SynthOptions); the same options give the same traces. */
export function synthTraces(options: Partial<SynthOptions> = {}): Trace[] {
  const o = { ...DEFAULT_SYNTH_OPTIONS, ...options };
  const rng = new Rng(o.seed);
  const traces: Trace[] = [];
  for (let i = 0; i < o.traces; i++) {
    // Sources as reading the written traces.jsonl back gives them (a trace per line).
    const source = { file: o.file, line: i + 1 };
    const builder = new TraceBuilder(rng, o, source);
    builder.build();
    const models = [
      ...new Set([o.model, ...(builder.entries.some((e) => e.kind === 'subagent') ? [o.subagentModel] : [])]),
    ].sort();
    traces.push({
      id: `synth-${o.seed}-${String(i).padStart(5, '0')}`,
      models,
      blockSize: o.blockSize,
      hashIdScope: 'local',
      entries: builder.entries,
      source,
    });
  }
  return traces;
}
