/**
 * Side by side with the reference: packages written by `writePowerPackage` (committed under
 * test/fixtures/power/multinode/<case>/workspace) and what InferenceX's
 * utils/aggregate_power_multinode.py made of them (<case>/expected, recorded by
 * scripts/power-multinode-golden.py). The producer must write the same bytes, and the step must
 * give the same aggregate, sidecar, line and exit status.
 * `UPDATE_POWER_MULTINODE_FIXTURES=1` rewrites the workspaces (then rerun the Python script).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PyFloat, dumps, loads } from '../../../src/pycompat/index.js';
import type { PyJson } from '../../../src/pycompat/index.js';
import { fsTelemetry } from '../../../src/results/power/files.js';
import { multinodePowerStep } from '../../../src/results/power/multinode.js';
import { writePowerPackage } from '../../../src/results/power/package-write.js';
import type { PowerPackageInput } from '../../../src/results/power/package-write.js';
import type { ExpectedDevice } from '../../../src/results/power/package.js';
import type { SampleRow } from '../../../src/telemetry/dcgm-file.js';
import { identity as multinodeIdentity } from './multinode-fixture.js';

const CASES = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/power/multinode');
const UPDATE = process.env.UPDATE_POWER_MULTINODE_FIXTURES === '1';
const SHA = '0123456789abcdef0123456789abcdef01234567';
const T0 = 1785168000.0;

interface Node {
  host: string;
  gpus: number;
  role: 'prefill' | 'decode';
  het: number | null;
  base: number;
}

interface Case {
  name: string;
  env: Record<string, string>;
  nodes: Node[];
  concurrency: number;
  mutateSamples?: (rows: SampleRow[]) => SampleRow[];
  agg: [string, PyJson][];
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

function samples(nodes: readonly Node[]): SampleRow[] {
  const rows: SampleRow[] = [];
  for (let k = 0; k <= 120; k++) {
    nodes.forEach((node, n) => {
      // One timestamp per host and scrape: the midpoint of its request on the head-node clock.
      const ts = T0 + k * 1.0 + ((k * 37) % 10) / 1000 + n * 0.0021;
      for (let g = 0; g < node.gpus; g++) {
        rows.push({
          timestampUnix: ts,
          scrapeSeq: k,
          hostname: node.host,
          gpuIndex: g,
          gpuUuid: `GPU-${node.host}-${g}-5f1c`,
          powerW: round3(node.base + 80 * Math.sin(k / 7 + g) + ((k * 13 + g * 7) % 17) * 1.37),
        });
      }
    });
  }
  return rows;
}

function expectedDevices(nodes: readonly Node[]): ExpectedDevice[] {
  return nodes.flatMap((node, n) =>
    Array.from({ length: node.gpus }, (_, g) => ({
      hostname: node.host,
      gpuIndex: g,
      assignments: [{ workerRole: node.role, workerIndex: n, workerProcess: 0, hetGroup: node.het }],
    })),
  );
}

const START = T0 + 12.3456;
const END = START + 95.4321;
const DURATION = 95.4;

function bench(concurrency: number): Map<string, PyJson> {
  return new Map<string, PyJson>([
    ['date', '20260728-120000'],
    ['backend', 'dynamo'],
    ['model_id', 'deepseek-ai/DeepSeek-R1'],
    ['max_concurrency', concurrency],
    ['benchmark_start_time_unix', new PyFloat(START)],
    ['benchmark_end_time_unix', new PyFloat(END)],
    ['duration', new PyFloat(DURATION)],
    ['completed', 1280],
    ['total_input_tokens', 1310720],
    ['total_output_tokens', 1310720],
    ['output_throughput', new PyFloat(13739.2)],
  ]);
}

const oneP1D: Node[] = [
  { host: 'gb200-p-0', gpus: 4, role: 'prefill', het: null, base: 610 },
  { host: 'gb200-d-0', gpus: 4, role: 'decode', het: null, base: 455 },
];
const hetNodes: Node[] = [
  { host: 'node-p-0', gpus: 4, role: 'prefill', het: 0, base: 700.5 },
  { host: 'node-d-0', gpus: 4, role: 'decode', het: 1, base: 500.25 },
  { host: 'node-d-1', gpus: 4, role: 'decode', het: 1, base: 480.125 },
];
const plainAgg: [string, PyJson][] = [
  ['hw', 'gb200'],
  ['conc', 64],
  ['tput_per_gpu', new PyFloat(2747.84)],
];
const env1p1d = { RESULT_FILENAME: 'dsr1_1k1k_gb200_conc64', PREFILL_GPUS: '4', DECODE_GPUS: '4', POWER_PRODUCER_SHA: SHA };

const cases: Case[] = [
  { name: 'valid-1p1d', env: env1p1d, nodes: oneP1D, concurrency: 64, agg: plainAgg },
  {
    name: 'valid-roles-het',
    env: {
      RESULT_FILENAME: 'dsr1_8k1k_gb300_conc256',
      PREFILL_GPUS: '4',
      DECODE_GPUS: '8',
      POWER_PRODUCER_SHA: SHA,
      REQUIRE_POWER: '1',
    },
    nodes: hetNodes,
    concurrency: 256,
    // Stale power keys keep their places; the new metrics go last.
    agg: [
      ['hw', 'gb300'],
      ['avg_power_w', new PyFloat(1.5)],
      ['power_valid', 0],
      ['conc', 256],
      ['power_invalid_reasons', ['x']],
    ],
  },
  {
    name: 'missing-device',
    env: env1p1d,
    nodes: oneP1D,
    concurrency: 64,
    mutateSamples: (rows) => rows.filter((r) => !(r.hostname === 'gb200-d-0' && r.gpuIndex === 3)),
    agg: plainAgg,
  },
  {
    name: 'sample-gap',
    env: env1p1d,
    nodes: oneP1D,
    concurrency: 64,
    mutateSamples: (rows) =>
      rows.filter((r) => !(r.hostname === 'gb200-p-0' && r.gpuIndex === 1 && r.scrapeSeq >= 40 && r.scrapeSeq <= 44)),
    agg: plainAgg,
  },
  {
    name: 'producer-mismatch',
    env: { ...env1p1d, POWER_PRODUCER_SHA: 'f'.repeat(40), REQUIRE_POWER: 'true' },
    nodes: oneP1D,
    concurrency: 64,
    agg: plainAgg,
  },
  {
    name: 'producer-pin-missing',
    env: { RESULT_FILENAME: env1p1d.RESULT_FILENAME, PREFILL_GPUS: '4', DECODE_GPUS: '4' },
    nodes: oneP1D,
    concurrency: 64,
    agg: plainAgg,
  },
  {
    name: 'non-monotonic',
    env: env1p1d,
    nodes: oneP1D,
    concurrency: 64,
    mutateSamples: (rows) => {
      const i = rows.findIndex((r) => r.hostname === 'gb200-p-0' && r.gpuIndex === 0 && r.scrapeSeq === 10);
      const j = rows.findIndex((r) => r.hostname === 'gb200-p-0' && r.gpuIndex === 0 && r.scrapeSeq === 11);
      const out = [...rows];
      out[i] = { ...rows[i]!, timestampUnix: rows[j]!.timestampUnix };
      out[j] = { ...rows[j]!, timestampUnix: rows[i]!.timestampUnix };
      return out;
    },
    agg: plainAgg,
  },
];

const json2 = (v: unknown): string => dumps(v, { indent: 2 });

/** Write a case's workspace (the package and the files process_result.py has beside it) under `root`. */
function writeWorkspace(c: Case, root: string): void {
  const rf = c.env.RESULT_FILENAME!;
  const resultPath = `${c.name}_result.json`;
  mkdirSync(join(root, 'LOGS'), { recursive: true });
  const input: PowerPackageInput = {
    jobId: '4242',
    runName: c.name,
    producerGitCommit: SHA,
    sampleIntervalSeconds: 1.0,
    requestTimeoutSeconds: 2.0,
    required: c.env.REQUIRE_POWER !== undefined,
    startedAtUnix: T0 - 5.25,
    stoppedAtUnix: T0 + 125.5,
    maxScrapeDurationSeconds: 0.0123,
    exporter: {
      containerImageResolved: '/containers/dcgm-exporter.sqsh',
      containerImageSha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      port: 9401,
      command: 'dcgm-exporter --collect-interval=100 --address :9401',
    },
    expectedDevices: expectedDevices(c.nodes),
    expectedWindows: [{ benchmarkType: 'sa-bench', concurrency: c.concurrency }],
    samples: (c.mutateSamples ?? ((r) => r))(samples(c.nodes)),
    windows: [
      {
        concurrency: c.concurrency,
        resultPath,
        status: 'completed',
        startUnix: START,
        endUnix: END,
        duration: DURATION,
        reason: null,
      },
    ],
  };
  // The benchmark wrote its result before the session finished.
  writeFileSync(join(root, 'LOGS', resultPath), json2(bench(c.concurrency)));
  writeFileSync(join(root, `${rf}.json`), json2(bench(c.concurrency)));
  writeFileSync(join(root, `agg_${rf}.json`), json2(new Map(c.agg)));
  writePowerPackage(join(root, 'LOGS', 'power'), input);
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(root, full));
    }
  };
  walk(root);
  return out;
}

const tmp = mkdtempSync(join(tmpdir(), 'frontier-mn-golden-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('multinode power step against aggregate_power_multinode.py', () => {
  for (const c of cases) {
    it(c.name, () => {
      const folder = join(CASES, c.name);
      const workspace = join(folder, 'workspace');
      if (UPDATE) {
        rmSync(workspace, { recursive: true, force: true });
        writeWorkspace(c, workspace);
        writeFileSync(join(folder, 'env.json'), `${JSON.stringify(c.env, null, 2)}\n`);
      }
      // The producer writes the committed bytes.
      const mine = join(tmp, c.name);
      writeWorkspace(c, mine);
      expect(listFiles(mine)).toEqual(listFiles(workspace));
      for (const file of listFiles(mine))
        expect(readFileSync(join(mine, file), 'utf8'), file).toBe(readFileSync(join(workspace, file), 'utf8'));
      expect(JSON.parse(readFileSync(join(folder, 'env.json'), 'utf8'))).toEqual(c.env);

      // The step over the committed package gives the reference's files.
      const rf = c.env.RESULT_FILENAME!;
      const agg = new Map(
        Object.entries(loads(readFileSync(join(workspace, `agg_${rf}.json`), 'utf8')) as Record<string, PyJson>),
      );
      const raw = loads(readFileSync(join(workspace, `${rf}.json`), 'utf8'));
      const requirePower = ['1', 'true', 'yes'].includes((c.env.REQUIRE_POWER ?? '').toLowerCase());
      const out = multinodePowerStep(
        raw,
        multinodeIdentity(Number(c.env.PREFILL_GPUS), Number(c.env.DECODE_GPUS), rf),
        agg,
        { requirePower, ...(c.env.POWER_PRODUCER_SHA ? { powerProducerSha: c.env.POWER_PRODUCER_SHA } : {}) },
        fsTelemetry(workspace),
      );
      const expected = (name: string): string => readFileSync(join(folder, 'expected', name), 'utf8');
      expect(json2(agg)).toBe(expected('agg.json'));
      expect(json2(out.validation)).toBe(expected('power_validation.json'));
      expect(`${out.exitCode}\n`).toBe(expected('exit_code'));
      const printed = (expected('stdout') || expected('stderr')).trimEnd();
      expect(out.notice).toBe(printed);
    });
  }
});
