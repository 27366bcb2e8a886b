// Every case of InferenceX utils/test_validate_reusable_sweep_artifacts.py, ported: the same
// artifact folders (written to a temp dir by the same helpers), the same outcome.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agenticKey,
  agenticProblems,
  applyDedupePlan,
  benchmarkKey,
  dedupeRerunEvals,
  evalKey,
  evalProblems,
  fixedProblems,
  readArtifactSet,
  validateArtifacts,
} from '../../src/ci/reuse/index.js';

type Row = Record<string, unknown>;

const tmp = (): string => mkdtempSync(join(tmpdir(), 'frontier-reuse-'));
const write = (path: string, data: unknown): void => writeFileSync(path, JSON.stringify(data));
const messages = (problems: { message: string }[]): string[] => problems.map((p) => p.message);
const evalErrors = (root: string): string[] => messages(evalProblems(readArtifactSet(root)));

function writeEvalAggregate(root: string, rows?: Row[]): void {
  mkdirSync(join(root, 'eval_results_all'));
  write(join(root, 'eval_results_all', 'agg_eval_all.json'), rows ?? [{ task: 'gsm8k' }]);
}

function singleEvalResult(conc: number, runner = 'h100-dgxc-slurm', isl = 8192, osl = 1024): Row {
  return {
    is_multinode: false,
    hw: runner.toUpperCase(),
    model_prefix: 'gptoss',
    framework: 'vllm',
    precision: 'fp4',
    spec_decoding: 'none',
    isl,
    osl,
    tp: 2,
    pp: 1,
    dcp_size: 1,
    pcp_size: 1,
    ep: 1,
    dp_attention: false,
    conc,
    task: 'gsm8k',
  };
}

function singleEvalMeta(conc: number, runner = 'h100-dgxc-slurm', isl = 8192, osl = 1024): Row {
  const { model_prefix, ...row } = singleEvalResult(conc, runner, isl, osl);
  return { ...row, infmax_model_prefix: model_prefix };
}

function writeRawEvalArtifact(
  root: string,
  conc: number,
  o: { logicalRunner?: string; physicalRunner?: string; isl?: number; osl?: number } = {},
): void {
  const dir = join(root, `eval_result_conc${conc}_${o.physicalRunner ?? 'h100-dgxc-slurm_00'}`);
  mkdirSync(dir);
  write(join(dir, 'meta_env.json'), singleEvalMeta(conc, o.logicalRunner, o.isl, o.osl));
}

function multinodeEvalResult(conc: number): Row {
  return {
    is_multinode: true,
    hw: 'GB200',
    model_prefix: 'gptoss',
    framework: 'dynamo-sglang',
    precision: 'fp8',
    spec_decoding: 'none',
    isl: 8192,
    osl: 1024,
    prefill_tp: 4,
    prefill_ep: 1,
    prefill_dp_attention: false,
    prefill_num_workers: 1,
    decode_tp: 8,
    decode_ep: 1,
    decode_dp_attention: true,
    decode_num_workers: 2,
    conc,
    task: 'gsm8k',
  };
}

function writeRawBatchedEvalArtifact(root: string, concs: number[], completed?: number[], failed?: number[]): void {
  const dir = join(root, 'eval_gptoss_8k1k_batch');
  mkdirSync(dir);
  const { model_prefix, ...meta } = multinodeEvalResult(concs[0]!);
  write(join(dir, 'meta_env.json'), {
    ...meta,
    infmax_model_prefix: model_prefix,
    eval_concs: concs,
    completed_eval_concs: completed ?? concs,
    failed_eval_concs: failed ?? [],
  });
}

function fixedResult(conc: number): Row {
  return {
    hw: 'h100',
    infmax_model_prefix: 'gptoss',
    framework: 'vllm',
    precision: 'fp8',
    spec_decoding: 'none',
    disagg: false,
    isl: 1024,
    osl: 1024,
    tp: 2,
    pp: 1,
    dcp_size: 1,
    pcp_size: 1,
    ep: 1,
    dp_attention: false,
    conc,
    is_multinode: false,
  };
}

function agenticResult(conc = 16): Row {
  return {
    hw: 'b200-dgxc',
    infmax_model_prefix: 'dsv4',
    framework: 'vllm',
    precision: 'fp4',
    scenario_type: 'agentic-coding',
    is_multinode: false,
    tp: 8,
    pp: 1,
    dcp_size: 1,
    pcp_size: 1,
    ep: 8,
    dp_attention: 'true',
    conc,
    offloading: 'cpu',
  };
}

function writeAgenticArtifacts(root: string, conc = 16): void {
  const name = `dsv4_tp8_conc${conc}_offloadcpu_result`;
  mkdirSync(join(root, `bmk_agentic_${name}`));
  write(join(root, `bmk_agentic_${name}`, `${name}.json`), agenticResult(conc));
  mkdirSync(join(root, `agentic_${name}`));
}

const without = (row: Row, keys: string[]): Row => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

describe('identities', () => {
  it('single-node keys default legacy parallelism and separate variants', () => {
    const cases: [string, (r: Row) => unknown[], Row][] = [
      ['fixed', benchmarkKey, fixedResult(16)],
      ['agentic', agenticKey, agenticResult()],
      ['eval', evalKey, singleEvalResult(16)],
    ];
    for (const [name, identity, row] of cases) {
      expect(identity(without(row, ['pp', 'dcp_size', 'pcp_size'])), name).toEqual(identity(row));
      for (const field of ['pp', 'dcp_size', 'pcp_size'])
        expect(identity({ ...row, [field]: 2 }), name).not.toEqual(identity(row));
    }
  });

  it('multinode agentic identity fields match', () => {
    const row: Row = {
      hw: 'gb200',
      infmax_model_prefix: 'dsv4',
      framework: 'dynamo-sglang',
      precision: 'fp8',
      spec_decoding: 'none',
      disagg: true,
      scenario_type: 'agentic-coding',
      is_multinode: true,
      prefill_tp: 4,
      prefill_pp: 2,
      prefill_dcp_size: 2,
      prefill_pcp_size: 2,
      prefill_ep: 2,
      prefill_dp_attention: 'true',
      prefill_num_workers: 2,
      decode_tp: 8,
      decode_pp: 2,
      decode_dcp_size: 4,
      decode_pcp_size: 1,
      decode_ep: 4,
      decode_dp_attention: 'false',
      decode_num_workers: 3,
      conc: 64,
    };
    expect(agenticKey(row)).toEqual([
      'multi',
      'gb200',
      'dsv4',
      'dynamo-sglang',
      'fp8',
      'none',
      true,
      4,
      2,
      2,
      2,
      2,
      true,
      2,
      8,
      2,
      4,
      1,
      4,
      false,
      3,
      64,
    ]);
    const fields = ['prefill_pp', 'prefill_dcp_size', 'prefill_pcp_size', 'decode_pp', 'decode_dcp_size', 'decode_pcp_size'];
    for (const identity of [benchmarkKey, agenticKey, evalKey]) {
      const defaults = { ...row, ...Object.fromEntries(fields.map((f) => [f, 1])) };
      expect(identity(without(row, fields))).toEqual(identity(defaults));
      for (const f of fields) expect(identity({ ...defaults, [f]: 2 })).not.toEqual(identity(defaults));
    }
  });

  it('agentic identity freezes a nested kv_offload_backend, key order aside', () => {
    const row = {
      ...without(agenticResult(), ['offloading']),
      kv_offloading: 'dram',
      kv_offload_backend: { name: 'native', options: { layers: ['cpu', 'gpu'] } },
    };
    const id = agenticKey(row);
    expect(id).toEqual(agenticKey({ ...row, kv_offload_backend: { options: { layers: ['cpu', 'gpu'] }, name: 'native' } }));
    expect(id).not.toEqual(agenticKey({ ...row, kv_offload_backend: { name: 'native', options: { layers: ['cpu'] } } }));
  });
});

describe('eval artifacts', () => {
  it('need raw result dirs, not the eval debug dirs', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32), singleEvalResult(64)]);
    mkdirSync(join(root, 'eval_server_logs_gptoss_8k1k_runner'));
    mkdirSync(join(root, 'eval_gpu_metrics_gptoss_8k1k_runner'));
    writeRawEvalArtifact(root, 32);
    expect(evalErrors(root).some((e) => e.includes('unexpected'))).toBe(true);
  });

  it('accept matching raw and aggregate', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32), singleEvalResult(64)]);
    writeRawEvalArtifact(root, 32);
    writeRawEvalArtifact(root, 64, { physicalRunner: 'h100-dgxc-slurm_01' });
    expect(evalErrors(root)).toEqual([]);
  });

  it('distinguish sequence lengths', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32, undefined, 1024), singleEvalResult(32, undefined, 8192)]);
    writeRawEvalArtifact(root, 32, { isl: 1024 });
    writeRawEvalArtifact(root, 32, { physicalRunner: 'h100-dgxc-slurm_01', isl: 8192 });
    expect(evalErrors(root)).toEqual([]);
  });

  it('reject a raw/aggregate mismatch', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32)]);
    writeRawEvalArtifact(root, 32);
    writeRawEvalArtifact(root, 64, { physicalRunner: 'h100-dgxc-slurm_01' });
    expect(evalErrors(root).some((e) => e.includes('missing'))).toBe(true);
  });

  it('reject a duplicate raw identity', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32)]);
    writeRawEvalArtifact(root, 32);
    writeRawEvalArtifact(root, 32, { physicalRunner: 'h100-dgxc-slurm_01' });
    expect(evalErrors(root).some((e) => e.includes('duplicate'))).toBe(true);
  });

  it('use the logical runner from the metadata', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(64, 'mi300x')]);
    writeRawEvalArtifact(root, 64, { logicalRunner: 'mi300x', physicalRunner: 'mi300x-amds_04' });
    expect(evalErrors(root)).toEqual([]);
  });

  it('expand one batched multinode artifact', () => {
    const root = tmp();
    writeEvalAggregate(root, [4, 16, 64].map(multinodeEvalResult));
    writeRawBatchedEvalArtifact(root, [4, 16, 64]);
    expect(evalErrors(root)).toEqual([]);
  });

  it('accept the completed points of a failed batch', () => {
    const root = tmp();
    writeEvalAggregate(root, [4, 64].map(multinodeEvalResult));
    writeRawBatchedEvalArtifact(root, [4, 16, 64], [4, 64], [16]);
    expect(evalErrors(root)).toEqual([]);
  });

  it('compare the aggregate exactly', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32), singleEvalResult(64)]);
    writeRawEvalArtifact(root, 32);
    expect(evalErrors(root).some((e) => e.includes('eval aggregate') && e.includes('unexpected'))).toBe(true);
  });

  it('reject a duplicate aggregate identity', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32), singleEvalResult(32)]);
    writeRawEvalArtifact(root, 32);
    expect(evalErrors(root).some((e) => e.includes('eval aggregate') && e.includes('duplicate'))).toBe(true);
  });
});

describe('fixed-sequence artifacts', () => {
  it('accept unique rows', () => {
    const root = tmp();
    mkdirSync(join(root, 'results_bmk'));
    write(join(root, 'results_bmk', 'agg_bmk.json'), [fixedResult(8), fixedResult(16)]);
    expect(fixedProblems(readArtifactSet(root))).toEqual([]);
  });

  it('reject a duplicate identity', () => {
    const root = tmp();
    mkdirSync(join(root, 'results_bmk'));
    write(join(root, 'results_bmk', 'agg_bmk.json'), [fixedResult(8), fixedResult(8)]);
    const problems = fixedProblems(readArtifactSet(root));
    expect(messages(problems)).toContain('fixed-sequence artifacts contain 1 duplicate row(s)');
    expect(problems[0]!.code).toBe('duplicate-rows');
    expect(problems[0]!.details[0]).toBe(
      "duplicate x2: ('single', 'h100', 'gptoss', 'vllm', 'fp8', 'none', False, 1024, 1024, 2, 1, 1, 1, 1, False, 8)",
    );
  });
});

describe('agentic artifacts', () => {
  const agenticErrors = (root: string): string[] => messages(agenticProblems(readArtifactSet(root)));

  it('check points against raw artifacts', () => {
    const root = tmp();
    writeAgenticArtifacts(root);
    expect(agenticErrors(root)).toEqual([]);
  });

  it("accept run-sweep's point artifacts", () => {
    const root = tmp();
    writeAgenticArtifacts(root);
    expect(agenticErrors(root)).toEqual([]);
  });

  it('accept an additional source identity', () => {
    const root = tmp();
    writeAgenticArtifacts(root);
    mkdirSync(join(root, 'bmk_agentic_extra'));
    write(join(root, 'bmk_agentic_extra', 'extra.json'), agenticResult(32));
    mkdirSync(join(root, 'agentic_extra'));
    expect(agenticErrors(root)).toEqual([]);
  });

  it('require point and raw artifacts for aggregate rows', () => {
    const root = tmp();
    mkdirSync(join(root, 'results_bmk'));
    write(join(root, 'results_bmk', 'agg_bmk.json'), [agenticResult()]);
    expect(agenticErrors(root)).toContain('agentic aggregate artifacts contain 1 unexpected row(s)');
  });

  it('reject a duplicate point identity', () => {
    const root = tmp();
    writeAgenticArtifacts(root);
    const dir = join(root, 'bmk_agentic_dsv4_tp8_conc16_offloadcpu_result');
    write(join(dir, readdirSync(dir)[0]!), [agenticResult(), agenticResult()]);
    expect(agenticErrors(root)).toContain('agentic point artifacts contain 1 duplicate row(s)');
  });

  it('handle a mapping kv_offload_backend', () => {
    const root = tmp();
    const row = { ...without(agenticResult(), ['offloading']), kv_offloading: 'dram', kv_offload_backend: { name: 'native' } };
    mkdirSync(join(root, 'bmk_agentic_native_offload'));
    write(join(root, 'bmk_agentic_native_offload', 'result.json'), [row, row]);
    mkdirSync(join(root, 'agentic_native_offload'));
    expect(agenticErrors(root)).toContain('agentic point artifacts contain 1 duplicate row(s)');
  });

  // Frontier: the raw agentic dir checks, by code.
  it('name a point without its raw dir, and a raw dir without its point', () => {
    const root = tmp();
    writeAgenticArtifacts(root);
    mkdirSync(join(root, 'agentic_stray'));
    const problems = agenticProblems(readArtifactSet(root));
    expect(problems.map((p) => [p.code, p.message])).toEqual([
      ['raw-agentic-unexpected', 'unexpected raw agentic artifact dir: agentic_stray'],
    ]);
  });
});

describe('the whole validation (main)', () => {
  it('an eval-only set needs no benchmark artifacts', () => {
    const root = tmp();
    writeEvalAggregate(root, [singleEvalResult(32)]);
    writeRawEvalArtifact(root, 32);
    const v = validateArtifacts(dedupeRerunEvals(readArtifactSet(root)).after);
    expect(v.ok).toBe(true);
    expect(v.counts).toEqual({ fixed: 0, agentic: 0, eval: 1 });
  });

  // Frontier: the remaining codes of the whole validation.
  it('run-stats-missing with fixed-sequence rows; no-result-rows for an empty set', () => {
    const root = tmp();
    mkdirSync(join(root, 'results_bmk'));
    write(join(root, 'results_bmk', 'agg_bmk.json'), [fixedResult(8)]);
    expect(validateArtifacts(readArtifactSet(root)).problems.map((p) => p.code)).toEqual(['run-stats-missing']);
    mkdirSync(join(root, 'run-stats'));
    write(join(root, 'run-stats', 'run_stats.json'), {});
    expect(validateArtifacts(readArtifactSet(root)).ok).toBe(true);
    expect(validateArtifacts(readArtifactSet(tmp())).problems.map((p) => p.code)).toEqual(['no-result-rows']);
  });

  it('eval-meta-missing, eval-batch-invalid, eval-aggregate-missing, eval-aggregate-empty', () => {
    const root = tmp();
    mkdirSync(join(root, 'eval_no_meta'));
    mkdirSync(join(root, 'eval_bad_batch'));
    write(join(root, 'eval_bad_batch', 'meta_env.json'), { ...singleEvalMeta(4), eval_concs: [4] });
    writeRawEvalArtifact(root, 32);
    expect(evalProblems(readArtifactSet(root)).map((p) => p.code)).toEqual([
      'eval-batch-invalid',
      'eval-meta-missing',
      'eval-aggregate-missing',
    ]);
    writeEvalAggregate(root, []);
    write(join(root, 'eval_results_all', 'agg_eval_all.json'), []);
    expect(evalProblems(readArtifactSet(root)).map((p) => p.code)).toContain('eval-aggregate-empty');
  });
});

// ── reran evals collapsed to the latest result ───────────────────────────────
function ddMeta(conc: number): Row {
  return {
    is_multinode: true,
    hw: 'b300',
    infmax_model_prefix: 'minimaxm3',
    framework: 'dynamo-vllm',
    precision: 'fp4',
    spec_decoding: 'none',
    isl: 8192,
    osl: 1024,
    prefill_tp: 2,
    prefill_ep: 2,
    prefill_dp_attention: true,
    prefill_num_workers: 4,
    decode_tp: 8,
    decode_ep: 8,
    decode_dp_attention: true,
    decode_num_workers: 2,
    conc,
  };
}

function ddAggRow(conc: number, source: string, emStrict: number): Row {
  const { infmax_model_prefix, ...row } = ddMeta(conc);
  return { ...row, model_prefix: infmax_model_prefix, task: 'gsm8k', em_strict: emStrict, source };
}

function ddWriteAggregate(root: string, rows: Row[]): string {
  mkdirSync(join(root, 'eval_results_all'), { recursive: true });
  const path = join(root, 'eval_results_all', 'agg_eval_all.json');
  writeFileSync(path, JSON.stringify(rows, null, 2));
  return path;
}

function ddWriteLegacyRaw(root: string, name: string, conc: number, timestamp: string | null): void {
  mkdirSync(join(root, name));
  write(join(root, name, 'meta_env.json'), ddMeta(conc));
  if (timestamp !== null) writeFileSync(join(root, name, `results_${timestamp}.json`), '{}');
}

/** The reference's dedupe_reran_evals: collapse in place, return the change log. */
function dedupe(root: string): string[] {
  const { plan } = dedupeRerunEvals(readArtifactSet(root));
  applyDedupePlan(root, plan);
  return plan.messages;
}

describe('dedupe of reran evals', () => {
  it('keeps the latest legacy rerun', () => {
    const root = tmp();
    const [old, mid, neu, empty] = [
      'eval_minimaxm3_conc4096_b300-nv_15',
      'eval_minimaxm3_conc4096_b300-nv_16',
      'eval_minimaxm3_conc4096_b300-nv_12',
      'eval_minimaxm3_conc4096_b300-nv_03',
    ];
    ddWriteLegacyRaw(root, old!, 4096, '2026-06-26T13-00-22.596040');
    ddWriteLegacyRaw(root, mid!, 4096, '2026-06-26T19-00-52.356121');
    ddWriteLegacyRaw(root, neu!, 4096, '2026-06-27T04-28-31.838775');
    ddWriteLegacyRaw(root, empty!, 4096, null);
    ddWriteAggregate(root, [
      ddAggRow(4096, `eval_results/${old}/results_2026-06-26T13-00-22.596040.json`, 0.83),
      ddAggRow(4096, `eval_results/${neu}/results_2026-06-27T04-28-31.838775.json`, 0.95),
      ddAggRow(4096, `eval_results/${mid}/results_2026-06-26T19-00-52.356121.json`, 0.78),
    ]);
    const log = dedupe(root);
    expect(evalErrors(root)).toEqual([]);
    const rows = JSON.parse(readFileSync(join(root, 'eval_results_all', 'agg_eval_all.json'), 'utf8')) as Row[];
    expect(rows.map((r) => r.em_strict)).toEqual([0.95]);
    expect(existsSync(join(root, neu!))).toBe(true);
    for (const gone of [old, mid, empty]) expect(existsSync(join(root, gone!))).toBe(false);
    expect(log.some((m) => m.includes('kept 1 of 3'))).toBe(true);
  });

  it('leaves ambiguous duplicates for the validation', () => {
    const root = tmp();
    for (const name of ['eval_minimaxm3_conc4096_b300-nv_01', 'eval_minimaxm3_conc4096_b300-nv_02'])
      ddWriteLegacyRaw(root, name, 4096, null);
    ddWriteAggregate(root, [ddAggRow(4096, 'eval_results/eval_minimaxm3_conc4096_b300-nv_01/x.json', 0.9)]);
    expect(dedupe(root)).toEqual([]);
    expect(evalErrors(root).some((e) => e.includes('duplicate'))).toBe(true);
  });

  it('is a no-op for clean artifacts', () => {
    const root = tmp();
    const name = 'eval_minimaxm3_conc4096_b300-nv_01';
    ddWriteLegacyRaw(root, name, 4096, '2026-06-27T04-28-31.838775');
    const path = ddWriteAggregate(root, [ddAggRow(4096, `eval_results/${name}/results_2026-06-27T04-28-31.838775.json`, 0.95)]);
    const before = readFileSync(path, 'utf8');
    expect(dedupe(root)).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(existsSync(join(root, name))).toBe(true);
    expect(evalErrors(root)).toEqual([]);
  });

  it('prunes a superseded batched conc', () => {
    const root = tmp();
    const older = join(root, 'eval_minimaxm3_batch_b300-nv_05');
    const newer = join(root, 'eval_minimaxm3_batch_b300-nv_09');
    for (const [dir, concs, stamp] of [
      [older, [16, 32], '2026-06-26T10-00-00.000000'],
      [newer, [32, 64], '2026-06-26T20-00-00.000000'],
    ] as const) {
      mkdirSync(dir);
      write(join(dir, 'meta_env.json'), { ...ddMeta(0), eval_concs: concs, completed_eval_concs: [...concs] });
      for (const conc of concs) writeFileSync(join(dir, `results_${stamp}_conc${conc}.json`), '{}');
    }
    const o = 'eval_minimaxm3_batch_b300-nv_05';
    const n = 'eval_minimaxm3_batch_b300-nv_09';
    ddWriteAggregate(root, [
      ddAggRow(16, `eval_results/${o}/results_2026-06-26T10-00-00.000000_conc16.json`, 0.5),
      ddAggRow(32, `eval_results/${o}/results_2026-06-26T10-00-00.000000_conc32.json`, 0.4),
      ddAggRow(32, `eval_results/${n}/results_2026-06-26T20-00-00.000000_conc32.json`, 0.9),
      ddAggRow(64, `eval_results/${n}/results_2026-06-26T20-00-00.000000_conc64.json`, 0.7),
    ]);
    const log = dedupe(root);
    expect(evalErrors(root)).toEqual([]);
    expect((JSON.parse(readFileSync(join(older, 'meta_env.json'), 'utf8')) as Row).completed_eval_concs).toEqual([16]);
    expect(existsSync(join(older, 'results_2026-06-26T10-00-00.000000_conc32.json'))).toBe(false);
    expect(existsSync(join(older, 'results_2026-06-26T10-00-00.000000_conc16.json'))).toBe(true);
    const rows = JSON.parse(readFileSync(join(root, 'eval_results_all', 'agg_eval_all.json'), 'utf8')) as Row[];
    expect(rows.filter((r) => r.conc === 32).map((r) => r.em_strict)).toEqual([0.9]);
    expect(log).toEqual([
      'agg_eval_all.json: kept 3 of 4 eval row(s)',
      "pruned superseded conc(s) 32 from batched raw eval dir 'eval_minimaxm3_batch_b300-nv_05'",
    ]);
  });
});
