import { describe, expect, it } from 'vitest';
import { globCovers, globMatches, matchCovers, recipeRoutePath, routeRecipe } from '../../src/clusters/index.js';
import type { RouteMatch, RoutingRule } from '../../src/clusters/index.js';

const rule = (match: RouteMatch, commit = 'a'.repeat(40)): RoutingRule => ({
  match,
  toolchain: { repo: 'https://github.com/NVIDIA/srt-slurm.git', commit },
  flags: [],
});

const row = {
  framework: 'dynamo-sglang',
  modelPrefix: 'dsr1',
  precision: 'fp8',
  scenario: 'fixed-seq-len',
  specDecoding: 'none',
  recipe: 'recipes/sglang/dsr1/8k1k/disagg.yaml',
};

describe('routeRecipe', () => {
  it('first match wins', () => {
    const routing = [
      rule({ framework: 'dynamo-trt' }),
      rule({ framework: 'dynamo-sglang', recipe: 'sglang/dsr1/**' }, 'b'.repeat(40)),
      rule({ framework: 'dynamo-sglang' }, 'c'.repeat(40)),
    ];
    const route = routeRecipe({ routing }, row);
    expect(route?.index).toBe(1);
    expect(route?.rule.toolchain.commit).toBe('b'.repeat(40));
    expect(routeRecipe({ routing }, { ...row, recipe: 'recipes/sglang/dsv4/x.yaml' })?.index).toBe(2);
  });

  it('every given field must match; absent fields match anything; {} matches everything', () => {
    expect(routeRecipe({ routing: [rule({ modelPrefix: 'dsr1', precision: 'fp4' })] }, row)).toBeUndefined();
    expect(routeRecipe({ routing: [rule({ modelPrefix: 'dsr1', precision: 'fp8' })] }, row)?.index).toBe(0);
    expect(routeRecipe({ routing: [rule({})] }, row)?.index).toBe(0);
  });

  it('scenario and spec-decoding match as InferenceX launchers test IS_AGENTIC and SPEC_DECODING', () => {
    const routing = [
      rule({ scenario: 'agentic-coding' }),
      rule({ specDecoding: 'mtp' }, 'b'.repeat(40)),
      rule({}, 'c'.repeat(40)),
    ];
    expect(routeRecipe({ routing }, { ...row, scenario: 'agentic-coding' })?.index).toBe(0);
    expect(routeRecipe({ routing }, { ...row, specDecoding: 'mtp' })?.index).toBe(1);
    expect(routeRecipe({ routing }, row)?.index).toBe(2);
    expect(matchCovers({ scenario: 'agentic-coding' }, { scenario: 'agentic-coding', framework: 'x' })).toBe(true);
    expect(matchCovers({ scenario: 'agentic-coding' }, { framework: 'x' })).toBe(false);
  });

  it('no rule, or none matching: undefined', () => {
    expect(routeRecipe({ routing: [] }, row)).toBeUndefined();
    expect(routeRecipe({ routing: [rule({ recipe: 'trtllm/**' })] }, row)).toBeUndefined();
  });

  it('recipes are matched without recipes/ and without a :selector', () => {
    expect(recipeRoutePath('recipes/sglang/dsr1/x.yaml:override_tp8')).toBe('sglang/dsr1/x.yaml');
    expect(recipeRoutePath('recipes/trtllm/a/b.yaml:zip_override_dep[0]')).toBe('trtllm/a/b.yaml');
    expect(recipeRoutePath('benchmarks/multi_node/srt-slurm-recipes/vllm/x.yaml')).toBe('vllm/x.yaml');
    expect(recipeRoutePath('sglang/dsr1/x.yaml')).toBe('sglang/dsr1/x.yaml');
    const routing = [rule({ recipe: 'sglang/dsr1/8k1k/*.yaml' })];
    expect(routeRecipe({ routing }, { ...row, recipe: 'recipes/sglang/dsr1/8k1k/disagg.yaml:override_a' })?.index).toBe(0);
  });
});

describe('recipe globs', () => {
  it.each([
    ['sglang/dsr1/**', 'sglang/dsr1/8k1k/x.yaml', true],
    ['sglang/dsr1/**', 'sglang/dsr1/x.yaml', true],
    ['sglang/dsr1/**', 'sglang/dsr1-fp4/x.yaml', false],
    ['sglang/*/8k1k/*.yaml', 'sglang/dsr1/8k1k/x.yaml', true],
    ['sglang/*/8k1k/*.yaml', 'sglang/dsr1/8k1k/mtp/x.yaml', false],
    ['**/mtp/*.yaml', 'trtllm/b200/8k1k/mtp/x.yaml', true],
    ['**/mtp/*.yaml', 'mtp/x.yaml', true],
    ['sglang/**/disagg-?p1d.yaml', 'sglang/a/b/disagg-2p1d.yaml', true],
    ['sglang/**/disagg-?p1d.yaml', 'sglang/disagg-2p1d.yaml', true],
    ['sglang/**/disagg-?p1d.yaml', 'sglang/disagg-12p1d.yaml', false],
    ['*.yaml', 'a/b.yaml', false],
    ['**', 'anything/at/all.yaml', true],
    ['a.b', 'axb', false],
  ])('%s matches %s: %s', (glob, path, expected) => {
    expect(globMatches(glob, path)).toBe(expected);
  });

  it.each([
    ['**', 'sglang/dsr1/**', true],
    ['sglang/**', 'sglang/dsr1/**', true],
    ['sglang/**', 'sglang/*/8k1k/*.yaml', true],
    ['sglang/*/**', 'sglang/dsr1/8k1k/*.yaml', true],
    ['sglang/dsr1/**', 'sglang/dsr1/**', true],
    ['**/*.yaml', 'sglang/dsr1/x.yaml', true],
    ['**/*.yaml', 'sglang/**/x.yaml', true],
    ['sglang/*/x.yaml', 'sglang/d?r1/x.yaml', true],
    ['sglang/*.yaml', 'sglang/**', false],
    ['sglang/*/**', 'sglang/**', false],
    ['sglang/dsr1/**', 'sglang/**', false],
    ['sglang/dsr1/**', 'sglang/dsv4/**', false],
    ['**/mtp/*.yaml', '**/*.yaml', false],
    ['sglang/**/x.yaml', 'sglang/*.yaml', false],
    ['a/**/b', 'a/*b', false],
  ])('%s covers %s: %s', (outer, inner, expected) => {
    expect(globCovers(outer, inner)).toBe(expected);
  });

  it('a covering glob agrees with matching on sample paths', () => {
    const paths = [
      'sglang/dsr1/x.yaml',
      'sglang/dsr1/8k1k/x.yaml',
      'sglang/x.yaml',
      'trtllm/mtp/y.yaml',
      'sglang/dsv4/mtp/z.yaml',
    ];
    const globs = [
      '**',
      'sglang/**',
      'sglang/*/**',
      'sglang/dsr1/**',
      '**/mtp/*.yaml',
      'sglang/*.yaml',
      '**/*.yaml',
      'sglang/**/x.yaml',
    ];
    for (const outer of globs)
      for (const inner of globs) {
        if (!globCovers(outer, inner)) continue;
        for (const path of paths)
          if (globMatches(inner, path)) expect(globMatches(outer, path), `${outer} ⊇ ${inner} at ${path}`).toBe(true);
      }
  });
});

describe('matchCovers', () => {
  it('an earlier match covers a later one when each of its fields is absent, equal or a covering glob', () => {
    expect(matchCovers({}, { framework: 'x' })).toBe(true);
    expect(matchCovers({ framework: 'x' }, { framework: 'x', precision: 'fp8' })).toBe(true);
    expect(matchCovers({ framework: 'x', precision: 'fp8' }, { framework: 'x' })).toBe(false);
    expect(matchCovers({ framework: 'x' }, { framework: 'y' })).toBe(false);
    expect(matchCovers({ recipe: 'sglang/**' }, { framework: 'x', recipe: 'sglang/dsr1/**' })).toBe(true);
    expect(matchCovers({ recipe: 'sglang/dsr1/**' }, { recipe: 'sglang/**' })).toBe(false);
    expect(matchCovers({ recipe: 'sglang/**' }, { framework: 'x' })).toBe(false);
  });
});
