import hardwareData from './data/hardware.json' with { type: 'json' };
import modelData from './data/models.json' with { type: 'json' };
import { UserError } from '../util/user-error.js';

export type Precision = 'bf16' | 'fp8' | 'fp4';
export const PRECISIONS: readonly Precision[] = ['bf16', 'fp8', 'fp4'];

/** One accelerator, per GPU (data/hardware.json: every number with its source). */
export interface Hardware {
  id: string;
  name: string;
  vendor: 'nvidia' | 'amd';
  gpusPerNode: number;
  /** GPUs in one NVLink / Infinity Fabric domain (8 for HGX/OAM, 72 for NVL72). */
  scaleUpDomain: number;
  memoryGB: number;
  memoryBandwidthTBps: number;
  /** Scale-up bandwidth per GPU, one direction. */
  scaleUpBandwidthGBps: number;
  /** Dense tensor-core TFLOP/s; null where the hardware has no such precision. */
  denseTflops: Record<Precision, number | null>;
  /** Board power: the vendor's TDP / total board power, and an idle draw with the model loaded (estimate; see notes). */
  power: { tdpW: number; idleW: number };
  /** Clocks the simulated monitors report: boost and parked SM clock, memory clock (MHz). */
  clocks: { smMaxMHz: number; smIdleMHz: number; memoryMHz: number };
  sources: Record<string, string>;
  notes?: string;
}

export interface Attention {
  type: 'mla' | 'gqa';
  heads: number;
  kvHeads: number;
  headDim: number;
  kvLoraRank?: number;
  qkRopeHeadDim?: number;
  vHeadDim?: number;
  /** Layers whose KV cache grows with the context. */
  fullAttentionLayers: number;
  slidingWindowLayers: number;
  slidingWindow: number | null;
}

export interface Moe {
  experts: number;
  topK: number;
  sharedExperts: number;
  expertIntermediateSize: number;
  /** Leading dense layers. */
  denseLayers: number;
}

/** One model architecture (data/models.json: from the public config.json and model card). */
export interface Model {
  id: string;
  name: string;
  hfRepo: string;
  aliases: string[];
  layers: number;
  hiddenSize: number;
  vocabSize: number;
  maxContext: number;
  attention: Attention;
  intermediateSize: number;
  moe: Moe | null;
  totalParamsB: number;
  activeParamsB: number;
  nativePrecision: string;
  sources: Record<string, string>;
  notes?: string;
}

export const HARDWARE: readonly Hardware[] = hardwareData as Hardware[];
export const MODELS: readonly Model[] = modelData as Model[];

export class CatalogError extends UserError {}

const norm = (s: string): string => s.toLowerCase().replace(/_/g, '-');

/** A GPU by id (`h200`), also as runner labels spell it (`H200`, `h200-dgxc`, `cluster:gb200-nv`). */
export function findHardware(name: string): Hardware {
  const wanted = norm(name).replace(/^cluster:/, '');
  const exact = HARDWARE.find((h) => h.id === wanted);
  if (exact) return exact;
  // Longest id that starts the label: `gb200-nv` is a gb200, not a b200.
  const prefixed = [...HARDWARE].sort((a, b) => b.id.length - a.id.length).find((h) => wanted.startsWith(h.id));
  if (prefixed) return prefixed;
  throw new CatalogError(`unknown hardware "${name}"; known: ${HARDWARE.map((h) => h.id).join(', ')}`);
}

/**
 * What a power step needs to know of a node (`NodeBounds` in src/results/power): the GPU's board
 * power and the node's GPU count (`gpusPerNode` when the run's config gives it, else the
 * catalog's). A GPU the catalog does not know gets the widest bounds of any it knows, so a reading
 * no catalogued board can draw is still refused.
 */
export function powerBoundsOf(
  gpu: string | undefined,
  gpusPerNode?: number,
): { gpu: string; boardPowerW: number; gpusPerNode: number } {
  let known: Hardware | undefined;
  try {
    known = gpu === undefined ? undefined : findHardware(gpu);
  } catch (e) {
    if (!(e instanceof CatalogError)) throw e;
  }
  if (known) return { gpu: known.id, boardPowerW: known.power.tdpW, gpusPerNode: gpusPerNode ?? known.gpusPerNode };
  return {
    gpu: gpu === undefined ? 'any catalogued GPU' : `${gpu} (not in the catalog: the widest bounds of any catalogued GPU)`,
    boardPowerW: Math.max(...HARDWARE.map((h) => h.power.tdpW)),
    gpusPerNode: gpusPerNode ?? Math.max(...HARDWARE.map((h) => h.gpusPerNode)),
  };
}

/** A model by id, Hugging Face repo or alias, case-insensitively (`deepseek-ai/DeepSeek-R1-0528`). */
export function findModel(name: string): Model {
  const wanted = norm(name);
  const found = MODELS.find((m) => [m.id, m.hfRepo, ...m.aliases].some((n) => norm(n) === wanted));
  if (found) return found;
  throw new CatalogError(
    `unknown model "${name}"; known: ${MODELS.map((m) => m.id).join(', ')} (or their Hugging Face names); another model needs an entry in src/sim/data/models.json from its config.json (docs/simulator.md)`,
  );
}
