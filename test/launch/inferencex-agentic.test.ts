// `frontier run` on real agentic-coding rows of the InferenceX fixture sweep: each point runs the
// checkout's own agentic script (benchmarks/single_node/agentic/*.sh), whose engine becomes the sim
// and whose AIPerf replay (`aiperf profile`, from the virtual environment the script makes with
// uv) becomes `frontier bench --trace` over a local corpus. InferenceX's own aggregation and
// validation (utils/agentic/…) then run on what the replay wrote, unchanged; the run ingests.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTree } from '../../src/plan/index.js';
import { run, localExecutor } from '../../src/launch/index.js';
import type { LaunchExecutor } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { SingleNodeAgenticRow } from '../../src/matrix/index.js';
import { CLI, runCliAsync, tempFiles } from '../helpers.js';
import { FIXTURE_TREE, fixtureSweep, pointStatuses, simCluster, smallCorpus, strays } from './fixtures.js';

const FRONTIER = [process.execPath, CLI];

/** One row per engine: vLLM and SGLang on NVIDIA, vLLM on AMD (runner, framework, script). */
const KINDS: [string, string, string][] = [
  ['cluster:b300-nv', 'vllm', 'benchmarks/single_node/agentic/dsv4_fp4_b300_vllm_mtp.sh'],
  ['cluster:b200-dgxc', 'sglang', 'benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh'],
  ['cluster:mi300x-amds', 'vllm', 'benchmarks/single_node/agentic/minimaxm3_fp8_mi300x_mtp.sh'],
];

let rows: SingleNodeAgenticRow[];

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

describe('frontier run on InferenceX agentic rows, through the checkout’s agentic scripts', () => {
  it(
    'locally: the script’s engine is the sim, its AIPerf replay frontier bench, its own aggregation and validation pass',
    { timeout: 300_000 },
    async () => {
      const { manifest, dir, out } = await runRows(cluster(), localExecutor, rows);
      expect(pointStatuses(manifest)).toEqual(manifest.points.map((p) => `${p.conc}:ok`));
      expect(manifest.launches.map((g) => g.engine)).toEqual(KINDS.map(([, , script]) => `${script} (stand-ins: sim)`));
      for (const p of manifest.points) {
        const rf = p.resultFilename;
        const agentic = dir.agenticDir(rf);
        // AIPerf's command line as build_replay_cmd wrote it; the replay's records; InferenceX's aggregate.
        expect(readFileSync(join(agentic, 'benchmark_command.txt'), 'utf8')).toMatch(
          /\/venv\/bin\/aiperf profile --scenario inferencex-agentx-mvp /,
        );
        expect(existsSync(join(agentic, 'aiperf_artifacts', 'profile_export.jsonl'))).toBe(true);
        const theirs = JSON.parse(readFileSync(join(agentic, `${rf}.json`), 'utf8')) as Record<string, unknown>;
        const ours = JSON.parse(readFileSync(dir.agenticAggFile(rf), 'utf8')) as Record<string, unknown>;
        expect(ours).toEqual(theirs);
      }
      expect(strays(out)).toEqual([]);
      const db = join(tempFiles({}), 'store.db');
      const ingest = await runCliAsync(['ingest', out, '--run-id', 'agentic-local', '--db', db]);
      expect(ingest.stderr).toBe('');
    },
  );
});
