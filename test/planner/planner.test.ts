import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { MasterConfigEntry } from '../../src/catalog/index.js';
import { dirSnapshot } from '../../src/changelog/index.js';
import { validateFiles } from '../../src/cli/validate.js';
import {
  disaggregatedFramework,
  emitMasterConfig,
  enumerateDeployments,
  fit,
  paretoFrontier,
  parseSla,
  plan,
  plannedRecipe,
  recipeBackend,
  slaViolations,
  sweepConcurrencies,
  usefulConcurrencies,
} from '../../src/planner/index.js';
import type { UserError } from '../../src/util/user-error.js';
import type { Plan } from '../../src/planner/index.js';
import { Recipe, compareEntryWithRecipe, planRecipe } from '../../src/recipes/index.js';
import { lint } from '../../src/review/index.js';
import { findHardware, findModel } from '../../src/sim/index.js';
import { INFERENCEX, tempFiles } from '../helpers.js';

describe('paretoFrontier', () => {
  it('keeps the points no other beats on both axes, in order of interactivity', () => {
    const points = [
      { id: 'a', x: 10, y: 100 },
      { id: 'b', x: 20, y: 80 },
      { id: 'c', x: 15, y: 70 }, // beaten by b
      { id: 'd', x: 30, y: 20 },
      { id: 'e', x: 30, y: 10 }, // same x as d, less y
      { id: 'f', x: 5, y: 100 }, // same y as a, less x
      { id: 'g', x: 10, y: 100 }, // a duplicate of a: one of them stays
    ];
    expect(paretoFrontier(points).map((p) => p.id)).toEqual(['a', 'b', 'd']);
    expect(paretoFrontier([])).toEqual([]);
  });
});

describe('parseSla', () => {
  it('reads latency bounds in s or ms and an interactivity floor', () => {
    expect(parseSla('ttft<2s, intvty>50,tpot<20ms,e2e<1.5s')).toEqual([
      { metric: 'ttft', limit: 2000, text: 'ttft<2s' },
      { metric: 'intvty', limit: 50, text: 'intvty>50' },
      { metric: 'tpot', limit: 20, text: 'tpot<20ms' },
      { metric: 'e2e', limit: 1500, text: 'e2e<1.5s' },
    ]);
  });

  it('names the bad term and the accepted forms', () => {
    const error = (text: string): UserError => {
      try {
        parseSla(text);
      } catch (e) {
        return e as UserError;
      }
      throw new Error(`${text} parsed`);
    };
    expect(error('ttft<2').message).toBe('--sla term "ttft<2": a latency limit needs a unit, ms or s (e.g. ttft<2s, tpot<20ms)');
    expect(error('ttft>2s').message).toContain('latencies take "<"');
    expect(error('intvty<50').message).toContain('intvty takes ">"');
    expect(error('latency<2s').message).toBe('--sla term "latency<2s" is not one of the accepted forms');
    expect(error('latency<2s').hint).toContain('ttft<500ms');
    expect(error('ttft<2s,').message).toContain('empty term');
    expect(error('ttft<2s,ttft<1s').message).toContain('bounds ttft twice');
  });

  it('judges a point: each broken term with its value', () => {
    const sla = parseSla('ttft<2s,intvty>50');
    expect(slaViolations(sla, { ttftMs: 1000, tpotMs: 10, e2eMs: 0, interactivity: 100 })).toEqual([]);
    expect(slaViolations(sla, { ttftMs: 3200, tpotMs: 25, e2eMs: 0, interactivity: 40 })).toEqual([
      'ttft 3.20 s (ttft<2s)',
      'intvty 40.0 tok/s (intvty>50)',
    ]);
  });
});

describe('enumerateDeployments', () => {
  const b300 = findHardware('b300');
  it('tries TP, TEP, DEP and DPATP for a MoE model and xPyD with coprime worker counts within the GPU budget', () => {
    const labels = enumerateDeployments({ model: findModel('minimax-m3'), hardware: b300, maxGpus: 8 }).map((c) => c.label);
    expect(labels.slice(0, 13)).toEqual(
      ['TP1', 'TP2', 'TEP2', 'DEP2', 'DPATP2', 'TP4', 'TEP4', 'DEP4', 'DPATP4', 'TP8', 'TEP8', 'DEP8', 'DPATP8'].slice(0, 13),
    );
    expect(labels).toContain('1P1D TP1/TP4');
    expect(labels).toContain('1P2D TP2/DEP2');
    expect(labels).not.toContain('2P2D TP1/TP1'); // a replica of 1P1D
    expect(labels).not.toContain('1P1D TP1/TP8'); // 9 GPUs
    expect(labels.some((l) => /P\dD DEP/.test(l))).toBe(false); // prefill is TP only
  });

  it('tries only TP for a dense model, and says when a disaggregated pair shares one node', () => {
    const candidates = enumerateDeployments({ model: findModel('llama-3.1-70b'), hardware: b300 });
    expect(candidates.filter((c) => c.shape.kind === 'aggregated').map((c) => c.label)).toEqual(['TP1', 'TP2', 'TP4', 'TP8']);
    expect(candidates.find((c) => c.label === '1P1D TP4/TP4')?.colocated).toBe(true);
    expect(candidates.find((c) => c.label === '1P1D TP8/TP8')?.colocated).toBe(false);
  });
});

describe('fit and the concurrency ladder', () => {
  const work = { model: 'minimax-m3', hardware: 'b300', precision: 'fp4' as const, isl: 8192, osl: 1024, rangeRatio: 0.8 };
  const candidate = (label: string) =>
    enumerateDeployments({ model: findModel('minimax-m3'), hardware: findHardware('b300') }).find((c) => c.label === label)!;

  it('refuses a deployment whose KV cache cannot hold one request, saying where', () => {
    expect(fit(candidate('TP1'), work)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^does not fit: its KV cache holds \d+ tokens, one request needs 9216$/),
    });
    expect(fit(candidate('1P1D TP1/TP4'), work)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("the prefill workers' KV cache"),
    });
    expect(fit(candidate('TP1'), { ...work, model: 'deepseek-r1', precision: 'fp8' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^does not fit: DeepSeek-R1 in fp8 needs/),
    });
  });

  it('stops the ladder at the first concurrency that fills the deployment', () => {
    expect(usefulConcurrencies([1, 4, 16, 64, 256, 1024], 100)).toEqual([1, 4, 16, 64, 256]);
    expect(usefulConcurrencies([1, 4], 100)).toEqual([1, 4]);
    const f = fit(candidate('TP4'), work);
    expect(f.ok && f.maxInFlight).toBe(256); // max-num-seqs, not the KV cache, bounds it
  });
});

describe('plan: the seed case (minimax-m3 fp4 on b300, 8k/1k)', () => {
  // A short ladder and one wave of requests per point keep this test to a few seconds.
  const ladder = [1, 16, 256];
  let seed: Plan;
  const planned = (): Plan =>
    (seed ??= plan({
      model: 'minimax-m3',
      hardware: 'b300',
      precision: 'fp4',
      isl: 8192,
      osl: 1024,
      gpus: 8,
      sla: parseSla('ttft<2s,intvty>50'),
      concurrencies: ladder,
      requestsPerConc: 1,
    }));

  it('finds a frontier whose points no evaluated point beats, and a reason for every other deployment', () => {
    const p = planned();
    expect(p.frontier.length).toBeGreaterThan(2);
    const xs = p.frontier.map((f) => f.interactivity);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    const all = p.deployments.flatMap((d) => d.points);
    for (const f of p.frontier) {
      expect(all.some((o) => o.interactivity > f.interactivity && o.tputPerGpu > f.tputPerGpu)).toBe(false);
    }
    const named = new Set([...p.deployments.map((d) => d.label), ...p.discarded.map((d) => d.deployment)]);
    expect(named.size).toBe(p.stats.candidates);
    for (const d of p.discarded)
      expect(d.reason).toMatch(/^(does not fit: |dominated by \S|violates SLA at every concurrency|simulation failed)/);
    expect(p.discarded.find((d) => d.deployment === 'TP1')?.reason).toMatch(/^does not fit/);
    expect(p.frontier.some((f) => f.meetsSla)).toBe(true);
    expect(p.best?.meetsSla).toBe(true);
  });

  it('emits a master config sweeping the frontier that passes validate and lint', async () => {
    const p = planned();
    const catalog = new Map(); // no catalog: placeholders, said in the warnings
    const { yaml, warnings, recipes } = emitMasterConfig(p, ladder, catalog);
    expect(warnings.length).toBeGreaterThan(0);
    expect(yaml).toContain('# TODO: no catalog entry runs minimax-m3 fp4 on b300');
    const runners = readFileSync(join(INFERENCEX, 'configs/runners.yaml'), 'utf8');
    const recipeFiles = Object.fromEntries(recipes.map((r) => [`benchmarks/multi_node/srt-slurm-recipes/${r.path}`, r.yaml]));
    const dir = tempFiles({ 'configs/planned-master.yaml': yaml, 'configs/runners.yaml': runners, ...recipeFiles });
    const report = await validateFiles([join(dir, 'configs/planned-master.yaml'), join(dir, 'configs/runners.yaml')]);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    const linted = await lint(dirSnapshot(dir));
    expect(linted.findings).toEqual([]);
    expect(linted.recipes).toBe(recipes.length); // every CONFIG_FILE was read and checked by the recipe/* rules
    // ...which do see a recipe that disagrees with its row.
    const [first] = recipes;
    const broken = first!.yaml.replace(/^(\s*decode_workers:) (\d+)$/m, (_, key: string, n: string) => `${key} ${Number(n) + 1}`);
    const brokenDir = tempFiles({
      'configs/planned-master.yaml': yaml,
      'configs/runners.yaml': runners,
      ...recipeFiles,
      [`benchmarks/multi_node/srt-slurm-recipes/${first!.path}`]: broken,
    });
    const brokenRules = (await lint(dirSnapshot(brokenDir))).findings.map((f) => f.rule);
    expect(brokenRules).toContain('recipe/worker-count-mismatch');
    for (const d of p.deployments) {
      const concs = sweepConcurrencies(d.label, p, ladder);
      const on = p.frontier.filter((f) => f.deployment === d.label).map((f) => f.conc);
      expect(concs).toEqual(expect.arrayContaining(on));
    }
  });

  it("writes one srt-slurm recipe per disaggregated row, named by its CONFIG_FILE, with the row's workers and TP", () => {
    const p = planned();
    const { yaml, recipes } = emitMasterConfig(p, ladder);
    const disaggregated = p.deployments.filter((d) => d.kind === 'disaggregated');
    expect(disaggregated.length).toBeGreaterThan(0); // the seed frontier has a disaggregated deployment
    expect(recipes).toHaveLength(disaggregated.length);
    const [entry] = Object.values(parse(yaml) as Record<string, MasterConfigEntry>).filter((e) => e.multinode);
    const rows = entry!.scenarios['fixed-seq-len']![0]!['search-space'] as MultinodeRow[];
    rows.forEach((row, i) => {
      const recipe = recipes[i]!;
      expect(recipe.path).toMatch(/^vllm\/minimax-m3\/b300-fp4\/8k1k\/\d+p\d+d-[a-z]+\d+-[a-z]+\d+-8k1k-planned\.yaml$/);
      expect(row.prefill['additional-settings']).toEqual([`CONFIG_FILE=recipes/${recipe.path}`]);
      const r = parse(recipe.yaml) as PlannedRecipeDoc;
      expect(r.resources.prefill_workers).toBe(row.prefill['num-worker']);
      expect(r.resources.decode_workers).toBe(row.decode['num-worker']);
      const tp = (flags: Record<string, number>) => flags['tensor-parallel-size']! * (flags['data-parallel-size'] ?? 1);
      expect(tp(r.backend.vllm_config.prefill)).toBe(row.prefill.tp);
      expect(tp(r.backend.vllm_config.decode)).toBe(row.decode.tp);
      expect(r.resources.gpus_per_prefill).toBe(row.prefill.tp);
      expect(r.resources.gpus_per_decode).toBe(row.decode.tp);
      expect(r.benchmark).toMatchObject({ isl: 8192, osl: 1024, concurrencies: row['conc-list'].join('x') });
      expect(r.model).toEqual({ path: entry!.model, container: entry!.image, precision: 'fp4' });
    });
  });
});

interface MultinodeRow {
  'conc-list': number[];
  prefill: { 'num-worker': number; tp: number; 'additional-settings'?: string[] };
  decode: { 'num-worker': number; tp: number };
}

interface PlannedRecipeDoc {
  model: Record<string, string>;
  resources: Record<string, number>;
  backend: { vllm_config: Record<'prefill' | 'decode', Record<string, number>> };
  benchmark: Record<string, unknown>;
}

describe('plannedRecipe', () => {
  it('writes sglang and trtllm recipes whose flags, workers and GPUs agree with a DEP decode row', () => {
    const candidate = enumerateDeployments({ model: findModel('minimax-m3'), hardware: findHardware('b300') }).find(
      (c) => c.label === '1P2D TP2/DEP2',
    )!;
    const deployment = {
      label: candidate.label,
      kind: 'disaggregated' as const,
      gpus: 6,
      colocated: true,
      candidate,
      points: [],
    };
    const workload = { model: 'minimax-m3', hardware: 'b300', precision: 'fp4' as const, isl: 1024, osl: 1024 };
    const p = { workload } as unknown as Plan;
    const id = { image: 'img:1', model: 'MiniMaxAI/MiniMax-M3', 'model-prefix': 'minimax-m3' };
    for (const [framework, backend] of [
      ['dynamo-sglang', 'sglang'],
      ['dynamo-trt', 'trtllm'],
      ['dynamo-vllm', 'vllm'],
    ] as const) {
      expect(recipeBackend(framework)).toBe(backend);
      const recipe = plannedRecipe(p, deployment, [4, 8], framework, id);
      expect(recipe.path).toBe(`${backend}/minimax-m3/b300-fp4/1k1k/1p2d-tp2-dep2-1k1k-planned.yaml`);
      const doc = parse(recipe.yaml) as Record<string, unknown>;
      expect(Recipe.safeParse(doc).success).toBe(true);
      expect(planRecipe(doc).findings).toEqual([]);
      const config = { image: 'img:1', precision: 'fp4' } as MasterConfigEntry;
      const entry = {
        'conc-list': [4, 8],
        prefill: { 'num-worker': 1, tp: 2, ep: 1, 'dp-attn': false },
        decode: { 'num-worker': 2, tp: 2, ep: 2, 'dp-attn': true },
      };
      expect(compareEntryWithRecipe({ config, entry, seq: { isl: 1024, osl: 1024 }, path: [] }, doc)).toEqual([]);
    }
  });
});

describe('emitMasterConfig', () => {
  it('names disaggregated frameworks as InferenceX does', () => {
    expect(disaggregatedFramework('vllm')).toBe('dynamo-vllm');
    expect(disaggregatedFramework('dynamo-trt')).toBe('dynamo-trt');
    expect(disaggregatedFramework('sglang-disagg')).toBe('sglang-disagg');
  });
});
