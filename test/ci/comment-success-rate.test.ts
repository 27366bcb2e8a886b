// The success rate: InferenceX's calc_success_rate.py cases (utils/test_calc_success_rate.py),
// and the reference run side by side on a recorded jobs listing (test/fixtures/ci/comment/).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/catalog/index.js';
import {
  hardwareLabels,
  hardwareMatchPatterns,
  hardwareOfJob,
  manifestRunStats,
  parseWorkflowJobs,
  runStatsJson,
  runnerLabelBuckets,
  successRateTable,
  successRates,
} from '../../src/ci/success-rate.js';
import { RunDir } from '../../src/launch/run-dir.js';
import type { RunManifest } from '../../src/launch/run-dir.js';
import { UserError } from '../../src/util/user-error.js';
import { REPO, tempFiles } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/comment');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const runnersLabels = async (): Promise<string[]> =>
  hardwareLabels(
    (await parseYaml(readFileSync(join(REPO, 'test/fixtures/inferencex/configs/runners.yaml'), 'utf8'), 'runners.yaml')).value,
  );

describe('calc_success_rate.py cases', () => {
  it('hardware labels are the cluster labels of runners.yaml, without the prefix', async () => {
    const labels = await runnersLabels();
    expect(labels).toContain('b300-nv');
    expect(labels).toContain('b300-cw');
    expect(labels).toContain('gb300-nv');
    expect(labels).not.toContain('b300');
    expect(labels.every((l) => !l.startsWith('cluster:'))).toBe(true);
    expect(labels).toEqual([...labels].sort());
  });

  it('a job name matches a hardware label or its cluster: label', () => {
    const patterns = hardwareMatchPatterns(['b300-nv', 'gb200-nv']);
    expect(hardwareOfJob('dsv4 fp4 cluster:b300-nv vllm | tp=8', patterns)).toBe('b300-nv');
    expect(hardwareOfJob('glm5 fp4 gb200-nv dynamo-sglang', patterns)).toBe('gb200-nv');
  });

  it('a broad SKU is not taken for a cluster', () => {
    const patterns = hardwareMatchPatterns(['b300-nv', 'h200-dgxc']);
    expect(hardwareOfJob('dsv4 fp4 b300 vllm', patterns)).toBeUndefined();
    expect(hardwareOfJob('dsv4 fp8 h200 sglang', patterns)).toBeUndefined();
  });
});

describe('success rates', () => {
  it('match the reference run on the recorded jobs: run_stats.json byte for byte, and the table', async () => {
    const stats = successRates(parseWorkflowJobs(fixture('jobs.json')), await runnersLabels());
    expect(runStatsJson(stats)).toBe(fixture('expected-run_stats.json'));
    expect(successRateTable(stats)).toBe(fixture('expected-table.txt'));
    // Retries count (filter=all), skipped jobs do not, an unfinished job is not a success.
    expect(stats['h200-cw']).toEqual({ n_success: 3, total: 4 });
    expect(stats['gb300-nv']).toEqual({ n_success: 0, total: 1 });
    expect(stats['b300-nv']).toEqual({ n_success: 1, total: 1 });
  });

  it('a runners file without cluster labels buckets by its hardware section; without labels, the file is the labels', () => {
    expect(hardwareLabels({ labels: { h200: ['a'] }, hardware: { 'cluster:x': {}, y: {} } })).toEqual(['x', 'y']);
    expect(hardwareLabels({ 'cluster:b': [], 'cluster:a': [], c: [] })).toEqual(['a', 'b']);
    expect(hardwareLabels({ labels: { h200: [] } })).toEqual([]);
  });

  it("a job named by a runner label counts for the one cluster holding all the label's nodes (Frontier's rows)", () => {
    const runners = {
      labels: {
        h100: ['lab_0', 'lab_1'],
        h200: ['a_0', 'b_0'],
        'cluster:h100-lab': ['lab_0', 'lab_1', 'lab_2'],
        'cluster:a': ['a_0'],
        'cluster:b': ['b_0'],
      },
    };
    const buckets = runnerLabelBuckets(runners);
    expect([...buckets]).toEqual([['h100', 'h100-lab']]);
    const jobs = [
      { name: 'canary / x h100 conc 1', conclusion: 'success' },
      { name: 'sweep / x h100 conc 2', conclusion: 'failure' },
      { name: 'sweep / x h100-lab_2 conc 4', conclusion: 'success' },
      { name: 'sweep / x h200 conc 1', conclusion: 'success' },
    ];
    expect(successRates(jobs, hardwareLabels(runners), buckets)).toEqual({
      a: { n_success: 0, total: 0 },
      b: { n_success: 0, total: 0 },
      'h100-lab': { n_success: 2, total: 3 },
    });
    // Without the fallback, as the reference counts: the label-named jobs count nowhere.
    expect(successRates(jobs, hardwareLabels(runners))['h100-lab']).toEqual({ n_success: 1, total: 1 });
  });

  it('reads one page, pages one after another (gh api --paginate), a slurped array and a bare array', () => {
    const page = (names: string[]) =>
      JSON.stringify({ total_count: 9, jobs: names.map((name) => ({ name, conclusion: 'success' })) });
    expect(parseWorkflowJobs(page(['a', 'b'])).map((j) => j.name)).toEqual(['a', 'b']);
    expect(parseWorkflowJobs(`${page(['a'])}\n${page(['b {"x"}'])}`).map((j) => j.name)).toEqual(['a', 'b {"x"}']);
    expect(parseWorkflowJobs(`[${page(['a'])},${page(['b'])}]`).map((j) => j.name)).toEqual(['a', 'b']);
    expect(parseWorkflowJobs('[{"name":"a","conclusion":null}]')).toEqual([{ name: 'a', conclusion: null }]);
    expect(() => parseWorkflowJobs('{"runs": []}', 'jobs.json')).toThrow(/jobs.json: expected GitHub's jobs listing/);
    expect(() => parseWorkflowJobs('{"jobs": [', 'jobs.json')).toThrow(UserError);
    expect(() => parseWorkflowJobs('{"jobs": [{"conclusion": "success"}]}', 'jobs.json')).toThrow(/job 0 has no "name"/);
  });

  it('a run directory counts its matrix rows, as frontier run writes run_stats.json', () => {
    const manifest = JSON.parse(fixture('run-dir/run.json')) as RunManifest;
    expect(manifestRunStats(manifest)).toEqual({ 'h200-cw': { n_success: 3, total: 4 } });
    const dir = new RunDir(tempFiles({}));
    for (const p of manifest.points.filter((x) => x.status === 'ok')) {
      mkdirSync(dir.bmkDir(p.resultFilename), { recursive: true });
      writeFileSync(dir.aggFile(p.resultFilename), '{}');
    }
    dir.writeRunResults(manifest);
    expect(runStatsJson(manifestRunStats(manifest))).toBe(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'));
  });
});
