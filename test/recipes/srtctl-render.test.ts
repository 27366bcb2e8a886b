import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RenderError, loadRecipe, renderRecipe, yamlFloats } from '../../src/recipes/index.js';
import type { RenderedRecipe } from '../../src/recipes/index.js';
import { formatMap } from '../../src/recipes/render/python.js';
import { BUNDLED_INFERENCEX, yamlCorpus } from '../helpers.js';

/** Goldens: srtctl's own rendering of every recipe variant (scripts/srtctl-golden.py). */
type Golden = RenderedRecipe | { error: string };
const golden = JSON.parse(
  gunzipSync(readFileSync(join(BUNDLED_INFERENCEX, 'golden/srtctl/render.json.gz'))).toString('utf8'),
) as Record<string, Record<string, Golden>>;

const recipes = Object.entries(yamlCorpus()).filter(([path]) => path.startsWith('srt-slurm-recipes/') && /\.ya?ml$/.test(path));

describe('rendering recipes into processes, as srtctl does', () => {
  it('has a golden for every fixture recipe and variant', async () => {
    expect(recipes.length).toBeGreaterThanOrEqual(469);
    expect(Object.keys(golden).sort()).toEqual(recipes.map(([p]) => p).sort());
    for (const [path, text] of recipes) {
      const file = await loadRecipe(path, text);
      expect(Object.keys(golden[path]!).sort(), path).toEqual(file.variants.map((v) => v.selector ?? '').sort());
    }
  });

  it('renders every role of every variant exactly as srtctl, and rejects what srtctl rejects', async () => {
    const mismatches: string[] = [];
    let rendered = 0;
    let rejected = 0;
    for (const [path, text] of recipes) {
      const file = await loadRecipe(path, text);
      for (const variant of file.variants) {
        const want = golden[path]![variant.selector ?? '']!;
        const where = `${path}${variant.selector ? `:${variant.selector}` : ''}`;
        let got: RenderedRecipe | undefined;
        let error: string | undefined;
        try {
          got = renderRecipe(variant.recipe, { file: path, isFloat: yamlFloats(text, file, variant) });
        } catch (e) {
          if (!(e instanceof RenderError)) throw e;
          error = e.message;
        }
        if ('error' in want) {
          if (error === undefined) mismatches.push(`${where}: srtctl rejects it (${want.error}), Frontier rendered it`);
          else {
            rejected++;
            expect(error.startsWith(`${path}: `), error).toBe(true);
          }
          continue;
        }
        if (error !== undefined) {
          mismatches.push(`${where}: ${error}`);
          continue;
        }
        try {
          expect(got).toEqual(want);
          rendered++;
        } catch {
          mismatches.push(`${where}: ${firstDifference(got!, want)}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(rendered).toBeGreaterThan(450);
    expect(rejected).toBe(18);
  });

  it('names the file and key of an unknown benchmark field srtctl rejects', () => {
    const recipe = {
      name: 'r',
      model: { path: 'm', container: 'c', precision: 'fp8' },
      resources: { gpu_type: 'h200', agg_workers: 1, agg_nodes: 1, gpus_per_node: 8 },
      benchmark: { tokenizer_mode: 'x' },
    };
    expect(() => renderRecipe(recipe, { file: 'r.yaml' })).toThrow('r.yaml: benchmark.tokenizer_mode: Unknown field');
  });
});

describe("Python's templates", () => {
  it('fills {node} and {node_id}, keeps unknown fields and {{ }} as str.format_map does', () => {
    expect(formatMap('{node}-{node_id}-{other}-{{x}}', { node: 'n1', node_id: '3' }, 'k')).toBe('n1-3-{other}-{x}');
    expect(() => formatMap('a}b', {}, 'env.K')).toThrow("env.K: Single '}'");
  });
});

function firstDifference(got: RenderedRecipe, want: RenderedRecipe): string {
  if (got.nodes !== want.nodes) return `nodes ${got.nodes} != ${want.nodes}`;
  if (got.roles.length !== want.roles.length)
    return `roles ${got.roles.map((r) => `${r.role}${r.index}`).join(',')} != ${want.roles.map((r) => `${r.role}${r.index}`).join(',')}`;
  for (const [i, g] of got.roles.entries()) {
    const w = want.roles[i]!;
    const label = `${w.role}[${w.index}]@${w.nodes.join('+')}`;
    for (const k of ['role', 'index', 'nodes', 'gpus'] as const)
      if (JSON.stringify(g[k]) !== JSON.stringify(w[k]))
        return `${label} ${k}: ${JSON.stringify(g[k])} != ${JSON.stringify(w[k])}`;
    const a = g.argv.findIndex((x, j) => x !== w.argv[j]);
    if (a >= 0 || g.argv.length !== w.argv.length)
      return `${label} argv[${a}]: ${JSON.stringify(g.argv.slice(Math.max(a, 0), a + 3))} != ${JSON.stringify(w.argv.slice(Math.max(a, 0), a + 3))}`;
    for (const key of new Set([...Object.keys(g.env), ...Object.keys(w.env)]))
      if (g.env[key] !== w.env[key]) return `${label} env ${key}: ${JSON.stringify(g.env[key])} != ${JSON.stringify(w.env[key])}`;
  }
  return 'differs';
}
