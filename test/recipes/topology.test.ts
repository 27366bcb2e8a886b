import { describe, expect, it } from 'vitest';
import { allocateEndpoints, colocates, planRecipe, resourceMath, workerNodes } from '../../src/recipes/index.js';
import type { Endpoint, Resources } from '../../src/recipes/index.js';

/** Endpoints as srt-slurm's tests write them: `prefill_0 n0{0,1}`. */
const show = (endpoints: Endpoint[]): string[] =>
  endpoints.map((e) => `${e.mode}_${e.index} ${e.nodes.map((n, k) => `n${n}{${e.gpus[k]!.join(',')}}`).join(' ')}`);

const disagg = (r: Resources): Resources => ({ prefill_nodes: 1, decode_nodes: 1, ...r });

describe('ResourceConfig math (srt-slurm schema.py)', () => {
  it('divides nodes × GPUs per node by workers, rounding down', () => {
    const m = resourceMath({ gpus_per_node: 8, prefill_nodes: 3, prefill_workers: 2, decode_nodes: 2, decode_workers: 3 });
    expect(m.prefill).toEqual({ workers: 2, gpusPerWorker: 12 });
    expect(m.decode).toEqual({ workers: 3, gpusPerWorker: 5 });
    expect(m.resourceNodes).toBe(5);
    expect(m.disaggregated).toBe(true);
  });

  it('prefers explicit gpus_per_<role>, and defaults to 4 GPUs per node', () => {
    const m = resourceMath({ prefill_nodes: 1, prefill_workers: 1, gpus_per_prefill: 2, decode_nodes: 1, decode_workers: 2 });
    expect(m.gpusPerNode).toBe(4);
    expect(m.prefill.gpusPerWorker).toBe(2);
    expect(m.decode.gpusPerWorker).toBe(2);
  });

  it('decode_nodes: 0 inherits the prefill worker size and keeps the config disaggregated', () => {
    const m = resourceMath({ gpus_per_node: 8, prefill_nodes: 2, prefill_workers: 4, decode_nodes: 0, decode_workers: 2 });
    expect(m.disaggregated).toBe(true);
    expect(m.decode.gpusPerWorker).toBe(4);
    expect(m.resourceNodes).toBe(2);
  });

  it('treats a zero count as unset (prefill_nodes: 0 gives whole-node workers)', () => {
    expect(resourceMath({ gpus_per_node: 8, prefill_nodes: 0, prefill_workers: 2, decode_nodes: 1 }).prefill.gpusPerWorker).toBe(
      8,
    );
  });

  it('aggregated: agg_nodes (default 1) and agg_workers', () => {
    const m = resourceMath({ gpus_per_node: 4, agg_nodes: 4, agg_workers: 2 });
    expect(m.disaggregated).toBe(false);
    expect(m.agg).toEqual({ workers: 2, gpusPerWorker: 8 });
    expect(resourceMath({ gpus_per_node: 4, agg_workers: 1 }).resourceNodes).toBe(1);
  });
});

describe('allocate_endpoints (srt-slurm tests/test_topology.py worked examples)', () => {
  const alloc = (r: Resources, nodes: number, options = {}): string[] => show(allocateEndpoints(resourceMath(r), nodes, options));

  it('4-GPU nodes, prefill 2×2 and decode 2×2: prefill on n0, decode on n1', () => {
    expect(
      alloc(disagg({ gpus_per_node: 4, prefill_workers: 2, gpus_per_prefill: 2, decode_workers: 2, gpus_per_decode: 2 }), 2),
    ).toEqual(['prefill_0 n0{0,1}', 'prefill_1 n0{2,3}', 'decode_0 n1{0,1}', 'decode_1 n1{2,3}']);
  });

  it('3 prefill × 2 GPUs then a 32-GPU decode on 4-GPU nodes: decode skips the partial node and spans n2–n9', () => {
    const out = alloc(
      disagg({ gpus_per_node: 4, prefill_workers: 3, gpus_per_prefill: 2, decode_workers: 1, gpus_per_decode: 32 }),
      11,
    );
    expect(out.slice(0, 3)).toEqual(['prefill_0 n0{0,1}', 'prefill_1 n0{2,3}', 'prefill_2 n1{0,1}']);
    expect(out[3]).toBe(`decode_0 ${[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `n${n}{0,1,2,3}`).join(' ')}`);
  });

  it('one 8-GPU node: with no next node, decode packs after prefill', () => {
    expect(
      alloc(disagg({ gpus_per_node: 8, prefill_workers: 1, gpus_per_prefill: 1, decode_workers: 1, gpus_per_decode: 2 }), 1),
    ).toEqual(['prefill_0 n0{0}', 'decode_0 n0{1,2}']);
  });

  it('4-GPU nodes (n0, n1): prefill 1×2 on n0, decode 1×4 on n1', () => {
    expect(
      alloc(disagg({ gpus_per_node: 4, prefill_workers: 1, gpus_per_prefill: 2, decode_workers: 1, gpus_per_decode: 4 }), 2),
    ).toEqual(['prefill_0 n0{0,1}', 'decode_0 n1{0,1,2,3}']);
  });

  it('vLLM colocation puts prefill 2×2 and decode 2×2 on one 8-GPU node; without it decode goes to n1', () => {
    const r = disagg({ gpus_per_node: 8, prefill_workers: 2, gpus_per_prefill: 2, decode_workers: 2, gpus_per_decode: 2 });
    expect(alloc(r, 2, { colocation: true })).toEqual([
      'prefill_0 n0{0,1}',
      'prefill_1 n0{2,3}',
      'decode_0 n0{4,5}',
      'decode_1 n0{6,7}',
    ]);
    expect(alloc(r, 2)).toEqual(['prefill_0 n0{0,1}', 'prefill_1 n0{2,3}', 'decode_0 n1{0,1}', 'decode_1 n1{2,3}']);
  });

  it('TRT-LLM packing: 12-GPU workers on 8-GPU nodes span nodes, full node first', () => {
    const r = disagg({ gpus_per_node: 8, prefill_workers: 2, gpus_per_prefill: 12, decode_workers: 0 });
    expect(alloc(r, 3, { packMultinodeWorkers: true })).toEqual([
      'prefill_0 n0{0,1,2,3,4,5,6,7} n1{0,1,2,3}',
      'prefill_1 n2{0,1,2,3,4,5,6,7} n1{4,5,6,7}',
    ]);
  });

  it('spread_workers starts every partial worker on a fresh node', () => {
    const m = resourceMath({ gpus_per_node: 8, agg_nodes: 2, agg_workers: 2, gpus_per_agg: 2 });
    expect(show(allocateEndpoints(m, 2, {}, true))).toEqual(['agg_0 n0{0,1}', 'agg_1 n1{0,1}']);
  });

  it('running out of nodes is an allocation error, not a crash', () => {
    expect(() => allocateEndpoints(resourceMath({ gpus_per_node: 8, agg_nodes: 1, agg_workers: 2, gpus_per_agg: 8 }), 1)).toThrow(
      /not enough nodes/,
    );
  });
});

describe('vLLM colocation (decode_nodes: 0, allow_prefill_decode_colocation)', () => {
  const vllm = (prefill: [number, number], decode: [number, number]): Record<string, unknown> => ({
    name: 'colocated',
    model: { path: 'm', container: 'vllm/vllm-openai:v0.21.0', precision: 'fp8' },
    resources: {
      gpu_type: 'h200',
      gpus_per_node: 8,
      prefill_nodes: 1,
      prefill_workers: prefill[0],
      gpus_per_prefill: prefill[1],
      decode_nodes: 0,
      decode_workers: decode[0],
      gpus_per_decode: decode[1],
    },
    backend: { type: 'vllm', allow_prefill_decode_colocation: true },
  });

  it('1×TP1 + 1×TP4 = 5 of 8 GPUs fits on one node', () => {
    const plan = planRecipe(vllm([1, 1], [1, 4]));
    expect(plan.colocated).toBe(true);
    expect(plan.findings).toEqual([]);
    expect(plan.workerNodes).toBe(1);
    expect(plan.usedGpus).toBe(5);
    expect(plan.nodeMap[0]).toEqual(['prefill_0', 'decode_0', 'decode_0', 'decode_0', 'decode_0', null, null, null]);
  });

  it('8×TP1 + 2×DEP8 does not fit: a colocation finding with the GPU arithmetic', () => {
    const plan = planRecipe(vllm([8, 1], [2, 8]));
    expect(plan.colocated).toBe(false);
    expect(plan.findings.map((f) => f.rule)).toEqual(['recipe/colocation-does-not-fit']);
    expect(plan.findings[0]!.message).toContain('8×1-GPU prefill + 2×8-GPU decode = 24 GPUs do not fit on 1 node(s) of 8 GPUs');
    expect(plan.findings[0]!.path).toBe('resources.decode_nodes');
    // The map shows how far the allocation got: prefill fills the node, decode has nowhere to go.
    expect(plan.nodeMap).toEqual([
      ['prefill_0', 'prefill_1', 'prefill_2', 'prefill_3', 'prefill_4', 'prefill_5', 'prefill_6', 'prefill_7'],
    ]);
  });

  it('colocation shrinks the worker nodes to ceil(GPUs / GPUs per node) when allowed across nodes', () => {
    const math = resourceMath({
      gpus_per_node: 8,
      prefill_nodes: 2,
      prefill_workers: 2,
      gpus_per_prefill: 4,
      decode_nodes: 2,
      decode_workers: 1,
      gpus_per_decode: 4,
    });
    const options = { colocation: true, colocationAcrossNodes: true };
    expect(colocates(math, options)).toBe(true);
    expect(workerNodes(math, options)).toBe(2);
    expect(workerNodes(math, {})).toBe(4);
  });
});

describe('checks srt-slurm lacks', () => {
  const sglang = (flags: Record<string, unknown>, resources: Resources): Record<string, unknown> => ({
    name: 'r',
    model: { path: 'm', container: 'lmsysorg/sglang:v0.5', precision: 'fp8' },
    resources: { gpu_type: 'b200', gpus_per_node: 8, ...resources },
    backend: { type: 'sglang', sglang_config: { prefill: flags, decode: flags } },
  });

  it("GPUs per worker must equal the engine's TP × DP × PP", () => {
    const ok = planRecipe(
      sglang({ 'tensor-parallel-size': 8 }, { prefill_nodes: 1, prefill_workers: 1, decode_nodes: 1, decode_workers: 1 }),
    );
    expect(ok.findings).toEqual([]);
    const bad = planRecipe(
      sglang({ 'tensor-parallel-size': 4 }, { prefill_nodes: 1, prefill_workers: 1, decode_nodes: 1, decode_workers: 1 }),
    );
    expect(bad.findings.map((f) => f.rule)).toEqual(['recipe/engine-gpus-mismatch', 'recipe/engine-gpus-mismatch']);
    expect(bad.findings[0]!.message).toContain('gets 8 GPUs, but its engine flags need 4');
  });

  it('counts dp-attention ranks inside the TP group (DEP8 is 8 GPUs, not 64)', () => {
    const plan = planRecipe(
      sglang(
        { 'tp-size': 8, 'dp-size': 8, 'enable-dp-attention': true, 'ep-size': 8 },
        { prefill_nodes: 1, prefill_workers: 1, decode_nodes: 1, decode_workers: 1 },
      ),
    );
    expect(plan.findings).toEqual([]);
    expect(plan.roles[0]!.engine).toMatchObject({ tp: 8, dp: 8, ep: 8, dpAttn: true, gpus: 8 });
  });

  it('worker sizes that do not tile a node are a warning', () => {
    const plan = planRecipe(
      sglang(
        { 'tensor-parallel-size': 3 },
        { prefill_nodes: 1, prefill_workers: 2, gpus_per_prefill: 3, decode_nodes: 1, decode_workers: 2, gpus_per_decode: 3 },
      ),
    );
    const tiles = plan.findings.filter((f) => f.rule === 'recipe/worker-does-not-tile-node');
    expect(tiles.map((f) => f.severity)).toEqual(['warning', 'warning']);
    expect(tiles[0]!.message).toContain('2 GPU(s) per node stay idle');
  });

  it('a whole-node worker placed over a partly used node is a GPU overlap', () => {
    // Colocated across nodes: decode (8 GPUs) starts at the cursor in the middle of node 0.
    const plan = planRecipe({
      name: 'overlap',
      resources: {
        gpu_type: 'h200',
        gpus_per_node: 8,
        prefill_nodes: 2,
        prefill_workers: 1,
        gpus_per_prefill: 4,
        decode_nodes: 0,
        decode_workers: 1,
        gpus_per_decode: 8,
      },
      backend: { type: 'vllm', allow_prefill_decode_colocation: true, allow_prefill_decode_colocation_across_nodes: true },
    });
    expect(plan.findings.map((f) => f.rule)).toContain('recipe/gpu-overlap');
  });

  it('counts dedicated infra/frontend nodes in the sbatch node count', () => {
    const plan = planRecipe({
      ...sglang({ 'tensor-parallel-size': 8 }, { prefill_nodes: 1, prefill_workers: 1, decode_nodes: 2, decode_workers: 2 }),
      infra: { etcd_nats_dedicated_node: true },
    });
    expect(plan.workerNodes).toBe(3);
    expect(plan.sbatchNodes).toBe(4);
  });
});
