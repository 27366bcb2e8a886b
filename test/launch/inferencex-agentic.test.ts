// `frontier run` on real agentic-coding rows of the InferenceX fixture sweep: each point runs the
// checkout's own agentic script (benchmarks/single_node/agentic/*.sh), whose engine becomes the sim
// and whose AIPerf replay (`aiperf profile`, from the virtual environment the script makes with
// uv) becomes `frontier bench --trace` over a local corpus. InferenceX's own aggregation and
// validation (utils/agentic/…) then run on what the replay wrote, unchanged; the run ingests.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTree } from '../../src/plan/index.js';
import { run, localExecutor, slurmExecutor } from '../../src/launch/index.js';
import type { LaunchExecutor } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { SingleNodeAgenticRow } from '../../src/matrix/index.js';
import { CLI, jobPorts, tempFiles } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { FIXTURE_TREE, fixtureSweep, pointStatuses, simCluster, smallCorpus, strays, ingested } from './fixtures.js';

const FRONTIER = [process.execPath, CLI];

/** One row per engine: vLLM and SGLang on NVIDIA, vLLM on AMD (runner, framework, script). */
const KINDS: [string, string, string][] = [
  ['cluster:b300-nv', 'vllm', 'benchmarks/single_node/agentic/dsv4_fp4_b300_vllm_mtp.sh'],
  ['cluster:b200-dgxc', 'sglang', 'benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh'],
  ['cluster:mi300x-amds', 'vllm', 'benchmarks/single_node/agentic/minimaxm3_fp8_mi300x_mtp.sh'],
];

let rows: SingleNodeAgenticRow[];
let slurm: LocalSlurm | undefined;
const nextPort = jobPorts(4);

afterAll(async () => {
  await slurm?.stop();
});

beforeAll(async () => {
  const all = (await fixtureSweep()) as SingleNodeAgenticRow[];
  rows = KINDS.map(([runner, framework, script]) => {
    const prefix = script.split('/').pop()!.split('_')[0]!;
    return all
      .filter(
        (r) =>
          r['scenario-type'] === 'agentic-coding' &&
          !('prefill' in r) &&
          r.runner === runner &&
          r.framework === framework &&
          r['model-prefix'] === prefix,
      )
      .sort((a, b) => a.conc - b.conc)[0]!;
  });
});

// The sim has none of these models: R1 stands in for the pipeline check (`stand-in-model`).
const cluster = (o: Partial<ClusterProfile> = {}): ClusterProfile =>
  simCluster({
    nodes: 1,
    gpusPerNode: 8,
    timeLimitMinutes: 10,
    engines: { sim: { speed: 20, 'stand-in-model': 'deepseek-r1' } },
    ...o,
  });

async function runRows(c: ClusterProfile, executor: LaunchExecutor, picked: SingleNodeAgenticRow[]) {
  const root = tempFiles({});
  const out = join(root, 'run');
  const agentic = { ...smallCorpus(root), durationS: 60 };
  const result = await run({
    rows: picked,
    matrix: { file: 'matrix.json', text: JSON.stringify(picked) },
    cluster: c,
    out,
    executor,
    frontierVersion: 'test',
    frontierCommand: FRONTIER,
    commit: null,
    inferencex: openTree(FIXTURE_TREE),
    agentic,
  });
  return { ...result, out };
}

async function expectAgenticRun(c: ClusterProfile, executor: LaunchExecutor, picked: SingleNodeAgenticRow[], runId: string) {
  const { manifest, dir, out } = await runRows(c, executor, picked);
  expect(pointStatuses(manifest)).toEqual(manifest.points.map((p) => `${p.conc}:ok`));
  expect(manifest.launches.map((g) => g.engine)).toEqual(picked.map((r) => `${KINDS[rows.indexOf(r)]![2]} (stand-ins: sim)`));
  for (const p of manifest.points) {
    const rf = p.resultFilename;
    const agentic = dir.agenticDir(rf);
    // AIPerf's command line as build_replay_cmd wrote it, the replay's records, and the aggregate
    // InferenceX's own process_agentic_result wrote: Frontier's (from the same records) equals it.
    expect(readFileSync(join(agentic, 'benchmark_command.txt'), 'utf8')).toMatch(
      /\/venv\/bin\/aiperf profile --scenario inferencex-agentx-mvp .* --public-dataset semianalysis_cc_traces_weka_/,
    );
    expect(existsSync(join(agentic, 'aiperf_artifacts', 'profile_export.jsonl'))).toBe(true);
    const theirs = JSON.parse(readFileSync(join(agentic, `${rf}.json`), 'utf8')) as Record<string, unknown>;
    const ours = JSON.parse(readFileSync(dir.agenticAggFile(rf), 'utf8')) as Record<string, unknown>;
    expect(ours).toEqual(theirs);
    expect(theirs.num_requests_successful).toBeGreaterThan(0);
    // The script's own GPU monitor sampled the replay; the power step integrated it.
    expect(existsSync(join(agentic, 'gpu_metrics.csv'))).toBe(true);
    expect(p.power, rf).toEqual({ valid: true, reasons: [] });
  }
  expect(strays(out)).toEqual([]);
  expect(await ingested(out, runId)).toContain(`points: ${picked.length} (${picked.length} new)`);
}

describe('frontier run on InferenceX agentic rows, through the checkout’s agentic scripts', () => {
  it(
    'locally: the script’s engine is the sim, its AIPerf replay frontier bench, its own aggregation and validation pass',
    { timeout: 300_000 },
    async () => {
      await expectAgenticRun(cluster(), localExecutor, rows, 'agentic-local');
    },
  );

  it(
    'on Slurm: the script is a step of the row’s job, the corpus read from the run directory',
    { timeout: 300_000 },
    async () => {
      slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 8 });
      const executor = slurmExecutor({
        env: { ...process.env, ...slurm.env },
        frontierCommand: FRONTIER,
        basePort: nextPort(),
        pollMs: 200,
      });
      await expectAgenticRun(
        cluster({ name: 'test-slurm', scheduler: 'slurm', partition: slurm.partition, nodes: 2 }),
        executor,
        [rows[0]!],
        'agentic-slurm',
      );
    },
  );
});
