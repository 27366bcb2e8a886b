import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeStandins } from '../../src/launch/inferencex/standins.js';
import { integrateDevice } from '../../src/results/power/common.js';
import type { PowerSample } from '../../src/results/power/common.js';
import { announcedUrl, CLI, runCli, runCliAsync } from '../helpers.js';
import { waitFor } from '../support/wait.js';

/**
 * The simulated GPU monitors against a real `frontier sim serve` (the built bundle): the fake
 * nvidia-smi loop as a child process, its CSV read by the reference's column rules
 * (utils/aggregate_power.py: columns found by name, "412.34 W", naive local timestamps).
 */

const SPEED = 20;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Wall ms for virtual seconds. */
const virtual = (s: number): number => (s * 1000) / SPEED;
/** A monitor CSV's complete lines so far, header included (a line being written is left out). */
const completeLines = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean);
};
const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.on('exit', (code) => resolve(code)));

// --- The reference's column rules (utils/aggregate_power.py _detect_columns, _parse_timestamp, _parse_power) ---

function detectColumns(header: string[]): { time?: number; power?: number; gpu?: number } {
  const time = header.findIndex((c) => /time/i.test(c));
  const power = header.findIndex((c) => /power/i.test(c) && !/limit|cap|max|min/i.test(c));
  const gpu = header.findIndex((c) => /^(index|gpu|gpu_id|gpu_index|card|device)$/i.test(c.trim()));
  return { time: time < 0 ? undefined : time, power: power < 0 ? undefined : power, gpu: gpu < 0 ? undefined : gpu };
}

/** Epoch seconds; nvidia-smi's naive stamps read as UTC (the children run with TZ=UTC). */
function parseTimestamp(v: string): number | undefined {
  const s = v.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    return n > 1e12 ? n / 1000 : n;
  }
  const m = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se, frac = '0'] = m;
  return Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +se!) / 1000 + Number(`0.${frac}`);
}

const parsePower = (v: string): number | undefined => {
  const m = /-?\d+(?:\.\d+)?/.exec(v);
  return m ? Number(m[0]) : undefined;
};

/** Samples per GPU id from a monitor CSV (skipinitialspace, as csv.DictReader reads it there). */
function samplesByGpu(csv: string): Map<string, PowerSample[]> {
  const [head, ...rows] = csv.split('\n').filter((l) => l.length > 0);
  const cols = detectColumns(head!.split(',').map((c) => c.trim()));
  expect(cols.time).toBeDefined();
  expect(cols.power).toBeDefined();
  expect(cols.gpu).toBeDefined();
  const out = new Map<string, PowerSample[]>();
  for (const row of rows) {
    const cells = row.split(',').map((c) => c.trim());
    const t = parseTimestamp(cells[cols.time!]!);
    const p = parsePower(cells[cols.power!]!);
    if (t === undefined || p === undefined) throw new Error(`unparseable row: ${row}`);
    const id = cells[cols.gpu!]!;
    if (!out.has(id)) out.set(id, []);
    out.get(id)!.push([t, p]);
  }
  for (const s of out.values()) s.sort((a, b) => a[0] - b[0]);
  return out;
}

const gaps = (s: readonly PowerSample[]): number[] => s.slice(1).map((x, i) => x[0] - s[i]![0]);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// --- A simulated node ---

interface Node {
  url: string;
  env: Record<string, string>;
}

async function startSim(dir: string, anchor: number): Promise<Node> {
  const env = { FRONTIER_SIM_GPU_REGISTRY: join(dir, 'registry'), FRONTIER_CLOCK_ANCHOR: String(anchor), TZ: 'UTC' };
  const args = ['sim', 'serve', '--port', '0', '--hardware', 'h100', '--tp', '2', '--speed', String(SPEED)];
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const url = await announcedUrl(child);
  // Registered before it announces itself.
  expect(readdirSync(env.FRONTIER_SIM_GPU_REGISTRY)).toHaveLength(1);
  return { url, env };
}

/** Start a fake tool with stdout to `file`. */
function startTool(node: Node, file: string, args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [CLI, 'sim', 'smi', ...args], {
    env: { ...process.env, ...node.env, ...extraEnv },
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  children.push(child);
  return child;
}

/** The sim's accumulators summed, and when (epoch seconds on the run's virtual clock). */
async function totalEnergy(url: string, anchor: number): Promise<{ joules: number; at: number }> {
  const body = (await (await fetch(`${url}/sim/gpus`)).json()) as { wallMs: number; gpus: { energyJ: number }[] };
  return { joules: body.gpus.reduce((s, g) => s + g.energyJ, 0), at: (anchor + (body.wallMs - anchor) * SPEED) / 1000 };
}

/** Load: `n` concurrent requests with long prompts and outputs. */
async function load(url: string, n: number, maxTokens: number): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`${url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({
          model: 'meta-llama/Llama-3.1-8B-Instruct',
          // Token ids: no tokenizing on the sim's event loop.
          prompt: Array.from({ length: 2000 }, (_, k) => 100 + ((k * 7 + i * 13) % 5000)),
          max_tokens: maxTokens,
          ignore_eos: true,
        }),
      }).then((r) => r.text()),
    ),
  );
}

const QUERY =
  'timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory';

describe('frontier sim smi nvidia-smi against a running sim', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-smi-'));
  const anchor = Date.now();
  let node: Node;

  it('samples every virtual second on the run clock; power rises under load, falls back to idle, and matches the accumulator', async () => {
    node = await startSim(dir, anchor);
    const csvFile = join(dir, 'gpu_metrics.csv');
    const wallStart = Date.now();
    const e0 = await totalEnergy(node.url, anchor);
    const monitor = startTool(node, csvFile, ['nvidia-smi', `--query-gpu=${QUERY}`, '--format=csv', '-l', '1']);
    await waitFor(() => completeLines(csvFile).length >= 1 + 8, {
      what: `four idle samples per GPU in ${csvFile}`,
      timeoutMs: 20_000,
    });
    await load(node.url, 64, 1500);
    await waitFor(
      () => {
        const latest = [...samplesByGpu(completeLines(csvFile).join('\n')).values()].map((s) => s.at(-1)![1]);
        return latest.length === 2 && latest.every((w) => w < 75);
      },
      { what: `both GPUs back at idle after the load in ${csvFile}`, timeoutMs: 20_000 },
    );
    monitor.kill('SIGTERM');
    expect(await exited(monitor)).toBe(0);
    const e1 = await totalEnergy(node.url, anchor);
    const wallEnd = Date.now();

    const csv = readFileSync(csvFile, 'utf8');
    expect(csv.split('\n')[0]).toBe(
      'timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], clocks.current.memory [MHz], utilization.gpu [%], utilization.memory [%]',
    );
    expect(csv.split('\n')[1]).toMatch(
      /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d\.\d{3}, 0, \d+\.\d\d W, \d+, \d+ MHz, \d+ MHz, \d+ %, \d+ %$/,
    );
    const byGpu = samplesByGpu(csv);
    expect([...byGpu.keys()]).toEqual(['0', '1']);
    const s = byGpu.get('0')!;
    // Every virtual second, on the run's virtual clock (anchor + (wall − anchor) × speed).
    expect(median(gaps(s))).toBeGreaterThan(0.9);
    expect(median(gaps(s))).toBeLessThan(1.1);
    expect(Math.max(...gaps(s))).toBeLessThan(3);
    const v = (wall: number): number => (anchor + (wall - anchor) * SPEED) / 1000;
    expect(s[0]![0]).toBeGreaterThan(v(wallStart));
    expect(s.at(-1)![0]).toBeLessThan(v(wallEnd));
    // Idle, then loaded, then idle again (H100: 70 W idle, 700 W TDP).
    const watts = s.map((x) => x[1]);
    expect(watts[0]).toBeLessThan(75);
    expect(Math.max(...watts)).toBeGreaterThan(350);
    expect(watts.at(-1)).toBeLessThan(75);
    // The stream's integral against the exact accumulator's delta (the reference's 5 % tolerance):
    // the accumulator was read before the monitor started and after it stopped, idle spans the
    // stream does not cover, counted at the stream's first and last readings.
    let integrated = 0;
    for (const x of byGpu.values()) {
      integrated += integrateDevice(x, x[0]![0], x.at(-1)![0]);
      integrated += x[0]![1] * (x[0]![0] - e0.at) + x.at(-1)![1] * (e1.at - x.at(-1)![0]);
    }
    const delta = e1.joules - e0.joules;
    // Well inside the reference's 5 %: the samples read the same exact model at their stamps.
    expect(Math.abs(delta - integrated) / delta).toBeLessThan(0.02);
  }, 60_000);

  it('one-shot samples stamp naive local time: the process TZ decides', () => {
    const at = (tz: string): number => {
      const r = runCli(['sim', 'smi', 'nvidia-smi', '--query-gpu=timestamp,index', '--format=csv,noheader'], {
        env: { ...node.env, TZ: tz },
      });
      expect(r.status, r.stderr).toBe(0);
      return parseTimestamp(r.stdout.split('\n')[0]!.split(', ')[0]!)!;
    };
    const utc = at('UTC');
    const tokyo = at('Asia/Tokyo');
    // Tokyo's wall clock reads 9 h ahead (less the virtual time between the two calls).
    expect(tokyo - utc).toBeGreaterThan(9 * 3600);
    expect(tokyo - utc).toBeLessThan(9 * 3600 + 300);
  });

  it('lists GPUs with stable UUIDs and reports units, noheader and nounits as nvidia-smi does', () => {
    const list = runCli(['sim', 'smi', 'nvidia-smi', '-L'], { env: node.env });
    expect(list.stdout).toMatch(
      /^GPU 0: NVIDIA H100 SXM5 80GB \(UUID: GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)\nGPU 1: /,
    );
    expect(runCli(['sim', 'smi', 'nvidia-smi', '-L'], { env: node.env }).stdout).toBe(list.stdout);
    const plain = runCli(
      ['sim', 'smi', 'nvidia-smi', '--query-gpu=index,power.draw,memory.used', '--format=csv,nounits', '-i', '1'],
      {
        env: node.env,
      },
    );
    expect(plain.stdout).toMatch(/^index, power\.draw, memory\.used\n1, \d+\.\d\d, \d+\n$/);
  });

  it('injected faults: a hidden GPU, a stall, a clock jump, and a sampler that dies mid-run', async () => {
    const file = join(dir, 'faulty.csv');
    const monitor = startTool(node, file, ['nvidia-smi', '--query-gpu=timestamp,index,power.draw', '--format=csv', '-l', '1'], {
      FRONTIER_SIM_SMI_FAULT: 'hide-gpu=1,stall=4@3,clock-jump=30@10,die-after=14',
    });
    expect(await exited(monitor)).toBe(1);
    const byGpu = samplesByGpu(readFileSync(file, 'utf8'));
    expect([...byGpu.keys()]).toEqual(['0']);
    const g = gaps(byGpu.get('0')!);
    expect(g.some((x) => x > 4 && x < 7)).toBe(true);
    expect(g.some((x) => x > 29 && x < 33)).toBe(true);
    expect(byGpu.get('0')!.length).toBeGreaterThan(6);
    expect(byGpu.get('0')!.length).toBeLessThan(13);
  }, 30_000);

  it('answers unknown flags and bad faults with status 2, naming them', () => {
    const bogus = runCli(['sim', 'smi', 'nvidia-smi', '--query-gpu=index', '--format=csv', '--bogus'], { env: node.env });
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain('--bogus');
    const field = runCli(['sim', 'smi', 'nvidia-smi', '--query-gpu=index,wattage', '--format=csv'], { env: node.env });
    expect(field.status).toBe(2);
    expect(field.stderr).toContain('"wattage"');
    const amd = runCli(['sim', 'smi', 'amd-smi', 'metric', '-z'], { env: node.env });
    expect(amd.status).toBe(2);
    expect(amd.stderr).toContain('-z');
    const fault = runCli(['sim', 'smi', 'nvidia-smi', '-L'], { env: { ...node.env, FRONTIER_SIM_SMI_FAULT: 'explode=1' } });
    expect(fault.status).toBe(2);
    expect(fault.stderr).toContain('explode=1');
  });
});

describe('frontier sim smi amd-smi on a node inventory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-amd-'));
  const env = {
    FRONTIER_SIM_GPU_REGISTRY: join(dir, 'registry'),
    FRONTIER_SIM_NODE_GPUS: '8',
    FRONTIER_SIM_NODE_HARDWARE: 'mi300x',
    FRONTIER_TIME_SCALE: String(SPEED),
    FRONTIER_CLOCK_ANCHOR: String(Date.now()),
  };

  it("watch mode through benchmark_lib.sh's awk filter reads as the reference reads AMD CSVs", () => {
    const out = join(dir, 'gpu_metrics.csv');
    // start_gpu_monitor's pipeline, verbatim but for the tool.
    const r = spawnSync(
      'bash',
      [
        '-c',
        `PYTHONUNBUFFERED=1 "$NODE" "$CLI" sim smi amd-smi metric -p -c -t -u -w 1 -W 6 --csv 2>/dev/null | awk '/^timestamp,/{if(!h){print;h=1};next} h{print;fflush()}' > "$OUT"`,
      ],
      { env: { ...process.env, ...env, NODE: process.execPath, CLI, OUT: out }, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const csv = readFileSync(out, 'utf8');
    const header = csv.split('\n')[0]!.split(',');
    expect(header.slice(0, 3)).toEqual(['timestamp', 'gpu', 'gfx_activity']);
    expect(header[detectColumns(header).power!]).toBe('socket_power');
    expect(csv.match(/^timestamp,/gm)).toHaveLength(1);
    const byGpu = samplesByGpu(csv);
    expect([...byGpu.keys()]).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    for (const s of byGpu.values()) {
      // Whole epoch seconds, bare watts at the MI300X's idle.
      expect(s.every(([t]) => Number.isInteger(t))).toBe(true);
      expect(s.every(([, w]) => w >= 135 && w <= 145)).toBe(true);
      expect(s.length).toBeGreaterThanOrEqual(5);
    }
  });

  it('energy snapshots (metric -E) have the measured MI355X shape and advance at idle; static --json is identity', async () => {
    const first = await runCliAsync(['sim', 'smi', 'amd-smi', 'metric', '-E', '--csv'], { env });
    // Part of the test, not a wait for anything: the energy of these 20 virtual seconds is what is measured.
    await sleep(virtual(20));
    const second = await runCliAsync(['sim', 'smi', 'amd-smi', 'metric', '-E', '--csv'], { env });
    const read = (text: string): Map<string, number> => {
      const [head, ...rows] = text.trim().split('\n');
      expect(head).toBe(
        'gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management,total_energy_consumption',
      );
      return new Map(rows.map((row) => [row.split(',')[0]!, Number(row.split(',').at(-1))]));
    };
    const a = read(first.stdout);
    const b = read(second.stdout);
    expect(a.size).toBe(8);
    for (const [gpu, joules] of a) {
      const delta = b.get(gpu)! - joules;
      // ≈ 140 W × the virtual seconds between the calls (≥ 20 s).
      expect(delta).toBeGreaterThan(140 * 0.97 * 20);
      expect(delta).toBeLessThan(140 * 1.03 * 200);
    }
    const identity = JSON.parse(runCli(['sim', 'smi', 'amd-smi', 'static', '--json'], { env }).stdout) as {
      gpu: number;
      asic: { market_name: string };
    }[];
    expect(identity.map((g) => g.gpu)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(identity[0]!.asic.market_name).toBe('AMD Instinct MI300X OAM');
  });
});

describe('frontier sim dcgm-exporter', () => {
  it("serves dcgm-exporter's /metrics for the node's GPUs, with the labels srt-slurm's parser reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'frontier-dcgm-'));
    const env = {
      FRONTIER_SIM_GPU_REGISTRY: join(dir, 'registry'),
      FRONTIER_SIM_NODE_GPUS: '4',
      FRONTIER_SIM_NODE_HARDWARE: 'gb200',
      FRONTIER_NODE_ADDR: '10.0.0.7',
    };
    const child = spawn(process.execPath, [CLI, 'sim', 'dcgm-exporter', '--port', '0'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const url = await announcedUrl(child, 'exporter');
    const res = await fetch(`${url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE DCGM_FI_DEV_POWER_USAGE gauge');
    expect(text).toContain('# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter');
    const power = [...text.matchAll(/^DCGM_FI_DEV_POWER_USAGE\{([^}]*)\} (\S+)$/gm)].map((m) => ({
      labels: Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]])),
      value: Number(m[2]),
    }));
    expect(power.map((p) => p.labels.gpu)).toEqual(['0', '1', '2', '3']);
    expect(power.every((p) => p.value > 140 && p.value < 160)).toBe(true);
    const uuids = runCli(['sim', 'smi', 'nvidia-smi', '--query-gpu=uuid', '--format=csv,noheader'], { env })
      .stdout.trim()
      .split('\n');
    expect(power.map((p) => p.labels.UUID)).toEqual(uuids);
    expect(power[0]!.labels).toMatchObject({
      device: 'nvidia0',
      Hostname: '10.0.0.7',
      modelName: expect.stringContaining('GB200'),
    });
    for (const name of ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_GPU_TEMP', 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION']) {
      expect(text.match(new RegExp(`^${name}\\{`, 'gm'))).toHaveLength(4);
    }
    expect((await fetch(`${url}/other`)).status).toBe(404);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});

describe('the gpu stand-in', () => {
  it('runs the fake in run mode and nothing in record mode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'frontier-standin-gpu-'));
    const bin = join(dir, 'bin');
    writeStandins(bin);
    const env = (mode: string): NodeJS.ProcessEnv => ({
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      FRONTIER_STANDIN_PATH: process.env.PATH,
      FRONTIER_STANDIN_BIN: bin,
      FRONTIER_STANDIN_DIR: dir,
      FRONTIER_STANDIN_MODE: mode,
      FRONTIER_STANDIN_NODE: process.execPath,
      FRONTIER_STANDIN_CLI: CLI,
      FRONTIER_SIM_NODE_GPUS: '2',
      FRONTIER_SIM_NODE_HARDWARE: 'h200',
    });
    spawnSync('mkdir', ['-p', join(dir, 'calls')]);
    const run = spawnSync(join(bin, 'nvidia-smi'), ['-L'], { env: env('run'), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^GPU 0: NVIDIA H200 SXM 141GB \(UUID: GPU-.*\)\nGPU 1: /);
    const record = spawnSync(join(bin, 'nvidia-smi'), ['-L'], { env: env('record'), encoding: 'utf8' });
    expect(record.status).toBe(0);
    expect(record.stdout).toBe('');
  });
});
