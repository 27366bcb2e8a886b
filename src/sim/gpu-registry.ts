import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Hardware } from './catalog.js';
import { findHardware } from './catalog.js';
import { spreadOf, DEFAULT_POWER_FACTORS } from './power.js';
import type { GpuReading } from './power.js';
import { CLOCK_ANCHOR_ENV } from '../util/virtual-clock.js';
import { UserError } from '../util/user-error.js';
import { processAlive } from '../util/process-alive.js';

/**
 * The node's simulated GPUs, for the fake GPU tools (smi.ts, the DCGM exporter). A `frontier sim
 * serve` started with FRONTIER_SIM_GPU_REGISTRY=DIR writes DIR/<pid>.json: which node-local GPU
 * indices it holds, their UUIDs, its URL (GET /sim/gpus answers their power), its speed and clock
 * anchor; it removes the file on exit. The node's inventory (FRONTIER_SIM_NODE_GPUS,
 * FRONTIER_SIM_NODE_HARDWARE; default: the registered GPUs) adds GPUs no sim holds, which idle.
 */

export const GPU_REGISTRY_ENV = 'FRONTIER_SIM_GPU_REGISTRY';
export const NODE_GPUS_ENV = 'FRONTIER_SIM_NODE_GPUS';
export const NODE_HARDWARE_ENV = 'FRONTIER_SIM_NODE_HARDWARE';

export interface RegisteredGpu {
  /** Node-local index (nvidia-smi's `index`, amd-smi's `gpu`). */
  index: number;
  uuid: string;
  /** Its slot in the server's GET /sim/gpus answer. */
  slot: number;
}

export interface RegistryEntry {
  pid: number;
  url: string;
  host: string;
  hardware: string;
  speed: number;
  /** Epoch ms where the run's virtual and wall clocks agree (FRONTIER_CLOCK_ANCHOR, else the server's start). */
  anchorMs: number;
  /** Wall epoch ms of the server's start (its virtual time 0). */
  startedMs: number;
  gpus: RegisteredGpu[];
}

/** The name of this node: its simulated address on a simulated cluster, else the host name. */
export const nodeName = (env: NodeJS.ProcessEnv = process.env): string => env.FRONTIER_NODE_ADDR || hostname();

/** A stable fake UUID per node and index, as the vendor prints it (NVIDIA `GPU-…`, AMD bare). */
export function gpuUuid(host: string, index: number, vendor: Hardware['vendor']): string {
  const h = createHash('sha256').update(`${host}/${index}`).digest('hex');
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  return vendor === 'nvidia' ? `GPU-${id}` : id;
}

/** Node-local indices of `count` GPUs: CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES when they name enough, else 0…count−1. */
export function visibleIndices(count: number, env: NodeJS.ProcessEnv = process.env): number[] {
  for (const name of ['CUDA_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES', 'ROCR_VISIBLE_DEVICES']) {
    const v = env[name];
    if (!v) continue;
    const ids = v.split(',').map((s) => s.trim());
    if (ids.length >= count && ids.every((s) => /^\d+$/.test(s))) return ids.slice(0, count).map(Number);
  }
  return Array.from({ length: count }, (_, i) => i);
}

/** Write this server's entry; returns its removal (also run at exit). */
export function registerGpus(
  dir: string,
  server: { url: string; hardware: Hardware; gpus: number; speed: number; startedMs: number },
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  mkdirSync(dir, { recursive: true });
  const host = nodeName(env);
  const anchor = Number(env[CLOCK_ANCHOR_ENV]);
  const entry: RegistryEntry = {
    pid: process.pid,
    url: server.url,
    host,
    hardware: server.hardware.id,
    speed: server.speed,
    anchorMs: Number.isFinite(anchor) && anchor > 0 ? anchor : server.startedMs,
    startedMs: server.startedMs,
    gpus: visibleIndices(server.gpus, env).map((index, slot) => ({
      index,
      slot,
      uuid: gpuUuid(host, index, server.hardware.vendor),
    })),
  };
  const file = join(dir, `${process.pid}.json`);
  writeFileSync(file, `${JSON.stringify(entry, null, 2)}\n`);
  const remove = (): void => rmSync(file, { force: true });
  process.once('exit', remove);
  return remove;
}

/** The live entries of a registry (files of exited processes are skipped). */
export function readRegistry(dir: string | undefined): RegistryEntry[] {
  if (!dir) return [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const entries: RegistryEntry[] = [];
  for (const name of names.sort()) {
    try {
      const e = JSON.parse(readFileSync(join(dir, name), 'utf8')) as RegistryEntry;
      if (processAlive(e.pid)) entries.push(e);
    } catch {
      // Half-written or removed meanwhile: not there yet.
    }
  }
  return entries;
}

/** One GPU of the node as the tools report it. */
export interface NodeGpu extends Omit<GpuReading, 'slot' | 'instance' | 'energyJ'> {
  index: number;
  uuid: string;
  name: string;
  vendor: Hardware['vendor'];
  /** Energy since "boot" (J): a per-GPU base, idle until the sim started, then its accumulator. */
  energyJ: number;
  /** Held by a running sim (else idle). */
  held: boolean;
}

export interface NodeSnapshot {
  /** Wall epoch ms of the readings. */
  wallMs: number;
  gpus: NodeGpu[];
}

/** The virtual clock the tools stamp on: the sims' speed, FRONTIER_CLOCK_ANCHOR, else an entry's anchor. */
export function registryClock(
  entries: RegistryEntry[],
  env: NodeJS.ProcessEnv = process.env,
): { scale: number; anchorMs: number } {
  const first = entries[0];
  const envScale = Number(env.FRONTIER_TIME_SCALE);
  const scale = first?.speed ?? (Number.isFinite(envScale) && envScale > 0 ? envScale : 1);
  const anchor = Number(env[CLOCK_ANCHOR_ENV]);
  const anchorMs = Number.isFinite(anchor) && anchor > 0 ? anchor : (first?.anchorMs ?? Date.now());
  return { scale, anchorMs };
}

/** A GPU's energy counter before the run: some days at idle, fixed per UUID (a real counter counts from boot). */
function baseEnergyJ(uuid: string, idleW: number): number {
  const days = 1 + (parseInt(createHash('sha256').update(uuid).digest('hex').slice(0, 6), 16) % 9);
  return idleW * 86_400 * days;
}

/** An idle GPU's state at virtual ms `virtualMs` since the anchor. */
function idleGpu(index: number, uuid: string, hardware: Hardware, virtualMs: number): NodeGpu {
  const k = spreadOf(index, DEFAULT_POWER_FACTORS.spread);
  const f = DEFAULT_POWER_FACTORS;
  return {
    index,
    uuid,
    name: hardware.name,
    vendor: hardware.vendor,
    hardware: hardware.id,
    held: false,
    powerW: hardware.power.idleW * k,
    energyJ: baseEnergyJ(uuid, hardware.power.idleW) + (hardware.power.idleW * k * Math.max(0, virtualMs)) / 1000,
    utilizationGpu: 0,
    utilizationMemory: 0,
    temperatureC: f.idleTempC,
    memoryTemperatureC: f.idleTempC + 4,
    smClockMHz: hardware.clocks.smIdleMHz,
    memoryClockMHz: hardware.clocks.memoryMHz,
    powerLimitW: hardware.power.tdpW,
    memoryUsedMiB: 0,
    memoryTotalMiB: Math.round((hardware.memoryGB * 1e9) / 2 ** 20),
  };
}

interface SimGpusAnswer {
  wallMs: number;
  virtualMs: number;
  gpus: GpuReading[];
}

/**
 * Every GPU of the node at `atWallMs` (default now; a sampler's tick): the registered sims' (from their GET /sim/gpus), then the
 * inventory's others at idle. A sim that does not answer counts as gone (its GPUs idle).
 */
export async function snapshotNode(
  env: NodeJS.ProcessEnv = process.env,
  entries = readRegistry(env[GPU_REGISTRY_ENV]),
  atWallMs = Date.now(),
): Promise<NodeSnapshot> {
  const clock = registryClock(entries, env);
  const answers = await Promise.all(
    entries.map(async (e) => {
      try {
        const res = await fetch(`${e.url}/sim/gpus?wallMs=${atWallMs}`, { signal: AbortSignal.timeout(2000) });
        if (!res.ok) return undefined;
        return (await res.json()) as SimGpusAnswer;
      } catch {
        return undefined;
      }
    }),
  );
  const wallMs = answers.find((a) => a)?.wallMs ?? atWallMs;
  const virtualSinceAnchor = (wallMs - clock.anchorMs) * clock.scale;
  const gpus = new Map<number, NodeGpu>();
  entries.forEach((e, i) => {
    const answer = answers[i];
    if (!answer) return;
    const hardware = findHardware(e.hardware);
    // Idle from the anchor until the server started, then the server's accumulator.
    const beforeMs = Math.max(0, (e.startedMs - clock.anchorMs) * clock.scale);
    for (const g of e.gpus) {
      const r = answer.gpus[g.slot];
      if (!r) continue;
      const idle = idleGpu(g.index, g.uuid, hardware, beforeMs);
      gpus.set(g.index, {
        ...idle,
        ...r,
        index: g.index,
        uuid: g.uuid,
        held: true,
        energyJ: idle.energyJ + r.energyJ,
      });
    }
  });
  const count = Number(env[NODE_GPUS_ENV]);
  if (Number.isInteger(count) && count > 0) {
    const id = env[NODE_HARDWARE_ENV] ?? entries[0]?.hardware;
    if (!id) throw new UserError(`${NODE_GPUS_ENV}=${count} needs ${NODE_HARDWARE_ENV} (no sim is registered to take it from)`);
    const hardware = findHardware(id);
    const host = nodeName(env);
    for (let index = 0; index < count; index++) {
      if (!gpus.has(index)) gpus.set(index, idleGpu(index, gpuUuid(host, index, hardware.vendor), hardware, virtualSinceAnchor));
    }
  }
  // Registered but not answering: idle, so the GPU does not vanish from the node.
  entries.forEach((e, i) => {
    if (answers[i]) return;
    const hardware = findHardware(e.hardware);
    for (const g of e.gpus) if (!gpus.has(g.index)) gpus.set(g.index, idleGpu(g.index, g.uuid, hardware, virtualSinceAnchor));
  });
  return { wallMs, gpus: [...gpus.values()].sort((a, b) => a.index - b.index) };
}
