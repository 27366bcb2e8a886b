import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EvalInputError, checkEvalDir, parseThresholds, referenceThresholds, resolveThreshold } from '../../src/evals/index.js';
import type { CheckOptions } from '../../src/evals/index.js';
import { INFERENCEX, readFixture, tempFiles } from '../helpers.js';
import { EVALS, materialize } from './golden.js';

// golden/evals/validate_scores: the reference validate_scores.py run in each input/ (README (b)).
interface Expected {
  command: string;
  exit_code: number;
  stdout: string;
  stderr: string;
  'combined_2>&1': string;
}

const SCENARIOS = readdirSync(join(INFERENCEX, EVALS, 'validate_scores')).filter((name) => /^\d\d_/.test(name));
const IX_THRESHOLDS = '<IX>/utils/evals/thresholds.yaml';

const combined = (r: { lines: { text: string }[] }): string => r.lines.map((l) => `${l.text}\n`).join('');

describe('validate_scores.py goldens', () => {
  it('has the seven scenarios', () => expect(SCENARIOS).toHaveLength(7));

  for (const name of SCENARIOS) {
    it(name, () => {
      const expected = JSON.parse(readFixture(`${EVALS}/validate_scores/${name}/expected.json`)) as Expected;
      const concs = /--expected-concs '([^']*)'/.exec(expected.command)?.[1];
      const options: CheckOptions = { thresholdsLabel: IX_THRESHOLDS, env: {} };
      if (concs !== undefined) options.expectedConcs = concs;
      const result = checkEvalDir(materialize(`${EVALS}/validate_scores/${name}/input`), options);
      expect(result.stdout).toBe(expected.stdout);
      expect(result.stderr).toBe(expected.stderr);
      expect(combined(result)).toBe(expected['combined_2>&1']);
      expect(result.exitCode).toBe(expected.exit_code);
    });
  }
});

/** A single-node eval directory: meta_env.json (unless null) and one results file per entry. */
function evalDir(meta: Record<string, unknown> | null, results: Record<string, Record<string, Record<string, unknown>>>): string {
  const files: Record<string, string> = {};
  if (meta !== null) files['meta_env.json'] = JSON.stringify(meta);
  for (const [file, res] of Object.entries(results)) files[file] = JSON.stringify({ results: res, lm_eval_version: '0.4.9.2' });
  return tempFiles(files);
}
const gsm8k = (strict: number, flex: number): Record<string, Record<string, unknown>> => ({
  gsm8k: {
    alias: 'gsm8k',
    'exact_match,strict-match': strict,
    'exact_match_stderr,strict-match': 0.005,
    'exact_match,flexible-extract': flex,
    'exact_match_stderr,flexible-extract': 0.005,
  },
});

describe('validate_scores.py behaviours beyond the goldens', () => {
  it('the model prefix: --model-prefix, else meta_env.json, else $MODEL_PREFIX', () => {
    const dir = evalDir({ infmax_model_prefix: 'qwen3.5' }, { 'results_a.json': gsm8k(0.93, 0.93) });
    const fromMeta = checkEvalDir(dir, { env: { MODEL_PREFIX: 'dsr1' } });
    expect(fromMeta.stdout).toContain('Model prefix: qwen3.5 (per-model thresholds apply)');
    expect(fromMeta.stderr).toContain('(< 0.94 from models.qwen3.5)');
    expect(fromMeta.exitCode).toBe(1);
    const override = checkEvalDir(dir, { modelPrefix: 'dsr1', env: {} });
    expect(override.stdout).toContain('PASS: gsm8k exact_match,strict-match = 0.9300 (>= 0.91 from models.dsr1)');
    expect(override.exitCode).toBe(0);

    const unknown = evalDir({ infmax_model_prefix: 'unknown' }, { 'results_a.json': gsm8k(0.93, 0.93) });
    expect(checkEvalDir(unknown, { env: { MODEL_PREFIX: 'glm5' } }).stderr).toContain('(< 0.94 from models.glm5)');
    const none = checkEvalDir(unknown, { env: {} });
    expect(none.stdout).toContain('Model prefix: <unknown> (using global default thresholds)');
    expect(none.stdout).toContain('(>= 0.9 from default)');
  });

  it('tasks without a threshold use --min-score (0.85 unless given), printed as a Python float', () => {
    const dir = evalDir({ infmax_model_prefix: 'dsr1' }, { 'results_a.json': { mytask: { 'exact_match,none': 0.86 } } });
    expect(checkEvalDir(dir, { env: {} }).stdout).toContain('PASS: mytask exact_match,none = 0.8600 (>= 0.85 from min-score)');
    const strict = checkEvalDir(dir, { env: {}, minScore: 1 });
    expect(strict.stderr).toBe('FAIL: mytask exact_match,none = 0.8600 (< 1.0 from min-score)\n');
    expect(strict.exitCode).toBe(1);
  });

  it('a thresholds file: per-model entries, an int threshold printed as an int, the legacy flat form', () => {
    const dir = evalDir({ infmax_model_prefix: 'm1' }, { 'results_a.json': gsm8k(0.95, 1) });
    const cwd = tempFiles({
      'custom.yaml': 'default:\n  gsm8k: 0.5\nmodels:\n  m1:\n    gsm8k: 1\n',
      'flat.yaml': 'gsm8k: 0.950\n',
    });
    const custom = checkEvalDir(dir, { cwd, thresholdsFile: 'custom.yaml', env: {} });
    expect(custom.lines.map((l) => l.text)).toEqual([
      'Loaded thresholds from custom.yaml',
      'Model prefix: m1 (per-model thresholds apply)',
      'FAIL: gsm8k exact_match,strict-match = 0.9500 (< 1 from models.m1)',
      'PASS: gsm8k exact_match,flexible-extract = 1.0000 (>= 1 from models.m1)',
    ]);
    const flat = checkEvalDir(dir, { cwd, thresholdsFile: 'flat.yaml', env: {} });
    expect(flat.stdout).toContain('Model prefix: m1 (no per-model override; using global default)');
    expect(flat.stdout).toContain('PASS: gsm8k exact_match,strict-match = 0.9500 (>= 0.95 from default)');
    expect(flat.exitCode).toBe(0);
  });

  it('a thresholds file it cannot use is an error naming the file', () => {
    const dir = evalDir({}, { 'results_a.json': gsm8k(0.95, 0.95) });
    const cwd = tempFiles({ 'bad.yaml': 'default:\n  gsm8k: high\n', 'pct.yaml': 'default: {gsm8k: 90}\n' });
    expect(() => checkEvalDir(dir, { cwd, thresholdsFile: 'missing.yaml' })).toThrow(
      /missing\.yaml: cannot read the thresholds file/,
    );
    expect(() => checkEvalDir(dir, { cwd, thresholdsFile: 'bad.yaml' })).toThrow(EvalInputError);
    expect(() => checkEvalDir(dir, { cwd, thresholdsFile: 'pct.yaml' })).toThrow(
      /default\.gsm8k is 90: a threshold is a number from 0 to 1/,
    );
  });

  it('stderr metrics and non-numbers are skipped; none checked is a failure', () => {
    const dir = evalDir({}, { 'results_a.json': { gsm8k: { 'exact_match,strict-match': 'N/A', 'exact_match_stderr,x': 0.1 } } });
    const r = checkEvalDir(dir, { env: {} });
    expect(r.stderr).toBe("WARN: no metrics matched prefix 'exact_match,'\n");
    expect(r.exitCode).toBe(1);
  });

  it('no meta_env.json: a warning about the batch status, scores still checked', () => {
    const r = checkEvalDir(evalDir(null, { 'results_x.json': gsm8k(0.95, 0.95) }), { env: {} });
    expect(r.stderr).toBe(
      "WARN: could not inspect eval metadata for batched concurrency status: [Errno 2] No such file or directory: 'meta_env.json'\n",
    );
    expect(r.exitCode).toBe(0);
  });

  it('--expected-concs must be unique positive integers', () => {
    const dir = evalDir({ conc: 16 }, { 'results_a.json': gsm8k(0.95, 0.95) });
    for (const bad of ['', '16 x', '16 16', '0', '-4']) {
      const r = checkEvalDir(dir, { expectedConcs: bad, env: {} });
      expect(r.lines).toEqual([{ stream: 'stderr', text: 'FAIL: expected concurrencies must be unique positive integers' }]);
      expect(r.exitCode).toBe(1);
    }
  });

  it('--expected-concs on a non-batched run: the conc must match and there must be one result file', () => {
    const dir = evalDir({ conc: 16 }, { 'results_a.json': gsm8k(0.95, 0.95) });
    expect(checkEvalDir(dir, { expectedConcs: '16', env: {} }).exitCode).toBe(0);
    const wrong = checkEvalDir(dir, { expectedConcs: '32', env: {} });
    expect(wrong.stderr).toBe('FAIL: eval metadata concurrency does not match workflow request\n');
    const many = checkEvalDir(dir, { expectedConcs: '16 32', env: {} });
    expect(many.stderr).toBe('FAIL: workflow requested multiple concurrencies but batched eval metadata is missing\n');
  });

  it('batched manifests: duplicates, unexpected and unsuffixed result files', () => {
    const meta = { eval_concs: [4, 8], completed_eval_concs: [4, 8, 8], failed_eval_concs: [] };
    const dir = evalDir(meta, {
      'results_a_conc4.json': gsm8k(0.95, 0.95),
      'results_b_conc4_1.json': gsm8k(0.95, 0.95),
      'results_c_conc12.json': gsm8k(0.95, 0.95),
      'results_plain.json': gsm8k(0.95, 0.95),
    });
    const r = checkEvalDir(dir, { expectedConcs: [4, 8], env: {} });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('FAIL'))).toEqual([
      'FAIL: batched eval metadata contains duplicate completed concurrencies',
      'FAIL: batched eval result lacks a concurrency suffix: results_plain.json',
      'FAIL: batched eval has duplicate result files for concurrency: 4',
      'FAIL: batched eval is missing result files for concurrency: 8',
      'FAIL: batched eval has unexpected result files for concurrency: 12',
    ]);
    expect(r.stdout).toContain('PASS: [conc=12] gsm8k');
    expect(r.stdout).toContain('PASS: [conc=4] gsm8k'); // results_b_conc4_1.json
    expect(r.exitCode).toBe(1);
  });

  it('a results file that is not JSON is an error naming it', () => {
    const dir = tempFiles({ 'meta_env.json': '{}', 'results_a.json': '{"results": ' });
    expect(() => checkEvalDir(dir, { env: {} })).toThrow(
      /results_a\.json: not valid JSON: Expecting value: line 1 column 13 \(char 12\)/,
    );
    writeFileSync(join(dir, 'results_a.json'), '[]');
    expect(() => checkEvalDir(dir, { env: {} })).toThrow(EvalInputError);
  });

  it('a directory that does not exist is an error', () => {
    expect(() => checkEvalDir('/nonexistent/eval/dir')).toThrow(/no such directory/);
  });
});

describe('thresholds', () => {
  it('resolve most-specific first', () => {
    const config = referenceThresholds();
    const fallback = { value: 0.85, text: '0.85' };
    expect(resolveThreshold(config, 'glm5.1', 'gsm8k', fallback)).toEqual({
      threshold: { value: 0.93, text: '0.93' },
      source: 'models.glm5.1',
    });
    expect(resolveThreshold(config, 'glm5.1', 'swebench_lite', fallback)).toEqual({
      threshold: { value: 0.5, text: '0.5' },
      source: 'default',
    });
    expect(resolveThreshold(config, undefined, 'gsm8k', fallback).source).toBe('default');
    expect(resolveThreshold(config, 'dsr1', 'other', fallback)).toEqual({ threshold: fallback, source: 'min-score' });
  });

  it('are read as PyYAML reads them (YAML 1.1 types; keys that are not strings never match)', () => {
    const config = parseThresholds('default:\n  gsm8k: !!float 1\n  a: 1_0.0e-2\n  yes: 0.5\n  "b": 0.25\n', 't.yaml');
    expect([...config.default.entries()]).toEqual([
      ['gsm8k', { value: 1, text: '1.0' }],
      ['a', { value: 0.1, text: '0.1' }],
      ['b', { value: 0.25, text: '0.25' }],
    ]);
    // YAML 1.1 floats need a dot: PyYAML reads 1e-1 as the string '1e-1'.
    expect(() => parseThresholds('default:\n  gsm8k: 1e-1\n', 't.yaml')).toThrow(/default\.gsm8k is the string "1e-1"/);
  });
});
