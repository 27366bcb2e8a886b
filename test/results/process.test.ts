import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultsCli } from './results-cli.js';
import { UserError } from '../../src/util/user-error.js';

import type { MultiNodeRow, SingleNodeRow } from '../../src/matrix/index.js';
import { PythonError, loads } from '../../src/pycompat/index.js';
import {
  identityFromEnv,
  identityFromRow,
  memoryTelemetry,
  parseRow,
  powerSettingsFromEnv,
  processResult,
  resultFilenameOf,
  roleGpus,
} from '../../src/results/index.js';
import type { Env, MatrixRowLike } from '../../src/results/index.js';
import { INFERENCEX, readFixture, tempFiles } from '../helpers.js';

// The reference utils/process_result.py run on nine points (see golden/process-result/README.md).
const GOLDEN = 'golden/process-result';
const CASES = readdirSync(join(INFERENCEX, GOLDEN)).filter((name) => /^\d\d_/.test(name));

interface Case {
  env: Env;
  input: string;
  expected?: string;
  expectedPower?: string;
  expectedError?: string;
  run: { exit_code: number; stdout: string; stderr: string; files_after_run: string[] };
}

function loadCase(name: string): Case {
  const file = (f: string): string | undefined =>
    existsSync(join(INFERENCEX, GOLDEN, name, f)) || existsSync(join(INFERENCEX, GOLDEN, name, `${f}.gz`))
      ? readFixture(`${GOLDEN}/${name}/${f}`)
      : undefined;
  return {
    env: JSON.parse(file('env.json')!) as Env,
    input: file('input.json')!,
    expected: file('expected.json'),
    expectedPower: file('expected_power_validation.json'),
    expectedError: file('expected_error.txt')?.trimEnd(),
    run: JSON.parse(file('run.json')!) as Case['run'],
  };
}
const byName = (prefix: string): Case => loadCase(CASES.find((c) => c.startsWith(prefix))!);

function pythonError(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof PythonError) return `${e.pythonType}: ${e.message}`;
    throw e;
  }
  throw new Error('expected a PythonError');
}

describe('golden points (reference utils/process_result.py)', () => {
  it('has the nine cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(9);
  });

  for (const name of CASES) {
    it(name, () => {
      const c = loadCase(name);
      if (c.expectedError !== undefined) {
        expect(pythonError(() => processResult(loads(c.input), identityFromEnv(c.env)))).toBe(c.expectedError);
        expect(c.run.exit_code).toBe(1);
        return;
      }
      const point = processResult(loads(c.input), identityFromEnv(c.env), {
        settings: powerSettingsFromEnv(c.env),
      });
      // Bytes, as the files are written.
      expect(point.aggJson).toBe(c.expected);
      expect(point.powerValidationJson).toBe(c.expectedPower);
      expect(point.aggJson + '\n').toBe(c.run.stdout);
      expect(point.notice + '\n').toBe(c.run.stderr);
      expect(point.exitCode).toBe(c.run.exit_code);
      expect(c.run.files_after_run).toEqual(expect.arrayContaining([point.aggFile, point.powerValidationFile]));
      // The parsed views, and the same result from JSON.parse input (no integral floats here).
      expect(point.agg).toEqual(JSON.parse(c.expected!));
      expect(point.powerValidation).toEqual(JSON.parse(c.expectedPower!));
      expect(processResult(JSON.parse(c.input), identityFromEnv(c.env)).aggJson).toBe(c.expected);
    });
  }
});

const FP = '3f9a1c0d7b2e4a6f8c1d3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b';
const worker = (w: Partial<MultiNodeRow['prefill']> & Pick<MultiNodeRow['prefill'], 'num-worker' | 'tp' | 'ep' | 'dp-attn'>) => ({
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
  ...w,
});

// Matrix rows as `frontier matrix` prints them, for the points of cases 01, 04, 05 and 06.
const ROWS: Record<string, SingleNodeRow | MultiNodeRow> = {
  '01': {
    image: 'lmsysorg/sglang:v0.5.12-cu130',
    model: 'deepseek-ai/DeepSeek-R1-0528',
    'model-prefix': 'dsr1',
    precision: 'fp8',
    framework: 'sglang',
    runner: 'h200',
    isl: 8192,
    osl: 1024,
    tp: 8,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    conc: 64,
    'max-model-len': 9472,
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    'exp-name': 'dsr1_8k1k',
    disagg: false,
    'run-eval': false,
  },
  '04': {
    image: 'lmsysorg/sglang:v0.5.16-rocm720-mi35x',
    model: 'Qwen/Qwen3.5-397B-A17B-FP8',
    'model-prefix': 'qwen3.5',
    precision: 'fp8',
    framework: 'sglang-disagg',
    runner: 'mi355x-disagg',
    isl: 8192,
    osl: 1024,
    'spec-decoding': 'none',
    prefill: worker({ 'num-worker': 1, tp: 4, ep: 1, 'dp-attn': false }),
    decode: worker({ 'num-worker': 1, tp: 8, ep: 1, 'dp-attn': false }),
    conc: [8, 16, 32, 64, 128],
    'max-model-len': 9472,
    'exp-name': 'qwen3.5_8k1k',
    disagg: true,
    router: { name: 'sglang-router', version: '0.3.2' },
    'kv-p2p-transfer': 'mori',
  },
  '05': {
    image: 'vllm/vllm-openai:v0.20.1-ubuntu2404',
    model: 'deepseek-ai/DeepSeek-V4-Pro',
    'model-prefix': 'dsv4',
    precision: 'fp4',
    framework: 'dynamo-vllm',
    runner: 'gb200',
    isl: 8192,
    osl: 1024,
    'spec-decoding': 'mtp',
    prefill: worker({ 'num-worker': 1, tp: 8, ep: 1, 'dp-attn': false }),
    decode: worker({ 'num-worker': 0, tp: 8, ep: 1, 'dp-attn': false }),
    conc: [1],
    'max-model-len': 9472,
    'exp-name': 'dsv4_8k1k',
    disagg: true,
    router: { name: 'dynamo-router', version: '1.2.0.dev20260426' },
    'kv-p2p-transfer': 'nixl',
  },
  '06': {
    image: 'nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2',
    model: 'nvidia/DeepSeek-R1-0528-NVFP4-v2',
    'model-prefix': 'dsr1',
    precision: 'fp4',
    framework: 'dynamo-trt',
    runner: 'gb200',
    isl: 8192,
    osl: 1024,
    'spec-decoding': 'mtp',
    prefill: worker({ 'num-worker': 1, tp: 4, ep: 4, 'dp-attn': true, hardware: 'gb300' }),
    decode: worker({ 'num-worker': 4, tp: 8, ep: 8, 'dp-attn': false, hardware: 'gb200' }),
    conc: [4, 8, 12, 24, 48],
    'max-model-len': 9472,
    'exp-name': 'dsr1_8k1k',
    disagg: true,
    router: { name: 'dynamo-router', version: '0.8.1.post2' },
    'kv-p2p-transfer': 'nixl',
  },
};
// Rows from the changelog carry the recipe fingerprint.
const rowOf = (id: string): MatrixRowLike => ({ ...ROWS[id]!, 'recipe-fingerprint': FP });

describe('identity from a matrix row', () => {
  for (const id of Object.keys(ROWS)) {
    it(`case ${id}: the same identity and bytes as the environment`, () => {
      const c = byName(id);
      const identity = identityFromRow(rowOf(id), { resultFilename: c.env.RESULT_FILENAME });
      expect(identity).toEqual(identityFromEnv(c.env));
      const point = processResult(loads(c.input), identity);
      expect(point.aggJson).toBe(c.expected);
      expect(point.powerValidationJson).toBe(c.expectedPower);
    });
  }

  it('names the point as the workflow does, and takes GPUs from the name or the topology', () => {
    expect(resultFilenameOf(rowOf('01'), 'h200-cw_03')).toBe(byName('01').env.RESULT_FILENAME);
    const row04 = ROWS['04'] as MultiNodeRow;
    expect(byName('04').env.RESULT_FILENAME!.startsWith(resultFilenameOf(row04, 'mi355x-amds_05'))).toBe(true);
    const row06 = ROWS['06'] as MultiNodeRow;
    expect(roleGpus(row06, 'x_conc48_gpus_36_ctx_4_gen_32')).toEqual({ prefill: 4, decode: 32 });
    expect(roleGpus(row06, 'x_conc1_gpus_8')).toEqual({ prefill: 8, decode: 0 });
    expect(roleGpus(row06, 'x')).toEqual({ prefill: 4, decode: 32 });
    expect(roleGpus(ROWS['05'] as MultiNodeRow, 'x')).toEqual({ prefill: 8, decode: 0 });
    // Without a name, the workflow's base name with the runner label standing in for the machine.
    expect(identityFromRow(rowOf('01'), { runner: 'cluster:h200-cw' })).toMatchObject({
      hw: 'cluster:h200-cw',
      resultFilename:
        'dsr1_8k1k_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64_cluster:h200-cw_recipe-3f9a1c0d7b2e4a6f',
    });
  });

  it('reads a row from JSON and refuses what is not a fixed-seq-len row', () => {
    expect(parseRow([ROWS['01']], 'row.json')).toEqual(ROWS['01']);
    expect(() => parseRow({ ...ROWS['01'], tp: '8' }, 'row.json')).toThrow(/row\.json: not a usable matrix row: tp: /);
    expect(() => parseRow([ROWS['01'], ROWS['01']], 'row.json')).toThrow(/holds 2 rows/);
    expect(() => parseRow({ ...ROWS['01'], 'scenario-type': 'agentic-coding' }, 'row.json')).toThrow(/agentic-coding row/);
  });
});

describe('environment rules of the reference', () => {
  const env01 = (): Env => ({ ...byName('01').env });

  it('reads integers as Python int() does', () => {
    const t = identityFromEnv({ ...env01(), TP: ' 8 ', PP_SIZE: '01', EP_SIZE: '1_0', ISL: '\u00a08192\n' }).topology;
    expect(t).toMatchObject({ tp: 8, pp: 1, ep: 10 });
    expect(identityFromEnv({ ...env01(), ISL: '٨١٩٢' }).isl).toBe(8192);
    for (const bad of ['8x', '1__0', '', '0x8', '8.0'])
      expect(pythonError(() => identityFromEnv({ ...env01(), TP: bad }))).toBe(
        `ValueError: invalid literal for int() with base 10: '${bad}'`,
      );
    expect(pythonError(() => identityFromEnv({ ...env01(), PP_SIZE: '0' }))).toBe(
      'ValueError: PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.',
    );
  });

  it('checks DISAGG, IS_MULTINODE and the multinode variables in the reference order', () => {
    expect(pythonError(() => identityFromEnv({ ...env01(), DISAGG: 'True' }))).toBe(
      'ValueError: Disaggregated mode requires multinode setup.',
    );
    expect(pythonError(() => identityFromEnv({ ...env01(), IS_MULTINODE: 'TRUE', DECODE_TP: '8', PREFILL_GPUS: '4' }))).toBe(
      'OSError: Missing required environment variables: DECODE_GPUS, PREFILL_NUM_WORKERS, PREFILL_TP, PREFILL_EP, PREFILL_DP_ATTN, DECODE_NUM_WORKERS, DECODE_EP, DECODE_DP_ATTN',
    );
    const env06 = byName('06').env;
    expect(pythonError(() => identityFromEnv({ ...env06, DECODE_HARDWARE: '' }))).toBe(
      'ValueError: PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.',
    );
    expect(pythonError(() => identityFromEnv({ ...env06, PREFILL_GPUS: '0', DECODE_GPUS: '0' }))).toBe(
      'ValueError: Multinode results require at least one GPU.',
    );
    expect(pythonError(() => identityFromEnv({ ...env06, PREFILL_GPUS: '0' }))).toBe(
      'ValueError: Multinode results require at least one prefill GPU.',
    );
    expect(pythonError(() => identityFromEnv({ ...env06, DECODE_DCP_SIZE: '-1' }))).toBe(
      'ValueError: Multinode PP, DCP, and PCP sizes must be positive integers.',
    );
  });

  it('parses ROUTER_METADATA strictly', () => {
    expect(identityFromEnv({ ...env01(), ROUTER_METADATA: 'null' }).router).toBeUndefined();
    expect(identityFromEnv({ ...env01(), ROUTER_METADATA: '{"version": "1", "name": "r"}' }).router).toEqual({
      version: '1',
      name: 'r',
    });
    const router = (text: string): string => pythonError(() => identityFromEnv({ ...env01(), ROUTER_METADATA: text }));
    expect(router('{name: r}')).toBe('ValueError: ROUTER_METADATA must contain valid JSON');
    expect(router('["name", "version"]')).toBe("ValueError: ROUTER_METADATA must contain exactly 'name' and 'version'");
    expect(router('{"name": "r"}')).toBe("ValueError: ROUTER_METADATA must contain exactly 'name' and 'version'");
    expect(router('{"name": "", "version": "1"}')).toBe('ValueError: ROUTER_METADATA name and version must be non-empty strings');
    expect(router('{"name": NaN, "version": "1"}')).toBe(
      'ValueError: ROUTER_METADATA name and version must be non-empty strings',
    );
  });
});

describe('raw results', () => {
  const c01 = (): Case => byName('01');
  const raw01 = (): Record<string, unknown> => loads(c01().input) as Record<string, unknown>;

  it('keeps Python floats floats: 1000.0 ms is 1.0 s', () => {
    const text = c01().input.replace(/"mean_ttft_ms": [^,]+/, '"mean_ttft_ms": 1000.0');
    const point = processResult(loads(text), identityFromEnv(c01().env));
    expect(point.aggJson).toContain('"mean_ttft": 1.0,');
    expect(point.agg.mean_ttft).toBe(1);
  });

  it('raises what Python raises on unusable values', () => {
    const id = identityFromEnv(c01().env);
    expect(pythonError(() => processResult({ ...raw01(), median_tpot_ms: 0 }, id))).toBe(
      'ZeroDivisionError: float division by zero',
    );
    expect(pythonError(() => processResult({ ...raw01(), max_concurrency: null }, id))).toBe(
      "TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    );
    const { model_id: _, ...noModel } = raw01();
    expect(pythonError(() => processResult(noModel, id))).toBe("KeyError: 'model_id'");
    expect(pythonError(() => processResult({ ...raw01(), p99_itl_ms: 'fast' }, id))).toBe(
      "ValueError: could not convert string to float: 'fast'",
    );
    expect(pythonError(() => processResult([], id))).toBe('TypeError: list indices must be integers or slices, not str');
    expect(pythonError(() => processResult({ ...raw01() }, identityFromEnv({ ...c01().env, TP: '0' })))).toBe(
      'ZeroDivisionError: float division by zero',
    );
  });

  it('reports the benchmark-window and count reasons of the power step', () => {
    const id = identityFromEnv(c01().env);
    const point = processResult({ ...raw01(), duration: 100, completed: 0 }, id);
    expect(point.powerValidation.reasons).toEqual([
      'benchmark_duration_mismatch',
      'invalid_successful_query_count',
      'telemetry_file_missing',
    ]);
    expect(point.notice).toBe(
      `[aggregate_power] Power validation failed: benchmark_duration_mismatch, invalid_successful_query_count, telemetry_file_missing (details: power_validation_${id.resultFilename}.json)`,
    );
    const { benchmark_end_time_unix: _, ...noWindow } = raw01();
    expect(processResult(noWindow, id).powerValidation).toMatchObject({
      reasons: ['invalid_benchmark_window'],
      benchmark_window: null,
      expected_gpu_count: 8,
    });
  });

  it('follows the power settings: REQUIRE_POWER, GPU_METRICS_CSV, POWER_ARTIFACT_DIR, POWER_PRODUCER_SHA', () => {
    const id = identityFromEnv(c01().env);
    const settings = powerSettingsFromEnv({ REQUIRE_POWER: 'Yes', GPU_METRICS_CSV: '/tmp//none.csv' });
    const point = processResult(raw01(), id, { settings });
    expect(point.exitCode).toBe(1);
    expect(point.powerValidation.telemetry_source).toBe('/tmp/none.csv');
    expect(processResult(raw01(), id, { files: memoryTelemetry({ 'gpu_metrics.csv': '' }) }).powerValidation).toMatchObject({
      reasons: ['telemetry_file_empty'],
      telemetry_source: 'gpu_metrics.csv',
    });
    // Telemetry present is integrated (here: a header and no samples).
    const header = memoryTelemetry({ 'gpu_metrics.csv': 'timestamp, index, power.draw [W]\n' });
    expect(processResult(raw01(), id, { files: header }).powerValidation).toMatchObject({
      reasons: ['no_usable_power_samples'],
      telemetry_source: 'gpu_metrics.csv',
    });

    const c04 = byName('04');
    const id04 = identityFromEnv(c04.env);
    const multi = processResult(loads(c04.input), id04, {
      settings: powerSettingsFromEnv({ POWER_ARTIFACT_DIR: '', POWER_PRODUCER_SHA: 'abc123' }),
    });
    expect(multi.powerValidation).toMatchObject({
      reasons: ['manifest_missing'],
      failures: ['manifest missing: manifest.json'],
      telemetry_source: '.',
      producer: { expected_producer_git_commit: 'abc123' },
    });
  });
});

describe('frontier results process', () => {
  const run = (args: string[], cwd: string, env: Env = {}) => resultsCli(['process', ...args], cwd, env);

  it('--env: a drop-in for process_result.py (reads $RESULT_FILENAME.json here, writes both files)', async () => {
    for (const prefix of ['01', '06', '09']) {
      const c = byName(prefix);
      const rf = c.env.RESULT_FILENAME!;
      const dir = tempFiles({ [`${rf}.json`]: c.input });
      const out = await run(['--env'], dir, c.env);
      expect(out.stdout).toBe(c.run.stdout);
      expect(out.stderr).toBe(c.run.stderr);
      expect(out.exitCode).toBeUndefined();
      expect(readdirSync(dir).sort()).toEqual([...c.run.files_after_run].sort());
      expect(readFileSync(join(dir, `agg_${rf}.json`), 'utf8')).toBe(c.expected);
      expect(readFileSync(join(dir, `power_validation_${rf}.json`), 'utf8')).toBe(c.expectedPower);
    }
  });

  it('--row: RAW named by its path, files into --out-dir', async () => {
    const c = byName('04');
    const rf = c.env.RESULT_FILENAME!;
    const dir = tempFiles({ [`raw/${rf}.json`]: c.input, 'row.json': JSON.stringify(rowOf('04'), null, 2) });
    const out = await run([`raw/${rf}.json`, '--row', 'row.json', '--out-dir', 'out'], dir);
    expect(out.stdout).toBe(c.run.stdout);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual([`agg_${rf}.json`, `power_validation_${rf}.json`]);
    expect(readFileSync(join(dir, 'out', `agg_${rf}.json`), 'utf8')).toBe(c.expected);
    expect(readFileSync(join(dir, 'out', `power_validation_${rf}.json`), 'utf8')).toBe(c.expectedPower);
  });

  it('REQUIRE_POWER=1: both files written, exit status 1', async () => {
    const c = byName('02');
    const dir = tempFiles({ 'raw.json': c.input });
    const out = await run(['raw.json', '--env', '--out-dir', 'out'], dir, { ...c.env, REQUIRE_POWER: '1' });
    expect(out.exitCode).toBe(1);
    expect(readdirSync(join(dir, 'out'))).toHaveLength(2);
  });

  it('errors: one line naming the cause, and no file written', async () => {
    const c08 = byName('08');
    const dir = tempFiles({ [`${c08.env.RESULT_FILENAME}.json`]: c08.input });
    await expect(run(['--env', '--out-dir', 'out'], dir, c08.env)).rejects.toThrow(
      new UserError(
        'environment: ValueError: ROUTER_METADATA must contain exactly \'name\' and \'version\' (ROUTER_METADATA is JSON like {"name": "sglang-router", "version": "0.3.2"})',
      ),
    );
    const c07 = byName('07');
    await expect(run(['--env'], dir, c07.env)).rejects.toThrow(
      /^environment: OSError: Missing required environment variables: MODEL_PREFIX, IMAGE/,
    );
    await expect(run(['--env'], dir, { ...c08.env, RESULT_FILENAME: 'absent', ROUTER_METADATA: '' })).rejects.toThrow(
      /absent\.json: cannot read the raw benchmark result: no such file/,
    );
    await expect(run(['x.json'], dir)).rejects.toThrow(/give exactly one of --env/);
    expect(readdirSync(dir).sort()).toEqual([`${c08.env.RESULT_FILENAME}.json`]);
  });
});

// The matrix's row types are rows this module accepts.
const _assignable: MatrixRowLike[] = [ROWS['01'] as SingleNodeRow, ROWS['04'] as MultiNodeRow];
