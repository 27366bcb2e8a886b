import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loads } from '../../src/pycompat/index.js';
import { fsTelemetry, identityFromRow, parseRow, processResult } from '../../src/results/index.js';
import { RunDir, summaryTable } from '../../src/launch/index.js';
import { stopLeftovers } from '../../src/launch/leftovers.js';
import type { EvalSettings, RunManifest, RunOptions } from '../../src/launch/index.js';
import { LOCAL_PROFILE } from '../../src/clusters/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MatrixRow, SingleNodeRow } from '../../src/matrix/index.js';
import { findHardware } from '../../src/sim/index.js';
import { REPO, tempFiles } from '../helpers.js';
import { readArtifacts } from '../../src/store/index.js';
import { ensureLlamaServerAndModel } from '../support/llama-server.js';
import { waitFor } from '../support/wait.js';
import { disaggRow, engineServing, evalSettings, runLocally, simCluster, singleRow, strays, pointStatuses } from './fixtures.js';

async function runRows(
  rows: MatrixRow[],
  cluster: ClusterProfile,
  o: Partial<Pick<RunOptions, 'out' | 'failFast' | 'canary' | 'resume' | 'signal' | 'evals' | 'defer'>> = {},
) {
  return runLocally(rows, { cluster, ...o });
}

const statuses = (m: RunManifest): string[] => m.points.map((p) => `${p.conc}:${p.status}`);

describe('frontier run, local executor, simulated engines', () => {
  it('runs a launch at each concurrency and leaves the run directory InferenceX ingests', async () => {
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2 })];
    const { manifest, dir } = await runRows(rows, simCluster());
    expect(manifest.status).toBe('completed');
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    const logs = join(dir.root, manifest.launches[0]!.logs!);
    for (const p of manifest.points) {
      const raw = readFileSync(dir.rawFile(p.resultFilename), 'utf8');
      const result = JSON.parse(raw) as Record<string, unknown>;
      expect(result.max_concurrency).toBe(p.conc);
      expect(result.completed).toBe(10 * p.conc);
      expect((result.frontier as { time_scale: number }).time_scale).toBe(4);
      // The aggregate is exactly what `frontier results process` makes of the raw file.
      const row = parseRow(
        rows.find((r) => r.conc === p.conc),
        'row',
      );
      // Its power: the launch's GPU monitor (the simulated engine's nvidia-smi) integrated over the point's window.
      const expected = processResult(loads(raw), identityFromRow(row, { runner: 'h100', resultFilename: p.resultFilename }), {
        settings: { gpuMetricsCsv: relative(dir.root, join(logs, 'gpu_metrics.csv')), requirePower: false },
        files: fsTelemetry(dir.root),
      });
      expect(readFileSync(dir.aggFile(p.resultFilename), 'utf8')).toBe(expected.aggJson);
      expect(readFileSync(join(dir.bmkDir(p.resultFilename), expected.powerValidationFile), 'utf8')).toBe(
        expected.powerValidationJson,
      );
      expect(p.power).toEqual({ valid: true, reasons: [] });
      expect(expected.agg.power_valid).toBe(1);
      expect(expected.agg.joules_per_output_token).toBeGreaterThan(0);
      expect(p.outputTputPerGpu).toBeGreaterThan(0);
    }
    expect(readdirSync(logs).sort()).toEqual([
      'gpu-tools',
      'gpu_metrics.csv',
      'gpu_metrics_sampler.json',
      'gpu_metrics_timezone_offset.txt',
      'gpus',
      'launch.sh',
      'server.log',
    ]);
    const script = readFileSync(join(logs, 'launch.sh'), 'utf8').replace(/ \\\n\s+/g, ' ');
    expect(script).toContain('sim serve --model meta-llama/Llama-3.1-8B-Instruct --hardware h100 --precision fp8');
    const all = JSON.parse(readFileSync(join(dir.root, 'results_bmk/agg_bmk.json'), 'utf8')) as { conc: number }[];
    expect(all.map((a) => a.conc)).toEqual([1, 2]);
    expect(JSON.parse(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'))).toEqual({
      'test-sim': { n_success: 2, total: 2 },
    });
    expect(strays(logs)).toEqual([]);
  });

  it('an engine that fails to start fails its launch with the end of its log, and the run goes on', async () => {
    const bad = simCluster({ engines: { sim: { speed: 4, 'extra-args': '--no-such-flag' } } });
    const { manifest } = await runRows([singleRow({ conc: 1 })], bad);
    expect(manifest.status).toBe('failed');
    expect(manifest.points[0]!.status).toBe('failed');
    expect(manifest.points[0]!.error).toMatch(
      /engine failed to start: server exited \(exit code \d+\) before it was ready; the end of its log:\n.*no-such-flag/s,
    );
    const cpu = singleRow({ conc: 1, framework: 'llama.cpp', runner: 'cpu', precision: 'q8', model: 'tiny' });
    const missing = simCluster({ engines: { 'llama.cpp': { binary: '/nonexistent/llama-server' }, sim: { speed: 4 } } });
    const next = await runRows([cpu, singleRow({ conc: 1 })], missing);
    expect(next.manifest.launches.map((g) => g.status)).toEqual(['failed', 'done']);
    expect(next.manifest.points[0]!.error).toMatch(/could not start \/nonexistent\/llama-server: no such command/);
  });

  it('--fail-fast stops at the first failed launch; without it the next launch runs', async () => {
    const rows = [singleRow({ conc: 1, model: 'no/such-model', 'exp-name': 'nosuch_256_32' }), singleRow({ conc: 1 })];
    const goOn = await runRows(rows, simCluster());
    expect(goOn.manifest.launches.map((g) => g.status)).toEqual(['failed', 'done']);
    expect(goOn.manifest.launches[0]!.error).toMatch(/unknown model "no\/such-model"/);
    const stop = await runRows(rows, simCluster(), { failFast: true });
    expect(stop.manifest.launches.map((g) => g.status)).toEqual(['failed', 'pending']);
    expect(statuses(stop.manifest)).toEqual(['1:failed', '1:pending']);
  });

  it('an engine that dies mid-benchmark fails that point, keeps the finished ones, and --resume runs only the rest', async () => {
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2 })];
    // conc 1 sends 12 requests (2 warmups), conc 2 then dies at its 14th.
    const crashing = simCluster({ engines: { sim: { speed: 4, 'extra-args': '--fault-crash-after 25' } } });
    const first = await runRows(rows, crashing);
    expect(statuses(first.manifest)).toEqual(['1:ok', '2:failed']);
    expect(first.manifest.points[1]!.error).toMatch(/server exited \(exit code 1\) during the benchmark/);
    const stats = (dir: RunDir): unknown => JSON.parse(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'));
    expect(stats(first.dir)).toEqual({ 'test-sim': { n_success: 1, total: 2 } });
    const kept = first.dir.rawFile(first.manifest.points[0]!.resultFilename);
    const mtime = statSync(kept).mtimeMs;
    const resumed = await runRows(rows, simCluster(), { out: first.dir.root, resume: true });
    expect(pointStatuses(resumed.manifest)).toEqual(['1:ok', '2:ok']);
    expect(resumed.manifest.status).toBe('completed');
    expect(stats(resumed.dir)).toEqual({ 'test-sim': { n_success: 2, total: 2 } });
    expect(statSync(kept).mtimeMs).toBe(mtime);
    await expect(runRows(rows, simCluster(), { out: first.dir.root })).rejects.toThrow(/exists: pass --resume/);
  });

  it('--defer records rows as deferred with the reason: the run is partial and says so; --resume runs them', async () => {
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2, tp: 2 })];
    const first = await runRows(rows, simCluster(), { defer: { rows: new Set([rows[1]!]), reason: 'waiting for its GPUs' } });
    expect(statuses(first.manifest)).toEqual(['1:ok', '2:deferred']);
    expect(first.manifest.status).toBe('partial');
    expect(first.manifest.points[1]!.reason).toBe('waiting for its GPUs');
    expect(first.manifest.launches.map((g) => g.status)).toEqual(['done', 'deferred']);
    expect(existsSync(join(first.dir.root, `server_logs_${first.manifest.points[1]!.resultFilename}`))).toBe(false);
    const table = summaryTable(first.manifest);
    expect(table).toMatch(/TP2 256\/32\s+2\s+deferred\s+waiting for its GPUs/);
    expect(table).toContain('1 of 1 points ok · 1 deferred · run partial');
    // A deferred job is not counted yet, neither as a success nor as a failure.
    const stats = (dir: RunDir): unknown => JSON.parse(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'));
    expect(stats(first.dir)).toEqual({ 'test-sim': { n_success: 1, total: 1 } });
    expect(readArtifacts(first.dir.root, {}).run).toMatchObject({
      status: 'partial',
      deferred_points: 1,
      deferred_reason: 'waiting for its GPUs',
    });

    const resumed = await runRows(rows, simCluster(), { out: first.dir.root, resume: true });
    expect(pointStatuses(resumed.manifest)).toEqual(['1:ok', '2:ok']);
    expect(resumed.manifest.status).toBe('completed');
    expect(stats(resumed.dir)).toEqual({ 'test-sim': { n_success: 2, total: 2 } });
    const run = readArtifacts(first.dir.root, {}).run;
    expect(run).toMatchObject({ status: 'completed', deferred_points: 0, deferred_reason: '' });
  });

  it('--canary runs the lowest concurrency first and stops the run when it fails', async () => {
    const rows = [singleRow({ conc: 4 }), singleRow({ conc: 1, model: 'meta-llama/Llama-3.1-70B-Instruct', tp: 2 })];
    const failing = simCluster({ engines: { sim: { speed: 4, 'extra-args': '--fault-error-rate 1' } } });
    const { manifest } = await runRows(rows, failing, { canary: true });
    expect(manifest.status).toBe('failed');
    expect(manifest.points.map((p) => `${p.conc}:${p.status}`)).toEqual(['4:pending', '1:invalid']);
    expect(manifest.points[1]!.error).toMatch(/requests failed/);
  });

  it('an interrupt stops every engine and leaves the manifest saying so', async () => {
    const controller = new AbortController();
    const out = join(tempFiles({}), 'run');
    const slow = simCluster({ engines: { sim: { speed: 1 } } });
    const running = runRows([singleRow({ conc: 1, osl: 2000, 'max-model-len': 2400 })], slow, { out, signal: controller.signal });
    // Interrupted mid-benchmark: once the engine serves.
    const logs = await engineServing(out);
    expect(strays(logs).length).toBeGreaterThan(0);
    controller.abort();
    const { manifest } = await running;
    expect(manifest.status).toBe('interrupted');
    expect(manifest.points[0]!.status).toBe('pending');
    // The run's last act was a SIGKILL to each engine's process group: what was left there may take a moment to go.
    await waitFor(() => strays(logs).length === 0, {
      what: () => `the run's processes to end after the interrupt (still running: ${strays(logs).join(', ')})`,
    });
    expect(existsSync(join(out, 'run_stats.json'))).toBe(true);
  });
});

describe('the run directory', () => {
  it('never names a file outside itself, whatever a row’s names are', () => {
    const dir = new RunDir('/runs/r1');
    expect(dir.bmkDir('dsr1_fp8_vllm_conc4')).toBe('/runs/r1/bmk_dsr1_fp8_vllm_conc4');
    for (const name of ['../../etc', 'a/b', 'a\\b', 'a\0b'])
      for (const path of [() => dir.bmkDir(name), () => dir.serverLogs(name), () => dir.evalDir('gsm8k', name)])
        expect(path).toThrow(/cannot name a file in the run directory/);
  });

  it('an engines.json that is not a record of engines is a clear error for --resume, not a crash', async () => {
    const dir = tempFiles({ 'a.json': '{"engines": [', 'b.json': '{}', 'c.json': '{"owner": {"pid": 1}, "engines": {}}' });
    for (const f of ['a.json', 'b.json', 'c.json'])
      await expect(stopLeftovers(join(dir, f))).rejects.toThrow(`${join(dir, f)}: not a record of engine processes`);
    expect(await stopLeftovers(join(dir, 'missing.json'))).toEqual([]);
  });
});

describe('frontier run, disaggregated on simulated engines', () => {
  it('1P1D: a prefill sim, a decode sim and the router, benched through the router', async () => {
    const { manifest, dir } = await runRows([disaggRow({ conc: [2, 4] })], simCluster({ engines: { sim: { speed: 4 } } }));
    expect(pointStatuses(manifest)).toEqual(['2:ok', '4:ok']);
    const logDir = join(dir.root, manifest.launches[0]!.logs!);
    const logs = readdirSync(logDir).sort();
    expect(logs).toEqual([
      'dcgm',
      'dcgm-exporter-node0.log',
      'dcgm-exporter-node1.log',
      'decode-0.log',
      'gpus',
      'launch.sh',
      'power',
      'prefill-0.log',
      'router.log',
    ]);
    const agg = JSON.parse(readFileSync(dir.aggFile(manifest.points[0]!.resultFilename), 'utf8')) as Record<string, unknown>;
    expect(agg).toMatchObject({
      is_multinode: true,
      num_prefill_gpu: 8,
      num_decode_gpu: 8,
      prefill_tp: 8,
      decode_tp: 8,
      conc: 2,
    });
    // Power as srt-slurm's dcgm-power lanes measure it: a DCGM exporter per node, one collector, a
    // package with a window per point; the multinode power step splits the energy by role.
    expect(readdirSync(join(logDir, 'power')).sort()).toEqual(['manifest.json', 'samples.csv', 'windows']);
    const manifestJson = JSON.parse(readFileSync(join(logDir, 'power', 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifestJson).toMatchObject({ status: 'complete', publication_valid: true });
    for (const p of manifest.points) {
      expect(p.power).toEqual({ valid: true, reasons: [] });
      const a = JSON.parse(readFileSync(dir.aggFile(p.resultFilename), 'utf8')) as Record<string, number>;
      expect(a.prefill_gpu_energy_j).toBeGreaterThan(0);
      expect(a.decode_gpu_energy_j).toBeGreaterThan(0);
      expect(a.prefill_gpu_energy_j! + a.decode_gpu_energy_j!).toBeCloseTo(a.total_gpu_energy_j!, 0);
      expect(a.decode_joules_per_output_token).toBeGreaterThan(0);
      // The exporters read the engines' GPUs, busy during the benchmark, not an idle inventory.
      expect(a.avg_power_w).toBeGreaterThan(1.2 * findHardware('h100').power.idleW);
    }
    // One matrix row with two concurrencies is one job.
    expect(JSON.parse(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'))).toEqual({
      'test-sim': { n_success: 1, total: 1 },
    });
  });
});

describe('frontier run, speculative decoding with synthetic acceptance', () => {
  // Qwen3.5's golden curve, thinking_on: the sim runs 3 draft tokens, golden AL 3.39.
  const mtpRow = (extraArgs?: string) => {
    const row = disaggRow({
      model: 'Qwen/Qwen3.5-397B-A17B',
      'model-prefix': 'qwen3.5',
      'spec-decoding': 'mtp',
      conc: [8],
      'exp-name': 'qwen3.5_mtp_1k32',
    });
    row.prefill['additional-settings'] = ['SYNTHETIC_ACCEPTANCE=true'];
    return {
      row,
      // A disaggregated deployment (frontend, prefill, decode) comes up slower on a machine busy with the whole suite.
      cluster: simCluster({
        healthCheck: { attempts: 600, intervalSeconds: 0.1 },
        engines: { sim: { speed: 4, ...(extraArgs ? { 'extra-args': extraArgs } : {}) } },
      }),
    };
  };
  const rawOf = (manifest: RunManifest, dir: RunDir) =>
    JSON.parse(readFileSync(dir.rawFile(manifest.points[0]!.resultFilename), 'utf8')) as Record<string, unknown> & {
      frontier: { problems: string[]; acceptance_length_check: Record<string, unknown> };
    };

  it('an MTP row measures the golden AL it was given, within its noise, and is valid', async () => {
    const { row, cluster } = mtpRow();
    const { manifest, dir } = await runRows([row], cluster);
    expect(pointStatuses(manifest)).toEqual(['8:ok']);
    const raw = rawOf(manifest, dir);
    const check = raw.frontier.acceptance_length_check;
    expect(check).toMatchObject({ expected: 3.39, far: false });
    const al = raw.spec_decode_acceptance_length as number;
    expect(check.measured).toBe(al);
    // 2 drafts always accepted, the third with p = 0.39: σ² = 0.39 · 0.61 per draft.
    expect(Math.abs(al - 3.39)).toBeLessThan(4 * Math.sqrt((0.39 * 0.61) / (raw.spec_decode_num_drafts as number)));
    expect(raw.spec_decode_per_position_acceptance_rates).toEqual([1, 1, expect.closeTo(0.39, 1)]);
  });

  it('a server whose acceptance is not the golden AL fails the point, saying how far it is', async () => {
    // The sim told a different acceptance after the adapter's flags, as an engine ignoring the knob would run.
    const { row, cluster } = mtpRow('--spec-acceptance 2.5');
    const { manifest, dir } = await runRows([row], cluster);
    expect(statuses(manifest)).toEqual(['8:invalid']);
    const raw = rawOf(manifest, dir);
    expect(raw.frontier.acceptance_length_check).toMatchObject({ expected: 3.39, far: true });
    expect(raw.spec_decode_acceptance_length).toBeCloseTo(2.5, 1);
    expect(raw.frontier.problems.join('\n')).toMatch(/the measured acceptance length 2\.\d+ is far from the expected 3\.39/);
  });
});

describe('frontier run, local executor, a real llama.cpp server', () => {
  it('starts llama-server with the row’s model, benches each concurrency through it, and stops it', async () => {
    const { binary, model } = await ensureLlamaServerAndModel();
    const cluster: ClusterProfile = {
      ...LOCAL_PROFILE,
      healthCheck: { attempts: 300, intervalSeconds: 0.2 },
      engines: { 'llama.cpp': { binary, threads: 1 } },
      models: [{ modelPrefix: 'qwen3-0.6b', precision: 'q8', path: model }],
    };
    const row = (conc: number): SingleNodeRow =>
      singleRow({
        framework: 'llama.cpp',
        model: 'Qwen/Qwen3-0.6B',
        'model-prefix': 'qwen3-0.6b',
        precision: 'q8',
        runner: 'cpu',
        isl: 64,
        osl: 16,
        conc,
        'max-model-len': 112,
        'exp-name': 'qwen3-0.6b_64_16',
      });
    const { manifest, dir } = await runRows([row(1), row(2)], cluster);
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    for (const p of manifest.points) {
      const result = JSON.parse(readFileSync(dir.rawFile(p.resultFilename), 'utf8')) as Record<string, unknown>;
      expect(result).toMatchObject({ completed: 10 * p.conc, max_concurrency: p.conc });
      // Output lengths are drawn from [0.8 × 16, 16] (range ratio 0.8); the tiny model never stops early.
      expect(result.total_output_tokens).toBeGreaterThanOrEqual(10 * p.conc * 13);
      expect(result.total_output_tokens).toBeLessThanOrEqual(10 * p.conc * 16);
    }
    const logs = join(dir.root, manifest.launches[0]!.logs!);
    const script = readFileSync(join(logs, 'launch.sh'), 'utf8').replace(/ \\\n\s+/g, ' ');
    expect(script).toContain(`${binary} -m ${model} --alias Qwen/Qwen3-0.6B`);
    expect(script).toContain('-np 2');
    // llama-server's own log: it loaded the model and served the benchmark's requests.
    const log = readFileSync(join(logs, 'server.log'), 'utf8');
    expect(log).toMatch(/n_slots = 2/);
    expect(log).toMatch(/model loaded/);
    expect(strays(logs)).toEqual([]);
  });
});

describe('frontier run, evals', () => {
  let evals: EvalSettings;
  // Loading GSM8K and writing the sim's answer keys runs every filter through the bounded regex
  // worker: seconds when the suite keeps both cores busy.
  beforeAll(async () => {
    evals = await evalSettings();
  }, 60_000);

  it('runs GSM8K for a row with run-eval after its points, checks it, and collects agg_eval_all.json', async () => {
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2, 'run-eval': true })];
    const { manifest, dir } = await runRows(rows, simCluster({ engines: { sim: { speed: 20 } } }), { evals });
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    expect(manifest.evals).toHaveLength(1);
    const e = manifest.evals[0]!;
    expect(e).toMatchObject({
      status: 'passed',
      concs: [2],
      dir: `eval_llama3.1-8b_256_32_${manifest.points[1]!.resultFilename}`,
    });
    expect(e).toMatchObject({ tasks: ['gsm8k'] });
    expect(e.scores!.map((x) => [x.task, x.metric])).toEqual([
      ['gsm8k', 'exact_match,strict-match'],
      ['gsm8k', 'exact_match,flexible-extract'],
    ]);
    expect(e.scores![0]!.score).toBeGreaterThan(0.85);
    const files = readdirSync(join(dir.root, e.dir)).sort();
    expect(files.filter((f) => !f.startsWith('.'))).toEqual([
      'meta_env.json',
      expect.stringMatching(/^results_.*\.json$/),
      expect.stringMatching(/^samples_gsm8k_.*\.jsonl$/),
    ]);
    // The launch that runs the eval serves a context the 5-shot prompt fits in.
    const script = readFileSync(join(dir.root, manifest.launches[0]!.logs!, 'launch.sh'), 'utf8').replace(/ \\\n\s+/g, ' ');
    expect(script).toMatch(/--max-model-len 4096/);
    expect(script).toMatch(/--answers \S+eval-answer-keys\.jsonl --accuracy 0\.95/);
    const agg = JSON.parse(readFileSync(join(dir.root, 'agg_eval_all.json'), 'utf8')) as Record<string, unknown>[];
    expect(agg).toHaveLength(1);
    expect(agg[0]).toMatchObject({ task: 'gsm8k', conc: 2, model_prefix: 'llama3.1-8b', n_eff: 60 });
    expect(manifest.status).toBe('completed');
  });

  it('runs the tasks a row asks for (eval-tasks: GPQA and AIME), each scored, checked and collected, and the store reads each', async () => {
    const rows = [singleRow({ conc: 2, 'run-eval': true, 'eval-tasks': ['gpqa_diamond', 'aime'] })];
    const hub = join(REPO, 'test/fixtures/evals/datasets/hub');
    const thresholds = join(tempFiles({ 't.yaml': 'default:\n  gpqa_diamond_cot_n_shot: 0.5\n  aime: 0.5\n' }), 't.yaml');
    const settings = { ...(await evalSettings(undefined, rows, hub)), thresholdsFile: thresholds };
    expect([...settings.tasks.keys()]).toEqual(['gpqa_diamond', 'aime']);
    const { manifest, dir } = await runRows(rows, simCluster({ engines: { sim: { speed: 20 } } }), { evals: settings });
    const e = manifest.evals[0]!;
    expect(e).toMatchObject({ status: 'passed', tasks: ['gpqa_diamond', 'aime'] });
    expect(e.scores!.map((x) => [x.task, x.metric])).toEqual([
      ['gpqa_diamond_cot_n_shot', 'exact_match,extract_abcd'],
      ['aime', 'exact_match,extract_boxed'],
    ]);
    expect(e.check).toMatch(/PASS: aime exact_match,extract_boxed = 0\.\d{4} \(>= 0\.5 from default\)/);
    const files = readdirSync(join(dir.root, e.dir)).filter((f) => f.startsWith('samples_'));
    expect(files.sort()).toEqual([
      expect.stringMatching(/^samples_aime_/),
      expect.stringMatching(/^samples_gpqa_diamond_cot_n_shot_/),
    ]);
    // collect_eval_results.py's rows: the score is em_strict's, null for these tasks, whose filters are "extract" ones.
    const agg = JSON.parse(readFileSync(join(dir.root, 'agg_eval_all.json'), 'utf8')) as Record<string, unknown>[];
    expect(agg.map((r) => [r.task, r.n_eff, r.score, typeof r.em_flexible])).toEqual([
      ['gpqa_diamond_cot_n_shot', 24, null, 'number'],
      ['aime', 12, null, 'number'],
    ]);
    // The store scores them by em_flexible, with its samples file's counts.
    const batch = readArtifacts(dir.root, { runId: 'r' });
    expect(batch.evals.map((x) => [x.task, x.score, x.score_name, x.samples?.docs])).toEqual([
      ['gpqa_diamond_cot_n_shot', agg[0]!.em_flexible, 'em_flexible', 24],
      ['aime', agg[1]!.em_flexible, 'em_flexible', 12],
    ]);
  });

  it('an eval below its threshold fails the run; without a dataset the eval says why', async () => {
    const rows = [singleRow({ conc: 2, 'run-eval': true })];
    const poor = await runRows(rows, simCluster({ engines: { sim: { speed: 20, 'eval-accuracy': 0.5 } } }), { evals });
    expect(poor.manifest.evals[0]).toMatchObject({ status: 'failed' });
    expect(poor.manifest.evals[0]!.error).toMatch(/FAIL: gsm8k exact_match,strict-match = 0\.[3-6]\d{3} \(< 0\.9 from default\)/);
    expect(poor.manifest.status).toBe('failed');
    const none = await runRows(rows, simCluster({ engines: { sim: { speed: 20 } } }));
    expect(none.manifest.evals[0]).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/no eval data: pass --eval-data DIR/),
    });
  });
});
