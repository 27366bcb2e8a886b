import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ValidateReport } from '../../src/cli/validate.js';
import { INFERENCEX, REPO, runCli, tempFiles } from '../helpers.js';

const entry = (key: string, searchSpace: string): string => `${key}:
  image: i
  model: m
  model-prefix: p
  precision: fp8
  framework: vllm
  runner: h100
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - ${searchSpace}
`;
const BROKEN = entry('good-key', '{ tp: 8, conc-list: [1, 2] }') + entry('bad-key', '{ tp: "8", conc-start: 64, conc-end: 8 }');

describe('frontier validate', () => {
  it('validates an InferenceX checkout by default (-C): exit 0, warnings shown', () => {
    const result = runCli(['-C', INFERENCEX, 'validate']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('configs/nvidia-master.yaml');
    expect(result.stdout).toMatch(/✓ valid \(3 files: 208 config keys, \d+ runner labels\), \d+ warnings\n$/);
    expect(result.stdout).toContain('warning: runner label "gb300-nv" is not defined in runners.yaml');
  });

  it('validates the example catalog', () => {
    const result = runCli(['-C', 'examples', 'validate']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('✓ valid (2 files: 5 config keys, 5 runner labels)\n');
  });

  it('exits 1 and lists every problem with file:line:col, key and field', () => {
    const dir = tempFiles({ 'configs/x-master.yaml': BROKEN });
    const result = runCli(['validate', 'configs/x-master.yaml'], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(
      'configs/x-master.yaml:28:15  bad-key › scenarios.fixed-seq-len[0].search-space[0].tp  expected a positive integer, got "8"\n' +
        '    hint: remove the quotes: a quoted number is a string\n' +
        '\n' +
        '✗ 1 error (1 file: 2 config keys, 0 runner labels)\n',
    );
  });

  it('reports cross-field rules once the schema passes, as JSON with --format json', () => {
    const dir = tempFiles({ 'configs/x-master.yaml': BROKEN.replace('tp: "8"', 'tp: 8') });
    const result = runCli(['validate', '--format', 'json', 'configs/x-master.yaml'], { cwd: dir });
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as ValidateReport;
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      {
        severity: 'error',
        rule: 'conc-fields',
        file: 'configs/x-master.yaml',
        line: 28,
        col: 30,
        key: 'bad-key',
        path: 'scenarios.fixed-seq-len[0].search-space[0].conc-start',
        message: 'conc-start (64) must be <= conc-end (8)',
        hint: 'swap the two values',
      },
    ]);
  });

  it('says what to do when there is nothing to validate', () => {
    const result = runCli(['validate'], { cwd: tempFiles({}) });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no files to validate');
  });
});

describe('frontier schema', () => {
  it('prints the JSON Schema of each kind', () => {
    const master = runCli(['schema', 'master-config']);
    expect(master.status).toBe(0);
    expect(JSON.parse(master.stdout)).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });
    const runners = runCli(['schema', 'runners']);
    expect(JSON.parse(runners.stdout)).toMatchObject({ required: ['labels'] });
  });

  it('prints the API’s OpenAPI document (what docs/openapi.json holds)', () => {
    const result = runCli(['schema', 'openapi']);
    expect(result.status).toBe(0);
    const doc = JSON.parse(result.stdout) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/pareto', '/api/v1/ingest']));
  });

  it('rejects an unknown kind', () => {
    const result = runCli(['schema', 'recipes']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      "'recipes' is invalid for argument 'kind'. Allowed choices are master-config, runners, openapi.",
    );
  });
});

describe('frontier matrix', () => {
  it('prints a summary of the example catalog', () => {
    const result = runCli([
      '-C',
      'examples',
      'matrix',
      'full-sweep',
      '--config-files',
      'examples/configs/example-master.yaml',
      '--summary',
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('30 rows, 34 benchmark points, 0 eval rows');
    expect(result.stdout).toMatch(
      /dynamo-sglang\s+h200-multinode\s+1024\/64\s+2\s+6\s+4–128\s+0\s+1P1D TP8\/TP8, 2P1D TP8\/DEP8/,
    );
  });

  it('prints rows for a test-config glob', () => {
    const result = runCli([
      '-C',
      'examples',
      'matrix',
      'test-config',
      '--config-files',
      'examples/configs/example-master.yaml',
      '--config-keys',
      'dsr1-*-dynamo-*',
      '--no-evals',
    ]);
    expect(result.status).toBe(0);
    const rows = JSON.parse(result.stdout) as { conc: number[]; prefill: { 'num-worker': number } }[];
    expect(rows.map((r) => [r.prefill['num-worker'], r.conc])).toEqual([
      [1, [4, 8, 16, 32]],
      [2, [64, 128]],
    ]);
  });

  it('reports catalog problems with their location before generating anything', () => {
    const dir = tempFiles({ 'configs/x-master.yaml': BROKEN, 'configs/runners.yaml': 'labels:\n  h100: [h100_0]\n' });
    const result = runCli(['matrix', 'full-sweep', '--config-files', 'configs/x-master.yaml'], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('configs/x-master.yaml:28:15  bad-key › scenarios.fixed-seq-len[0].search-space[0].tp');
  });

  it('shows help for the reference flags', () => {
    const result = runCli(['matrix', 'full-sweep', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--runner-node-filter RUNNER_NODE_FILTER');
    expect(result.stdout).toContain('--summary');
  });
});

describe('frontier', () => {
  it('starts from the code caches the build wrote, loading only what the command runs', () => {
    const loaded = (args: string[]): string[] => {
      const result = runCli(args, { env: { FRONTIER_CODE_CACHE: 'report' } });
      expect(result.status).toBe(0);
      const lines = result.stderr.trimEnd().split('\n');
      for (const line of lines) expect(line).toMatch(/^code cache: accepted \([\w-]+\.cjs\)$/);
      return lines.map((line) => /\(([\w-]+?)(-[A-Z0-9]+)?\.cjs\)$/.exec(line)![1]!);
    };
    // The command files are named after their modules (src/cli/run.ts: run-<hash>.cjs); shared code is chunk-<hash>.cjs.
    const commands = ['matrix', 'run', 'review', 'ci', 'eval', 'sim', 'store', 'changelog', 'bench'];
    const version = loaded(['--version']);
    expect(version[0]).toBe('main');
    expect(version.filter((name) => commands.includes(name))).toEqual([]);
    expect(loaded(['matrix', 'full-sweep', '--help']).filter((name) => commands.includes(name))).toEqual(['matrix']);
    // The root's help lists every command, so it builds each tree.
    expect(loaded(['--help'])).toEqual(expect.arrayContaining(['run', 'review', 'ci', 'eval', 'sim', 'store', 'changelog']));
  });

  it('reads a valid catalog without loading zod or constructing the schemas; an invalid one loads them to explain', () => {
    // Which sources each file the command loaded was built from (their source maps).
    const sources = (args: string[]): string[] => {
      const result = runCli(args, { env: { FRONTIER_CODE_CACHE: 'report' } });
      const files = [...result.stderr.matchAll(/^code cache: \w+ \(([\w-]+\.cjs)\)$/gm)].map((m) => m[1]!);
      expect(files.length).toBeGreaterThan(3);
      return files.flatMap(
        (file) => (JSON.parse(readFileSync(join(REPO, 'dist/lib', `${file}.map`), 'utf8')) as { sources: string[] }).sources,
      );
    };
    const zodBound = (list: string[]): string[] => list.filter((s) => /node_modules\/zod\/|src\/catalog\/schema\.ts$/.test(s));
    const sweep = ['-C', INFERENCEX, 'matrix', 'full-sweep', '--config-files', 'configs/nvidia-master.yaml', '--max-conc', '4'];
    expect(zodBound(sources(sweep))).toEqual([]);
    const dir = tempFiles({ 'bad-master.yaml': 'k:\n  image: i\n  model: m\n' });
    expect(zodBound(sources(['validate', join(dir, 'bad-master.yaml')]))).not.toEqual([]);
  });

  it('has a version and lists its commands', () => {
    expect(runCli(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = runCli(['--help']).stdout;
    for (const command of ['validate', 'schema', 'matrix']) expect(help).toContain(command);
  });
});
