import { topologyLabel } from '../contract/index.js';
import type { TopologyRole, TopologyShape } from '../contract/index.js';
import type { Hardware, Model } from '../sim/index.js';
import type { PoolOptions } from '../sim/index.js';

/**
 * The deployments the planner tries for a model on a GPU: aggregated instances (TP, and for MoE
 * models TEP, DEP and DPATP, within one node) and disaggregated xPyD pairs of a TP prefill role
 * and a decode role (TP, and DEP for MoE models), bounded by a GPU budget and a worker count.
 * Replicas are left out: per GPU, k copies of a deployment measure what one does, and so does
 * kPkD against its 1P1D. Prefill is TP only and workers are few by default to keep the search to
 * seconds: every disaggregated candidate costs a simulation at its highest concurrency.
 */

export interface Candidate {
  /** "TP8", "DEP8", "1P2D TP1/TP4". */
  label: string;
  shape: TopologyShape;
  /** What buildTopology takes for it (model, hardware and precision are added by the caller). */
  parallelism: PoolOptions & {
    prefillWorkers?: number;
    decodeWorkers?: number;
    prefill?: PoolOptions;
    decode?: PoolOptions;
  };
  gpus: number;
  /** A disaggregated deployment whose prefill and decode workers share one node. */
  colocated: boolean;
}

export interface EnumerateOptions {
  model: Model;
  hardware: Hardware;
  /** Most GPUs one deployment may use (default: two nodes). */
  maxGpus?: number | undefined;
  /** Most workers of one role in a disaggregated deployment (default 2: 1P1D, 1P2D, 2P1D). */
  maxWorkers?: number | undefined;
}

const powersOfTwoUpTo = (n: number): number[] => {
  const out: number[] = [];
  for (let p = 1; p <= n; p *= 2) out.push(p);
  return out;
};

const role = (tp: number, ep: number, dpAttn: boolean): TopologyRole => ({ tp, ep, dpAttn, pp: 1 });

/** One instance's layouts: TP for every model; TEP, DEP and DPATP too for MoE models (tp > 1). */
export function aggregatedRoles(model: Model, tps: number[]): TopologyRole[] {
  const roles: TopologyRole[] = [];
  for (const tp of tps) {
    roles.push(role(tp, 1, false));
    if (!model.moe || tp === 1) continue;
    roles.push(role(tp, tp, false), role(tp, tp, true), role(tp, 1, true));
  }
  return roles;
}

/** The roles of one side of a disaggregated deployment: TP, and DEP for MoE models. */
export function disaggregatedRoles(model: Model, tps: number[]): TopologyRole[] {
  const roles = tps.map((tp) => role(tp, 1, false));
  if (model.moe) roles.push(...tps.filter((tp) => tp > 1).map((tp) => role(tp, tp, true)));
  return roles;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const poolOptions = (r: TopologyRole): PoolOptions => ({ tp: r.tp, ep: r.ep, dpAttn: r.dpAttn });

export function enumerateDeployments(options: EnumerateOptions): Candidate[] {
  const { model, hardware } = options;
  const maxGpus = options.maxGpus ?? 2 * hardware.gpusPerNode;
  const maxWorkers = options.maxWorkers ?? 2;
  const tps = powersOfTwoUpTo(Math.min(hardware.gpusPerNode, maxGpus));
  const out: Candidate[] = [];
  for (const r of aggregatedRoles(model, tps)) {
    const shape: TopologyShape = { kind: 'aggregated', workers: 1, role: r };
    out.push({ label: topologyLabel(shape), shape, parallelism: poolOptions(r), gpus: r.tp, colocated: false });
  }
  const decodeRoles = disaggregatedRoles(model, tps);
  const prefillRoles = decodeRoles.filter((r) => !r.dpAttn);
  for (const prefill of prefillRoles) {
    for (const decode of decodeRoles) {
      for (let x = 1; x <= maxWorkers; x++) {
        for (let y = 1; y <= maxWorkers; y++) {
          const gpus = x * prefill.tp + y * decode.tp;
          if (gpus > maxGpus || gcd(x, y) !== 1) continue;
          const shape: TopologyShape = { kind: 'disaggregated', prefillWorkers: x, decodeWorkers: y, prefill, decode };
          out.push({
            label: topologyLabel(shape),
            shape,
            parallelism: { prefillWorkers: x, decodeWorkers: y, prefill: poolOptions(prefill), decode: poolOptions(decode) },
            gpus,
            colocated: gpus <= hardware.gpusPerNode,
          });
        }
      }
    }
  }
  return out;
}
