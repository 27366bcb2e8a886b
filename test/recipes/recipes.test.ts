import { describe, expect, it } from 'vitest';
import { RECIPE_KEYS, deepMerge, fileVariants, loadRecipe, planRecipe, selectVariant } from '../../src/recipes/index.js';
import { yamlCorpus } from '../helpers.js';

const recipes = Object.entries(yamlCorpus()).filter(([path]) => path.startsWith('srt-slurm-recipes/') && /\.ya?ml$/.test(path));

describe('the srt-slurm recipe schema', () => {
  it('parses every fixture recipe; the only problems are 8 real duplicate keys', async () => {
    expect(recipes.length).toBeGreaterThanOrEqual(469);
    const problems: string[] = [];
    let variants = 0;
    for (const [path, text] of recipes) {
      const file = await loadRecipe(path, text);
      variants += file.variants.length;
      expect(file.variants.length, path).toBeGreaterThan(0);
      for (const p of file.problems) problems.push(`${path}:${p.line} ${p.message}`);
    }
    expect(variants).toBeGreaterThan(recipes.length); // override files define several
    expect(problems).toHaveLength(8);
    for (const p of problems)
      expect(p).toMatch(/duplicate key "(moe-runner-backend|compilation-config|VLLM_MINIMAX_M3_MSA_DECODE_BACKEND)"/);
  });

  it('plans every fixture recipe variant without a finding', async () => {
    const findings: string[] = [];
    for (const [path, text] of recipes) {
      for (const variant of (await loadRecipe(path, text)).variants) {
        for (const f of planRecipe(variant.recipe).findings) findings.push(`${path}:${variant.selector ?? ''} ${f.rule}`);
      }
    }
    expect(findings).toEqual([]);
  });

  it('reports an unknown top-level key with its line and the likely intended key', async () => {
    const file = await loadRecipe(
      'r.yaml',
      'name: r\nmodel:\n  path: m\n  container: c\n  precision: fp8\nresources:\n  gpu_type: h200\nhealthcheck:\n  max_attempts: 10\n',
    );
    expect(file.problems).toHaveLength(1);
    expect(file.problems[0]).toMatchObject({ file: 'r.yaml', line: 8, rule: 'recipe/schema' });
    expect(file.problems[0]!.message).toContain('healthcheck');
    expect(file.problems[0]!.hint).toContain('health_check');
    expect(RECIPE_KEYS).toContain('health_check');
  });

  it('reports a mistyped field inside a section, and keeps engine flag maps free-form', async () => {
    const text = [
      'name: r',
      'model: { path: m, container: c, precision: fp8 }',
      'resources:',
      '  gpu_type: h200',
      '  prefill_nodes: two',
      'backend:',
      '  type: sglang',
      '  sglang_config:',
      '    prefill:',
      '      any-new-engine-flag: 3',
      '',
    ].join('\n');
    const file = await loadRecipe('r.yaml', text);
    expect(file.problems.map((p) => [p.line, p.path])).toEqual([[5, 'resources.prefill_nodes']]);
  });

  it('reports a duplicate key and keeps the last value, as PyYAML does', async () => {
    const file = await loadRecipe(
      'r.yaml',
      'name: r\nmodel: { path: m, container: c, precision: fp8 }\nresources:\n  gpu_type: h200\n  gpus_per_node: 4\n  gpus_per_node: 8\n',
    );
    expect(file.problems.map((p) => p.line)).toEqual([6]);
    expect(file.variants[0]!.recipe.resources).toMatchObject({ gpus_per_node: 8 });
  });
});

describe('override files (srtctl deep_merge and zip_override)', () => {
  const file = {
    base: {
      name: 'b',
      resources: { gpus_per_node: 8, decode_workers: 1 },
      benchmark: { concurrencies: [1, 2] },
      slurm: { time_limit: '4:00:00' },
    },
    override_big: { resources: { decode_workers: 4 }, slurm: null },
    zip_override_sweep: { resources: { decode_workers: [1, 2, 3] }, benchmark: { concurrencies: [[8]] } },
  };

  it('deep-merges dicts, replaces lists and scalars, and deletes on null', () => {
    expect(deepMerge({ a: { x: 1, y: [1, 2] }, b: 1 }, { a: { y: [3] }, b: null })).toEqual({ a: { x: 1, y: [3] } });
  });

  it('expands overrides and zip groups (length-1 lists broadcast) with srtctl names', () => {
    const variants = fileVariants(file);
    expect(variants.map((v) => [v.selector, v.recipe.name])).toEqual([
      ['override_big', 'b_big'],
      ['zip_override_sweep[0]', 'b_sweep_0'],
      ['zip_override_sweep[1]', 'b_sweep_1'],
      ['zip_override_sweep[2]', 'b_sweep_2'],
    ]);
    expect(variants[0]!.recipe).not.toHaveProperty('slurm');
    expect(variants[0]!.recipe.resources).toEqual({ gpus_per_node: 8, decode_workers: 4 });
    expect(variants[2]!.recipe.resources).toEqual({ gpus_per_node: 8, decode_workers: 2 });
    expect(variants[2]!.recipe.benchmark).toEqual({ concurrencies: [8] });
  });

  it('selects one variant as CONFIG_FILE=file.yaml:<selector> does', () => {
    expect(selectVariant(file, 'zip_override_sweep[2]').recipe.resources).toMatchObject({ decode_workers: 3 });
    expect(selectVariant(file, 'override_big').suffix).toBe('big');
    expect(selectVariant(file, 'base').recipe.name).toBe('b');
    expect(() => selectVariant(file, 'zip_override_sweep[3]')).toThrow(/out of range.*has 3 variants/);
    expect(() => selectVariant(file, 'override_small')).toThrow(/available: override_big, zip_override_sweep\[N\]/);
    expect(() => selectVariant(file, undefined)).toThrow(/needs a selector/);
  });

  it('refuses zip lists of different lengths with srtctl message', () => {
    expect(() => fileVariants({ base: { name: 'b' }, zip_override_g: { a: [1, 2], b: [1, 2, 3] } })).toThrow(
      /incompatible zip lengths \[2, 3\]/,
    );
    expect(() => fileVariants({ base: { name: 'b' }, zip_override_g: { a: 1 } })).toThrow(/no list values/);
  });
});
