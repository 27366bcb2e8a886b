import { smiTimestamp } from '../util/date.js';
import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { NodeGpu, NodeSnapshot } from './gpu-registry.js';
import { GPU_REGISTRY_ENV, nodeName, readRegistry, registryClock, snapshotNode } from './gpu-registry.js';
import { virtualEpochMs } from '../util/virtual-clock.js';

/**
 * The fake GPU tools over the node's simulated GPUs (gpu-registry.ts): the subset of `nvidia-smi`
 * and `amd-smi` that GPU monitors use (InferenceX's start_gpu_monitor / stop_gpu_monitor), and a
 * DCGM exporter's /metrics. Loops sample every interval of virtual time and stamp on the run's
 * virtual clock (util/virtual-clock.ts); every line is written at once (a monitor killed mid-run
 * keeps what it printed). Unknown flags are usage errors (exit 2), never ignored.
 */

/** A usage error: the message, exit status 2. */
export class SmiUsageError extends Error {
  readonly status: number;
  constructor(message: string, status = 2) {
    super(message);
    this.status = status;
  }
}

// ---------------------------------------------------------------------------------------------
// Fault injection (FRONTIER_SIM_SMI_FAULT)
// ---------------------------------------------------------------------------------------------

export const SMI_FAULT_ENV = 'FRONTIER_SIM_SMI_FAULT';
/** When the tool was called (epoch seconds, as bash's $EPOCHREALTIME): the GPU stand-in sets it. */
export const SMI_INVOKED_ENV = 'FRONTIER_SIM_SMI_INVOKED';

/**
 * Faults for tests, a comma list; times are virtual seconds since the sampler started:
 * `die-after=SEC` the sampler exits (status 1) after SEC; `clock-jump=SEC@AT` stamps jump by SEC
 * (may be negative) from AT on; `hide-gpu=INDEX` that GPU is never reported; `stall=SEC@AT` no
 * samples from AT for SEC. Each may repeat (die-after: the earliest wins).
 */
export interface SmiFaults {
  dieAfterS: number | undefined;
  clockJumps: { s: number; at: number }[];
  hiddenGpus: Set<number>;
  stalls: { s: number; at: number }[];
}

export function parseFaults(spec: string | undefined): SmiFaults {
  const faults: SmiFaults = { dieAfterS: undefined, clockJumps: [], hiddenGpus: new Set(), stalls: [] };
  for (const item of (spec ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, value = ''] = item.split('=');
    const bad = (): never => {
      throw new SmiUsageError(
        `${SMI_FAULT_ENV}: cannot read "${item}" (die-after=SEC, clock-jump=SEC@AT, hide-gpu=INDEX, stall=SEC@AT)`,
      );
    };
    const num = (s: string | undefined): number => {
      const n = Number(s);
      return s !== undefined && s !== '' && Number.isFinite(n) ? n : bad();
    };
    const at = (): { s: number; at: number } => {
      const [s, when] = value.split('@');
      return { s: num(s), at: num(when) };
    };
    if (name === 'die-after') faults.dieAfterS = Math.min(faults.dieAfterS ?? Infinity, num(value));
    else if (name === 'clock-jump') faults.clockJumps.push(at());
    else if (name === 'hide-gpu') faults.hiddenGpus.add(num(value));
    else if (name === 'stall') faults.stalls.push(at());
    else bad();
  }
  return faults;
}

// ---------------------------------------------------------------------------------------------
// nvidia-smi
// ---------------------------------------------------------------------------------------------

const DRIVER_VERSION = '570.133.20';
const CUDA_VERSION = '12.8';

interface NvidiaField {
  /** Canonical name, as the header prints it. */
  name: string;
  unit?: string;
  value: (g: NodeGpu, stampMs: number) => string | number;
}

const watts = (w: number): string => w.toFixed(2);
const busId = (index: number): string => `00000000:${(0x18 + index * 0x10).toString(16).toUpperCase().padStart(2, '0')}:00.0`;

const NVIDIA_FIELDS: NvidiaField[] = [
  { name: 'timestamp', value: (_g, t) => smiTimestamp(t) },
  { name: 'driver_version', value: () => DRIVER_VERSION },
  { name: 'count', value: () => 0 },
  { name: 'name', value: (g) => g.name },
  { name: 'serial', value: (g) => String(parseInt(g.uuid.slice(4, 12), 16)).padStart(13, '1') },
  { name: 'uuid', value: (g) => g.uuid },
  { name: 'pci.bus_id', value: (g) => busId(g.index) },
  { name: 'index', value: (g) => g.index },
  { name: 'pstate', value: () => 'P0' },
  { name: 'power.draw', unit: 'W', value: (g) => watts(g.powerW) },
  { name: 'power.draw.average', unit: 'W', value: (g) => watts(g.powerW) },
  { name: 'power.draw.instant', unit: 'W', value: (g) => watts(g.powerW) },
  { name: 'power.limit', unit: 'W', value: (g) => watts(g.powerLimitW) },
  { name: 'enforced.power.limit', unit: 'W', value: (g) => watts(g.powerLimitW) },
  { name: 'power.default_limit', unit: 'W', value: (g) => watts(g.powerLimitW) },
  { name: 'power.max_limit', unit: 'W', value: (g) => watts(g.powerLimitW) },
  { name: 'temperature.gpu', value: (g) => g.temperatureC },
  { name: 'temperature.memory', value: (g) => g.memoryTemperatureC },
  { name: 'clocks.current.sm', unit: 'MHz', value: (g) => g.smClockMHz },
  { name: 'clocks.current.memory', unit: 'MHz', value: (g) => g.memoryClockMHz },
  { name: 'clocks.max.sm', unit: 'MHz', value: (g) => g.smClockMHz },
  { name: 'clocks.max.memory', unit: 'MHz', value: (g) => g.memoryClockMHz },
  { name: 'utilization.gpu', unit: '%', value: (g) => g.utilizationGpu },
  { name: 'utilization.memory', unit: '%', value: (g) => g.utilizationMemory },
  { name: 'memory.total', unit: 'MiB', value: (g) => g.memoryTotalMiB },
  { name: 'memory.used', unit: 'MiB', value: (g) => g.memoryUsedMiB },
  { name: 'memory.free', unit: 'MiB', value: (g) => g.memoryTotalMiB - g.memoryUsedMiB },
];

/** Names nvidia-smi accepts for the same field. */
const NVIDIA_ALIASES: Record<string, string> = {
  'clocks.sm': 'clocks.current.sm',
  'clocks.mem': 'clocks.current.memory',
  'clocks.max.mem': 'clocks.max.memory',
  gpu_name: 'name',
  gpu_uuid: 'uuid',
  gpu_bus_id: 'pci.bus_id',
  'power.draw.avg': 'power.draw.average',
};

export interface NvidiaArgs {
  mode: 'query' | 'list' | 'summary';
  fields: NvidiaField[];
  header: boolean;
  units: boolean;
  /** Loop interval (virtual ms), or a single sample. */
  loopMs: number | undefined;
  /** Selected GPUs: indices or UUIDs. */
  ids: string[] | undefined;
}

export function parseNvidiaArgs(args: readonly string[]): NvidiaArgs {
  const out: NvidiaArgs = { mode: 'summary', fields: [], header: true, units: true, loopMs: undefined, ids: undefined };
  let format: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new SmiUsageError(`nvidia-smi: ${flag} needs a value`);
      return v;
    };
    const seconds = (v: string, what: string): number => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new SmiUsageError(`nvidia-smi: ${what} ${v}: expected a positive number`);
      return n;
    };
    switch (flag) {
      case '--query-gpu':
        out.mode = 'query';
        out.fields = value()
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean)
          .map((f) => {
            const name = NVIDIA_ALIASES[f] ?? f;
            const field = NVIDIA_FIELDS.find((x) => x.name === name);
            if (!field) throw new SmiUsageError(`Field "${f}" is not a valid field to query.`);
            return field;
          });
        break;
      case '--format':
        format = value();
        break;
      case '-l':
      case '--loop':
        out.loopMs = seconds(value(), flag) * 1000;
        break;
      case '-lms':
      case '--loop-ms':
        out.loopMs = seconds(value(), flag);
        break;
      case '-i':
      case '--id':
        out.ids = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '-L':
      case '--list-gpus':
        out.mode = 'list';
        break;
      default:
        throw new SmiUsageError(
          `nvidia-smi: unknown or unsupported option ${a} (the simulated nvidia-smi knows --query-gpu, --format, -l, -lms, -i, -L)`,
        );
    }
  }
  if (format !== undefined) {
    const parts = format.split(',').map((s) => s.trim());
    if (parts[0] !== 'csv') throw new SmiUsageError(`nvidia-smi: --format=${format}: only csv[,noheader][,nounits] is simulated`);
    for (const p of parts.slice(1)) {
      if (p === 'noheader') out.header = false;
      else if (p === 'nounits') out.units = false;
      else throw new SmiUsageError(`nvidia-smi: --format=${format}: unknown format option ${p}`);
    }
  }
  if (out.mode === 'query' && format === undefined) throw new SmiUsageError('nvidia-smi: --query-gpu needs --format=csv');
  if (out.mode === 'query' && out.fields.length === 0) throw new SmiUsageError('nvidia-smi: --query-gpu names no field');
  return out;
}

export function nvidiaHeader(a: NvidiaArgs): string {
  return a.fields.map((f) => (a.units && f.unit ? `${f.name} [${f.unit}]` : f.name)).join(', ');
}

export function nvidiaRows(a: NvidiaArgs, gpus: NodeGpu[], stampMs: number): string[] {
  return gpus.map((g) =>
    a.fields
      .map((f) => {
        const v = f.name === 'count' ? gpus.length : f.value(g, stampMs);
        return a.units && f.unit ? `${v} ${f.unit}` : String(v);
      })
      .join(', '),
  );
}

function selectGpus(gpus: NodeGpu[], ids: string[] | undefined, faults: SmiFaults): NodeGpu[] {
  const shown = gpus.filter((g) => !faults.hiddenGpus.has(g.index));
  if (!ids) return shown;
  return shown.filter((g) => ids.includes(String(g.index)) || ids.includes(g.uuid));
}

function nvidiaSummary(gpus: NodeGpu[], stampMs: number): string[] {
  const line = `+${'-'.repeat(89)}+`;
  const row = (s: string): string => `| ${s.padEnd(87)} |`;
  const out = [
    new Date(stampMs).toString().slice(0, 24),
    line,
    row(`NVIDIA-SMI ${DRIVER_VERSION}  (Frontier simulated)   Driver Version: ${DRIVER_VERSION}   CUDA Version: ${CUDA_VERSION}`),
    line,
    row('GPU  Name                            Temp  Perf  Pwr:Usage/Cap    Memory-Usage          GPU-Util'),
  ];
  for (const g of gpus) {
    out.push(
      row(
        `${String(g.index).padEnd(4)} ${g.name.slice(0, 31).padEnd(31)} ${`${g.temperatureC}C`.padEnd(5)} P0    ${`${Math.round(g.powerW)}W / ${Math.round(g.powerLimitW)}W`.padEnd(16)} ${`${g.memoryUsedMiB}MiB / ${g.memoryTotalMiB}MiB`.padEnd(21)} ${g.utilizationGpu}%`,
      ),
    );
  }
  out.push(line);
  return out;
}

// ---------------------------------------------------------------------------------------------
// amd-smi
// ---------------------------------------------------------------------------------------------

type AmdGroup = 'usage' | 'power' | 'clock' | 'temperature' | 'energy';

/** Columns per group, in amd-smi's order (AMDSMI 26.x `metric --csv`, an order-faithful subset). */
const AMD_COLUMNS: Record<AmdGroup, [string, (g: NodeGpu) => string | number][]> = {
  usage: [
    ['gfx_activity', (g) => g.utilizationGpu],
    ['umc_activity', (g) => g.utilizationMemory],
    ['mm_activity', () => 0],
    ['vcn_activity', () => 'N/A'],
    ['jpeg_activity', () => 'N/A'],
    ['gfx_busy_inst_xcp_0', (g) => g.utilizationGpu],
    ['jpeg_busy_xcp_0', () => 'N/A'],
    ['vcn_busy_xcp_0', () => 'N/A'],
  ],
  power: [
    ['socket_power', (g) => Math.round(g.powerW)],
    ['gfx_voltage', () => 'N/A'],
    ['soc_voltage', () => 'N/A'],
    ['mem_voltage', () => 'N/A'],
    ['throttle_status', () => 'N/A'],
    ['power_management', () => 'ENABLED'],
  ],
  clock: [
    ['gfx_0_clk', (g) => g.smClockMHz],
    ['mem_0_clk', (g) => g.memoryClockMHz],
  ],
  temperature: [
    ['edge', () => 'N/A'],
    ['hotspot', (g) => g.temperatureC],
    ['mem', (g) => g.memoryTemperatureC],
  ],
  energy: [['total_energy_consumption', (g) => g.energyJ.toFixed(3)]],
};
const AMD_ORDER: AmdGroup[] = ['usage', 'power', 'clock', 'temperature', 'energy'];

export interface AmdArgs {
  command: 'metric' | 'static' | 'summary';
  groups: AmdGroup[];
  /** Watch interval (virtual ms). */
  watchMs: number | undefined;
  /** Stop watching after this long (virtual ms) or this many samples. */
  watchForMs: number | undefined;
  iterations: number | undefined;
  format: 'csv' | 'json' | 'text';
  gpus: string[] | undefined;
}

export function parseAmdArgs(args: readonly string[]): AmdArgs {
  const out: AmdArgs = {
    command: 'summary',
    groups: [],
    watchMs: undefined,
    watchForMs: undefined,
    iterations: undefined,
    format: 'text',
    gpus: undefined,
  };
  const [command, ...rest] = args;
  if (command === undefined) return out;
  if (command !== 'metric' && command !== 'static') {
    throw new SmiUsageError(`amd-smi: unknown or unsupported command ${command} (the simulated amd-smi knows metric, static)`);
  }
  out.command = command;
  const groups = new Set<AmdGroup>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined) throw new SmiUsageError(`amd-smi: ${a} needs a value`);
      return v;
    };
    const positive = (v: string): number => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new SmiUsageError(`amd-smi: ${a} ${v}: expected a positive number`);
      return n;
    };
    if (command === 'metric' && /^-[pctuE]+$/.test(a)) {
      for (const c of a.slice(1))
        groups.add(({ p: 'power', c: 'clock', t: 'temperature', u: 'usage', E: 'energy' } as const)[c as 'p']);
      continue;
    }
    switch (a) {
      case '--csv':
        out.format = 'csv';
        break;
      case '--json':
        out.format = 'json';
        break;
      case '-g':
      case '--gpu':
        out.gpus = [];
        while (rest[i + 1] !== undefined && !rest[i + 1]!.startsWith('-')) out.gpus.push(rest[++i]!);
        if (out.gpus.length === 0) throw new SmiUsageError(`amd-smi: ${a} needs a GPU`);
        break;
      case '-w':
      case '--watch':
        if (command !== 'metric') throw new SmiUsageError(`amd-smi static: unknown option ${a}`);
        out.watchMs = positive(value()) * 1000;
        break;
      case '-W':
      case '--watch_time':
        out.watchForMs = positive(value()) * 1000;
        break;
      case '-i':
      case '--iterations':
        out.iterations = positive(value());
        break;
      default:
        throw new SmiUsageError(
          `amd-smi ${command}: unknown or unsupported option ${a} (the simulated amd-smi knows metric -p -c -t -u -E -w -W -i -g --csv --json, static --json)`,
        );
    }
  }
  // `-E` alone reports the power group with the energy counter (measured on MI355X).
  if (groups.has('energy')) groups.add('power');
  out.groups = groups.size > 0 ? AMD_ORDER.filter((g) => groups.has(g)) : command === 'metric' ? AMD_ORDER : [];
  if (out.watchMs === undefined && (out.watchForMs !== undefined || out.iterations !== undefined)) out.watchMs = 1000;
  return out;
}

export function amdCsvHeader(a: AmdArgs, watch: boolean): string {
  const cols = a.groups.flatMap((g) => AMD_COLUMNS[g].map(([name]) => name));
  return [...(watch ? ['timestamp'] : []), 'gpu', ...cols].join(',');
}

export function amdCsvRows(a: AmdArgs, gpus: NodeGpu[], stampMs: number | undefined): string[] {
  return gpus.map((g) => {
    const cells = a.groups.flatMap((group) => AMD_COLUMNS[group].map(([, f]) => String(f(g))));
    // Watch mode stamps whole epoch seconds.
    return [...(stampMs === undefined ? [] : [String(Math.floor(stampMs / 1000))]), String(g.index), ...cells].join(',');
  });
}

function amdMetricJson(a: AmdArgs, gpus: NodeGpu[], stampMs: number | undefined): unknown[] {
  return gpus.map((g) => {
    const o: Record<string, unknown> =
      stampMs === undefined ? { gpu: g.index } : { timestamp: Math.floor(stampMs / 1000), gpu: g.index };
    for (const group of a.groups) {
      o[group] = Object.fromEntries(AMD_COLUMNS[group].map(([name, f]) => [name, f(g)]));
    }
    return o;
  });
}

/** `amd-smi static --json`: identity (a subset of the real tool's fields). */
export function amdStatic(gpus: NodeGpu[]): unknown[] {
  return gpus.map((g) => ({
    gpu: g.index,
    asic: {
      market_name: g.name,
      vendor_id: '0x1002',
      vendor_name: 'Advanced Micro Devices Inc. [AMD/ATI]',
      subvendor_id: '0x1002',
      device_id: '0x74a1',
      rev_id: '0x00',
      asic_serial: `0x${g.uuid.replace(/-/g, '').slice(0, 16).toUpperCase()}`,
      oam_id: g.index,
    },
    bus: { bdf: `0000:${(0x05 + g.index * 0x10).toString(16).padStart(2, '0')}:00.0` },
    board: { product_name: g.name, manufacturer_name: 'Advanced Micro Devices, Inc. [AMD/ATI]' },
    limit: { max_power: { value: g.powerLimitW, unit: 'W' } },
    uuid: g.uuid,
    simulated: 'frontier',
  }));
}

// ---------------------------------------------------------------------------------------------
// DCGM exporter
// ---------------------------------------------------------------------------------------------

const DCGM_METRICS: [string, 'gauge' | 'counter', string, (g: NodeGpu) => string][] = [
  ['DCGM_FI_DEV_SM_CLOCK', 'gauge', 'SM clock frequency (in MHz).', (g) => String(g.smClockMHz)],
  ['DCGM_FI_DEV_MEM_CLOCK', 'gauge', 'Memory clock frequency (in MHz).', (g) => String(g.memoryClockMHz)],
  ['DCGM_FI_DEV_MEMORY_TEMP', 'gauge', 'Memory temperature (in C).', (g) => String(g.memoryTemperatureC)],
  ['DCGM_FI_DEV_GPU_TEMP', 'gauge', 'GPU temperature (in C).', (g) => String(g.temperatureC)],
  ['DCGM_FI_DEV_POWER_USAGE', 'gauge', 'Power draw (in W).', (g) => g.powerW.toFixed(3)],
  [
    'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
    'counter',
    'Total energy consumption since boot (in mJ).',
    (g) => String(Math.floor(g.energyJ * 1000)),
  ],
  ['DCGM_FI_DEV_GPU_UTIL', 'gauge', 'GPU utilization (in %).', (g) => String(g.utilizationGpu)],
  ['DCGM_FI_DEV_MEM_COPY_UTIL', 'gauge', 'Memory utilization (in %).', (g) => String(g.utilizationMemory)],
  ['DCGM_FI_DEV_FB_FREE', 'gauge', 'Framebuffer memory free (in MiB).', (g) => String(g.memoryTotalMiB - g.memoryUsedMiB)],
  ['DCGM_FI_DEV_FB_USED', 'gauge', 'Framebuffer memory used (in MiB).', (g) => String(g.memoryUsedMiB)],
];

const label = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** dcgm-exporter's /metrics body (Prometheus text format 0.0.4) for the node's GPUs. */
export function dcgmText(gpus: NodeGpu[], host: string): string {
  const lines: string[] = [];
  for (const [name, type, help, value] of DCGM_METRICS) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const g of gpus) {
      const labels = `gpu="${g.index}",UUID="${label(g.uuid)}",pci_bus_id="${busId(g.index)}",device="nvidia${g.index}",modelName="${label(g.name)}",Hostname="${label(host)}"`;
      lines.push(`${name}{${labels}} ${value(g)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Running a tool
// ---------------------------------------------------------------------------------------------

export interface SmiIo {
  env: NodeJS.ProcessEnv;
  /** Write one line (at once). */
  line: (text: string) => void;
  /** Ends the process (the loop's die-after fault). */
  exit: (status: number) => never;
  /** Stops a loop when it resolves. */
  stopped?: Promise<void>;
}

/** Write a line to a file descriptor at once (no buffering to lose at a kill). */
export function writeLine(fd: number, text: string): void {
  writeSync(fd, `${text}\n`);
}

/**
 * When this tool was invoked (epoch ms): a one-shot reads the GPUs as they were then, and a loop's
 * first tick is then, as a real tool's would be within milliseconds. (Starting Node and the
 * bundle takes a second or more of wall time: many simulated seconds at a high speed, which the
 * readings would otherwise skip.)
 */
const invokedMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const start = performance.timeOrigin;
  // The stand-in's own start (bash's $EPOCHREALTIME, seconds), when it is a plausible moment before ours.
  const given = Number((env[SMI_INVOKED_ENV] ?? '').replace(',', '.')) * 1000;
  return Math.round(Number.isFinite(given) && given > 0 && given <= start && start - given < 10_000 ? given : start);
};

/** The node at a wall time (default: the invocation) and its stamp: epoch ms on the run's virtual clock. */
async function sample(env: NodeJS.ProcessEnv, atWallMs = invokedMs(env)): Promise<{ snapshot: NodeSnapshot; stampMs: number }> {
  const entries = readRegistry(env[GPU_REGISTRY_ENV]);
  const snapshot = await snapshotNode(env, entries, atWallMs);
  const clock = registryClock(entries, env);
  return { snapshot, stampMs: virtualEpochMs(clock, snapshot.wallMs) };
}

/**
 * Call `tick` every `intervalMs` of virtual time until stopped (or a watch limit), applying the
 * faults; the first tick is at the invocation. Ticks are due at start + k × interval (no drift),
 * and each reads the GPUs at its due time, so samples are exactly one interval apart however late
 * the process runs (a tick late by more than an interval catches up at once). Stopped (SIGTERM,
 * SIGINT), it takes one last sample at that moment: the wall-clock instants between a monitor's
 * kill and the next sample (stop_gpu_monitor's one-shot) are many simulated seconds at a high
 * speed, a gap a real tool's last tick would not leave.
 */
async function loop(
  io: SmiIo,
  intervalMs: number,
  faults: SmiFaults,
  tick: (snapshot: NodeSnapshot, stampMs: number) => void,
  limit: { forMs?: number | undefined; iterations?: number | undefined } = {},
): Promise<void> {
  let stopped = false;
  const stop = io.stopped?.then(() => {
    stopped = true;
  });
  const startWall = invokedMs(io.env);
  const scale = registryClock(readRegistry(io.env[GPU_REGISTRY_ENV]), io.env).scale;
  const wallInterval = intervalMs / scale;
  const elapsedAt = (wall: number): number => ((wall - startWall) * scale) / 1000;
  const jumpAt = (elapsedS: number): number =>
    faults.clockJumps.filter((j) => elapsedS >= j.at).reduce((sum, j) => sum + j.s * 1000, 0);
  const stalled = (elapsedS: number): boolean => faults.stalls.some((s) => elapsedS >= s.at && elapsedS < s.at + s.s);
  let done = 0;
  for (let k = 0; !stopped; k++) {
    const due = startWall + k * wallInterval;
    const wait = due - Date.now();
    if (wait > 0) await Promise.race([new Promise((r) => setTimeout(r, wait)), ...(stop ? [stop] : [])]);
    if (stopped) break;
    const elapsedS = elapsedAt(due);
    if (faults.dieAfterS !== undefined && elapsedS >= faults.dieAfterS) {
      process.stderr.write(`frontier sim smi: exiting after ${faults.dieAfterS} s (${SMI_FAULT_ENV} die-after)\n`);
      io.exit(1);
    }
    if (limit.forMs !== undefined && elapsedS * 1000 > limit.forMs) return;
    if (stalled(elapsedS)) continue;
    // Read the GPUs as they were at the tick's due time (the sims' meters hold the past), not
    // whenever this process or the sims get to it: a loaded host delays a tick, not its reading.
    const { snapshot, stampMs } = await sample(io.env, due);
    tick(snapshot, stampMs + jumpAt(elapsedS));
    if (limit.iterations !== undefined && ++done >= limit.iterations) return;
  }
  const now = Date.now();
  const elapsedS = elapsedAt(now);
  if (stalled(elapsedS) || (faults.dieAfterS !== undefined && elapsedS >= faults.dieAfterS)) return;
  const { snapshot, stampMs } = await sample(io.env, now);
  tick(snapshot, stampMs + jumpAt(elapsedS));
}

/** `nvidia-smi ARGS`: exit status. */
export async function runNvidiaSmi(args: readonly string[], io: SmiIo): Promise<number> {
  const a = parseNvidiaArgs(args);
  const faults = parseFaults(io.env[SMI_FAULT_ENV]);
  if (a.loopMs === undefined) {
    const { snapshot, stampMs } = await sample(io.env);
    const gpus = selectGpus(snapshot.gpus, a.ids, faults);
    if (snapshot.gpus.length === 0) {
      io.line('No devices were found');
      return 6;
    }
    if (a.mode === 'list') for (const g of gpus) io.line(`GPU ${g.index}: ${g.name} (UUID: ${g.uuid})`);
    else if (a.mode === 'summary') for (const l of nvidiaSummary(gpus, stampMs)) io.line(l);
    else {
      if (a.header) io.line(nvidiaHeader(a));
      for (const r of nvidiaRows(a, gpus, stampMs)) io.line(r);
    }
    return 0;
  }
  if (a.mode !== 'query') throw new SmiUsageError('nvidia-smi: -l/-lms is simulated with --query-gpu only');
  // The header once, then every GPU's row each interval.
  if (a.header) io.line(nvidiaHeader(a));
  await loop(io, a.loopMs, faults, (snapshot, stampMs) => {
    for (const r of nvidiaRows(a, selectGpus(snapshot.gpus, a.ids, faults), stampMs)) io.line(r);
  });
  return 0;
}

/** `amd-smi ARGS`: exit status. */
export async function runAmdSmi(args: readonly string[], io: SmiIo): Promise<number> {
  const a = parseAmdArgs(args);
  const faults = parseFaults(io.env[SMI_FAULT_ENV]);
  const pick = (gpus: NodeGpu[]): NodeGpu[] => {
    const shown = gpus.filter((g) => !faults.hiddenGpus.has(g.index));
    return a.gpus ? shown.filter((g) => a.gpus!.includes(String(g.index)) || a.gpus!.includes(g.uuid)) : shown;
  };
  if (a.command === 'summary') {
    const { snapshot } = await sample(io.env);
    io.line('GPU  POWER  GPU%  MEM_USE  (Frontier simulated amd-smi)');
    for (const g of pick(snapshot.gpus))
      io.line(`${g.index}    ${Math.round(g.powerW)} W  ${g.utilizationGpu} %  ${g.memoryUsedMiB} MB`);
    return 0;
  }
  if (a.command === 'static') {
    const { snapshot } = await sample(io.env);
    if (a.format !== 'json') throw new SmiUsageError('amd-smi static: only --json is simulated');
    io.line(JSON.stringify(amdStatic(pick(snapshot.gpus)), null, 4));
    return 0;
  }
  if (a.format === 'text') throw new SmiUsageError('amd-smi metric: only --csv and --json are simulated');
  if (a.watchMs === undefined) {
    const { snapshot } = await sample(io.env);
    const gpus = pick(snapshot.gpus);
    if (a.format === 'json') io.line(JSON.stringify(amdMetricJson(a, gpus, undefined), null, 4));
    else {
      io.line(amdCsvHeader(a, false));
      for (const r of amdCsvRows(a, gpus, undefined)) io.line(r);
    }
    return 0;
  }
  // Watch mode: a preamble line, then a header and the GPUs' rows per tick (benchmark_lib's awk
  // keeps the first header and drops the preamble and the repeats).
  io.line("'CTRL' + 'C' to stop watching output:");
  await loop(
    io,
    a.watchMs,
    faults,
    (snapshot, stampMs) => {
      const gpus = pick(snapshot.gpus);
      if (a.format === 'json') io.line(JSON.stringify(amdMetricJson(a, gpus, stampMs), null, 4));
      else {
        io.line(amdCsvHeader(a, true));
        for (const r of amdCsvRows(a, gpus, stampMs)) io.line(r);
      }
    },
    { forMs: a.watchForMs, iterations: a.iterations },
  );
  return 0;
}

/** The DCGM exporter's body for the node now. */
export async function dcgmMetrics(env: NodeJS.ProcessEnv): Promise<string> {
  const faults = parseFaults(env[SMI_FAULT_ENV]);
  // An exporter answers each scrape as of that scrape, not as of its own start.
  const { snapshot } = await sample(env, Date.now());
  return dcgmText(
    snapshot.gpus.filter((g) => !faults.hiddenGpus.has(g.index)),
    nodeName(env),
  );
}
