import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { RunDir, evalSettingsFor, run, localExecutor } from '../../src/launch/index.js';
import type { AgenticSettings, EvalSettings, RunManifest, RunOptions } from '../../src/launch/index.js';
import { LOCAL_PROFILE } from '../../src/clusters/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MultiNodeRow, SingleNodeAgenticRow, SingleNodeRow } from '../../src/matrix/index.js';
import { DEFAULT_SYNTH_OPTIONS, formatWekaTraces, synthTraces } from '../../src/traces/index.js';
import { runMatrix } from '../../src/cli/matrix.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { BUNDLED_INFERENCEX, CLI, REPO, runCliAsync, tempFiles } from '../helpers.js';
import { waitFor } from '../support/wait.js';

/** Matrix rows and cluster profiles for the launch tests. */

/** Each point as `conc:status`, a point that is not ok followed by its error, so that a failed assertion says why. */
export const pointStatuses = (m: RunManifest): string[] =>
  m.points.map((p) => `${p.conc}:${p.status}${p.status !== 'ok' && p.error ? ` ${p.error}` : ''}`);

/**
 * `run` of `rows` on this host with the tests' defaults: the local executor, the simulated cluster,
 * a fresh run directory, the built CLI; `o` overrides any of them.
 */
export const runLocally = (rows: MatrixRow[], o: Partial<RunOptions> = {}) =>
  run({
    rows,
    matrix: { file: 'matrix.json', text: JSON.stringify(rows) },
    cluster: simCluster(),
    out: join(tempFiles({}), 'run'),
    executor: localExecutor,
    frontierVersion: 'test',
    frontierCommand: [process.execPath, CLI],
    commit: null,
    ...o,
  });

export function singleRow(o: Partial<SingleNodeRow> = {}): SingleNodeRow {
  return {
    image: 'frontier/sim:local',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    'model-prefix': 'llama3.1-8b',
    precision: 'fp8',
    framework: 'sim',
    runner: 'h100',
    isl: 256,
    osl: 32,
    tp: 1,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    conc: 1,
    'max-model-len': 544,
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    'exp-name': 'llama3.1-8b_256_32',
    disagg: false,
    'run-eval': false,
    ...o,
  };
}

export function disaggRow(o: Partial<MultiNodeRow> = {}): MultiNodeRow {
  const w = (tp: number, n: number, dpAttn = false) => ({
    'num-worker': n,
    tp,
    ep: dpAttn ? tp : 1,
    'dp-attn': dpAttn,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
  });
  return {
    image: 'lmsysorg/sglang:v0.5.16-cu130',
    model: 'deepseek-ai/DeepSeek-R1-0528',
    'model-prefix': 'dsr1',
    precision: 'fp8',
    framework: 'dynamo-sglang',
    runner: 'h200-multinode',
    isl: 1024,
    osl: 32,
    'spec-decoding': 'none',
    prefill: w(8, 1),
    decode: w(8, 1),
    conc: [4, 8],
    'max-model-len': 1312,
    'exp-name': 'dsr1_1k32',
    disagg: true,
    'run-eval': false,
    ...o,
  };
}

export const simCluster = (o: Partial<ClusterProfile> = {}): ClusterProfile => ({
  ...LOCAL_PROFILE,
  name: 'test-sim',
  nodes: 4,
  simulate: true,
  healthCheck: { attempts: 100, intervalSeconds: 0.1 },
  engines: { sim: { speed: 4 } },
  ...o,
});

/** Processes still running that a run started (they carry its log folder in their environment). */
export function strays(out: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`FRONTIER_RUN_LOGS=${out}`)) pids.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/**
 * The log folder of the first launch of the run in `out`, once its engine serves: the manifest says the launch runs,
 * and its server.log has the engine's `serving` line (a sim's banner).
 */
export function engineServing(out: string, timeoutMs = 30_000): Promise<string> {
  const dir = new RunDir(out);
  return waitFor(
    () => {
      const group = dir.readManifest()?.launches[0];
      const logs = group?.status === 'running' && group.logs ? join(out, group.logs) : undefined;
      const log = logs && join(logs, 'server.log');
      return log && existsSync(log) && readFileSync(log, 'utf8').includes('serving') ? logs : undefined;
    },
    { timeoutMs, intervalMs: 50, what: `the engine of the run in ${out} to serve` },
  );
}

export const GSM8K_DATA = join(REPO, 'test/fixtures/gsm8k');

/** Eval settings for rows (default: one GSM8K row) on the bundled data: the first `limit` documents, answer keys for the sim, quick retries. */
export async function evalSettings(
  limit = 60,
  rows: { 'run-eval'?: boolean; 'eval-tasks'?: string[] }[] = [{ 'run-eval': true }],
  dataDir = GSM8K_DATA,
): Promise<EvalSettings> {
  const answersFile = join(tempFiles({}), 'eval-answer-keys.jsonl');
  return { ...(await evalSettingsFor(rows, { dataDir, answersFile, limit })), backoffMs: 10 };
}

/** The fixture InferenceX checkout: its launch material and the fixtures' catalog. */
export const FIXTURE_TREE = join(BUNDLED_INFERENCEX, 'tree');

/** The fixture checkout's full sweep, as `frontier matrix full-sweep` prints it there. */
export async function fixtureSweep(): Promise<MatrixRow[]> {
  return JSON.parse(
    await runMatrix(
      'full-sweep',
      ['--config-files', 'configs/nvidia-master.yaml', 'configs/amd-master.yaml', '--runner-config', 'configs/runners.yaml'],
      FIXTURE_TREE,
    ),
  ) as MatrixRow[];
}

/** An agentic-coding row of the simulated engine, as the matrix writes one. */
export function agenticRow(o: Partial<SingleNodeAgenticRow> = {}): SingleNodeAgenticRow {
  return {
    image: 'frontier/sim:local',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    'model-prefix': 'llama3.1-8b',
    precision: 'fp8',
    framework: 'sim',
    runner: 'h100',
    tp: 1,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    conc: 2,
    'kv-offloading': 'none',
    'total-cpu-dram-gb': 0,
    duration: 30,
    'exp-name': `llama3.1-8b_tp1_conc${o.conc ?? 2}_kv${o['kv-offloading'] ?? 'none'}`,
    'scenario-type': 'agentic-coding',
    'run-eval': false,
    ...o,
  };
}

/** A small synthetic corpus (frontier traces synth at 5% scale), written where a run can read it. */
export function smallCorpus(dir: string): AgenticSettings {
  const traces = synthTraces({ ...DEFAULT_SYNTH_OPTIONS, traces: 8, scale: 0.05 });
  const tracesFile = join(dir, 'traces.jsonl');
  writeFileSync(tracesFile, formatWekaTraces(traces));
  return { tracesFile, traces };
}

/** `frontier ingest` of a run directory into a fresh store: it must say nothing on stderr; what it printed. */
export async function ingested(out: string, runId: string): Promise<string> {
  const ingest = await runCliAsync(['ingest', out, '--run-id', runId, '--db', join(tempFiles({}), 'store.db')]);
  expect(ingest.stderr).toBe('');
  return ingest.stdout;
}
