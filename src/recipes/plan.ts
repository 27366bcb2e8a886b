import { engineFlags, engineParallelism } from './engine.js';
import type { EngineParallelism, EngineRole } from './engine.js';
import { AllocationError, allocateEndpoints, colocates, resourceMath, workerNodes } from './topology.js';
import type { Endpoint, PackingOptions, ResourceMath, Resources, WorkerMode } from './topology.js';

/**
 * The dry-run plan of one recipe: how many nodes srtctl asks Slurm for, which worker gets which
 * GPUs of which node, and what is wrong with it (the checks srtctl itself lacks).
 */

export interface PlanFinding {
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  hint: string;
  /** Recipe field the finding is about, e.g. `resources.decode_nodes`. */
  path: string;
}

export interface RolePlan {
  mode: WorkerMode;
  workers: number;
  gpusPerWorker: number;
  engine?: EngineParallelism | undefined;
}

export interface Plan {
  name: string;
  backend: string;
  gpusPerNode: number;
  disaggregated: boolean;
  colocated: boolean;
  hetJobs: boolean;
  /** Worker nodes (`SrtConfig.total_nodes`). */
  workerNodes: number;
  /** Nodes asked of Slurm: worker nodes plus dedicated infra/frontend/client nodes. */
  sbatchNodes: number;
  dedicatedNodes: number;
  roles: RolePlan[];
  endpoints: Endpoint[];
  /** Per worker node: which worker holds each GPU (`prefill_0`), or null when idle. */
  nodeMap: (string | null)[][];
  totalGpus: number;
  usedGpus: number;
  findings: PlanFinding[];
}

type Obj = Record<string, unknown>;

const ENGINE_ROLE: Record<WorkerMode, EngineRole> = { prefill: 'prefill', decode: 'decode', agg: 'aggregated' };

export function planRecipe(recipe: Obj): Plan {
  const resources = (recipe.resources ?? {}) as Resources;
  const backend = (recipe.backend ?? {}) as Obj;
  const backendType = String(backend.type ?? 'sglang');
  const math = resourceMath(resources);
  const options: PackingOptions = {
    colocation: backendType === 'vllm' && backend.allow_prefill_decode_colocation === true,
    colocationAcrossNodes: backend.allow_prefill_decode_colocation_across_nodes === true,
    packMultinodeWorkers: backendType === 'trtllm',
  };
  const findings: PlanFinding[] = [];
  const nodes = workerNodes(math, options);
  const hetJobs = resources.het_jobs === true && math.disaggregated;
  const dedicated = dedicatedRoles(recipe);
  const colocateDedicated = ((recipe.benchmark ?? {}) as Obj).colocate_with_frontend !== false;
  const dedicatedNodes = dedicated === 0 ? 0 : colocateDedicated ? 1 : dedicated;

  const roles: RolePlan[] = (['prefill', 'decode', 'agg'] as const)
    .map((mode) => {
      const shape = math[mode];
      const flags = engineFlags(backend, ENGINE_ROLE[mode]);
      return {
        mode,
        workers: shape.workers,
        gpusPerWorker: shape.gpusPerWorker,
        engine: flags ? engineParallelism(backendType, flags) : undefined,
      };
    })
    .filter((r) => r.workers > 0);

  let endpoints: Endpoint[] = [];
  try {
    endpoints = hetJobs
      ? allocateHet(math, resources, options)
      : allocateEndpoints(math, nodes, options, resources.spread_workers === true);
  } catch (e) {
    if (!(e instanceof AllocationError)) throw e;
    endpoints = e.placed;
    findings.push(fitFinding(math, nodes, e.message, resources));
  }

  const nodeMap: (string | null)[][] = Array.from(
    { length: hetJobs ? (resources.prefill_nodes ?? 0) + (resources.decode_nodes ?? 0) : nodes },
    () => Array<string | null>(math.gpusPerNode).fill(null),
  );
  for (const endpoint of endpoints) {
    endpoint.nodes.forEach((n, k) => {
      for (const g of endpoint.gpus[k]!) {
        const label = `${endpoint.mode}_${endpoint.index}`;
        const row = nodeMap[n];
        if (!row || g >= row.length) continue;
        if (row[g] !== null) {
          findings.push({
            rule: 'recipe/gpu-overlap',
            severity: 'error',
            message: `${label} is placed on node ${n} GPU ${g}, already used by ${row[g]}`,
            hint: 'srtctl places a whole-node worker at its cursor without skipping a partly used node: give the roles whole nodes (e.g. decode_nodes > 0)',
            path: 'resources',
          });
        } else row[g] = label;
      }
    });
  }

  for (const role of roles) {
    if (role.engine && role.engine.gpus !== role.gpusPerWorker) {
      const e = role.engine;
      findings.push({
        rule: 'recipe/engine-gpus-mismatch',
        severity: 'error',
        message: `each ${role.mode} worker gets ${role.gpusPerWorker} GPUs, but its engine flags need ${e.gpus} (tp ${e.tp} × ${e.dpAttn ? 'attention-' : ''}dp ${e.dp} × pp ${e.pp})`,
        hint: `make gpus_per_${role.mode} (or nodes/workers) match the engine's parallelism, or fix the ${backendType}_config flags`,
        path: `resources.gpus_per_${role.mode}`,
      });
    }
    const g = role.gpusPerWorker;
    const gpn = math.gpusPerNode;
    if (g > 0 && ((g < gpn && gpn % g !== 0) || (g > gpn && g % gpn !== 0))) {
      findings.push({
        rule: 'recipe/worker-does-not-tile-node',
        severity: 'warning',
        message: `${role.mode} workers of ${g} GPUs do not tile ${gpn}-GPU nodes: ${g < gpn ? `${gpn % g} GPU(s) per node stay idle` : `each worker holds ${Math.ceil(g / gpn) * gpn} GPUs`}`,
        hint: `use a worker size that divides (or is a multiple of) ${gpn}`,
        path: `resources.gpus_per_${role.mode}`,
      });
    }
  }

  const usedGpus = nodeMap.reduce((sum, row) => sum + row.filter((c) => c !== null).length, 0);
  return {
    name: String(recipe.name ?? ''),
    backend: backendType,
    gpusPerNode: math.gpusPerNode,
    disaggregated: math.disaggregated,
    colocated: colocates(math, options),
    hetJobs,
    workerNodes: nodes,
    sbatchNodes: (hetJobs ? (resources.prefill_nodes ?? 0) + (resources.decode_nodes ?? 0) : nodes) + dedicatedNodes,
    dedicatedNodes,
    roles,
    endpoints,
    nodeMap,
    totalGpus: nodeMap.length * math.gpusPerNode,
    usedGpus,
    findings,
  };
}

function dedicatedRoles(recipe: Obj): number {
  const on = (section: string, key: string): boolean => ((recipe[section] ?? {}) as Obj)[key] === true;
  return [
    on('infra', 'etcd_nats_dedicated_node'),
    on('frontend', 'dedicated_node'),
    on('benchmark', 'client_dedicated_node'),
  ].filter(Boolean).length;
}

/** Het jobs: prefill and decode each allocated on their own nodes. */
function allocateHet(math: ResourceMath, r: Resources, options: PackingOptions): Endpoint[] {
  const prefillNodes = r.prefill_nodes ?? 0;
  const prefill = allocateEndpoints(
    { ...math, decode: { ...math.decode, workers: 0 }, agg: { ...math.agg, workers: 0 } },
    prefillNodes,
    options,
  );
  const decode = allocateEndpoints(
    { ...math, prefill: { ...math.prefill, workers: 0 }, agg: { ...math.agg, workers: 0 } },
    r.decode_nodes ?? 0,
    options,
  );
  return [...prefill, ...decode.map((e) => ({ ...e, nodes: e.nodes.map((n) => n + prefillNodes) }))];
}

function fitFinding(math: ResourceMath, nodes: number, reason: string, r: Resources): PlanFinding {
  const p = math.prefill;
  const d = math.decode;
  const sum = (role: { workers: number; gpusPerWorker: number }, name: string): string =>
    `${role.workers}×${role.gpusPerWorker}-GPU ${name}`;
  if (math.disaggregated && r.decode_nodes === 0) {
    const needed = p.workers * p.gpusPerWorker + d.workers * d.gpusPerWorker;
    return {
      rule: 'recipe/colocation-does-not-fit',
      severity: 'error',
      message: `decode_nodes: 0 puts decode on the prefill nodes, but ${sum(p, 'prefill')} + ${sum(d, 'decode')} = ${needed} GPUs do not fit on ${nodes} node(s) of ${math.gpusPerNode} GPUs (${reason})`,
      hint: 'give decode its own nodes (decode_nodes > 0), or shrink the workers so prefill + decode fit on the prefill nodes',
      path: 'resources.decode_nodes',
    };
  }
  return {
    rule: 'recipe/workers-do-not-fit',
    severity: 'error',
    message: `the workers do not fit on the ${nodes} node(s) requested: ${reason}`,
    hint: 'raise the node counts or lower workers/GPUs per worker',
    path: 'resources',
  };
}

/** A node's GPUs as runs: `prefill_0 GPU 0, decode_0 GPUs 1-4, idle GPUs 5-7`. */
function gpuRuns(row: (string | null)[]): string {
  const runs: { label: string; from: number; to: number }[] = [];
  row.forEach((cell, g) => {
    const label = cell ?? 'idle';
    const last = runs.at(-1);
    if (last && last.label === label) last.to = g;
    else runs.push({ label, from: g, to: g });
  });
  return runs.map((r) => `${r.label} ${r.from === r.to ? `GPU ${r.from}` : `GPUs ${r.from}-${r.to}`}`).join(', ');
}

/** A text rendering of a plan, for terminals. */
export function formatPlan(plan: Plan, label: string): string {
  const lines = [`${label}: ${plan.name}`];
  const mode = plan.disaggregated
    ? `disaggregated${plan.colocated ? ', prefill and decode colocated' : ''}${plan.hetJobs ? ', het job' : ''}`
    : 'aggregated';
  lines.push(`  backend ${plan.backend}, ${mode}, ${plan.gpusPerNode} GPUs per node`);
  for (const role of plan.roles) {
    const e = role.engine;
    const engine = e
      ? `  engine: tp ${e.tp}, dp ${e.dp}${e.dpAttn ? ' (attention)' : ''}, ep ${e.ep}, pp ${e.pp}${e.cp > 1 ? `, cp ${e.cp}` : ''} → ${e.gpus} GPUs`
      : '';
    lines.push(`  ${role.mode.padEnd(7)} ${role.workers} × ${role.gpusPerWorker} GPUs${engine}`);
  }
  lines.push(
    `  nodes: ${plan.sbatchNodes} (${plan.workerNodes} worker${plan.dedicatedNodes ? ` + ${plan.dedicatedNodes} dedicated` : ''}), GPUs used ${plan.usedGpus} of ${plan.totalGpus}`,
  );
  plan.nodeMap.forEach((row, n) => lines.push(`  node${n}: ${gpuRuns(row)}`));
  for (const f of plan.findings) lines.push(`  ${f.severity}: ${f.message}\n    hint: ${f.hint}`);
  return lines.join('\n');
}
