import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadMasterConfigs, loadRunners } from '../../src/catalog/index.js';
import { loadRecipeBook, logsKeyOf, openTree, planRun, recipeOf } from '../../src/plan/index.js';
import type { InferencexTree, RecipeBook } from '../../src/plan/index.js';
import { RunDir, goldenFor, run, localExecutor } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import { generateFullSweep, isAgenticRow, isMultiNodeRow } from '../../src/matrix/index.js';
import type { MatrixRow, MultiNodeRow } from '../../src/matrix/index.js';
import { loadRecipe, renderRecipe, selectVariant, yamlFloats } from '../../src/recipes/index.js';
import { CLI, REPO, inferencexTree, runCliAsync, tempFiles } from '../helpers.js';
import { simCluster, strays, pointStatuses } from './fixtures.js';
import { injectSyntheticAcceptance } from '../../src/specdec/inject.js';
import { optsIntoSyntheticAcceptance, syntheticAcceptanceOf } from '../../src/specdec/synthetic.js';

/**
 * Multi-node rows of an InferenceX checkout run the srt-slurm recipe their CONFIG_FILE names, as
 * srtctl renders it. The checkout is the fixtures' (configs and every recipe, in a temporary tree
 * shaped like InferenceX's), the rows the fixture catalog's full sweep.
 */

let root: string;
let tree: InferencexTree;
let rows: MultiNodeRow[];
let book: RecipeBook;

const REAL = `description: a real Slurm cluster
scheduler: slurm
nodes: 64
gpus-per-node: 4
gpu: gb200
time-limit: 240
health-check: { attempts: 100, interval: 10 }
routing:
  - match: {}
    toolchain: { repo: https://github.com/NVIDIA/srt-slurm.git, commit: c1b6b5c97f323baefad577d70c4e8392b6f537d9 }
`;

beforeAll(async () => {
  root = inferencexTree('checkout');
  // What makes it an InferenceX checkout for `frontier run` (openTree).
  mkdirSync(join(root, 'runners'), { recursive: true });
  writeFileSync(join(root, 'benchmarks/benchmark_lib.sh'), '');
  tree = openTree(root);
  const configs = await loadMasterConfigs([join(root, 'configs/nvidia-master.yaml'), join(root, 'configs/amd-master.yaml')]);
  const runners = await loadRunners(join(root, 'configs/runners.yaml'));
  const all = generateFullSweep(configs.value.entries, runners.value!, {});
  rows = all.filter((r): r is MultiNodeRow => isMultiNodeRow(r) && !isAgenticRow(r));
  book = await loadRecipeBook(tree, rows);
}, 60_000);

interface Launch {
  group: string;
  status: string;
  reasons?: string[];
  recipe?: { configFile: string; processes: { role: string; nodes: number[]; argv: string[]; env: Record<string, string> }[] };
}

describe('multi-node rows of an InferenceX checkout: their srt-slurm recipes', () => {
  it('dry-run: every row renders its recipe exactly as srtctl, or says why it cannot run, without a stack trace', async () => {
    expect(rows.length).toBe(384);
    const dir = tempFiles({ 'clusters/real.yaml': REAL, 'matrix.json': JSON.stringify(rows) });
    const out = join(dir, 'run');
    const args = ['run', '--matrix', join(dir, 'matrix.json'), '--clusters', join(dir, 'clusters'), '--cluster', 'real'];
    const json = await runCliAsync([...args, '--inferencex', root, '--out', out, '--dry-run', '--format', 'json']);
    expect(json.stderr).toBe('');
    expect(json.status).toBe(0);
    const launches = (JSON.parse(json.stdout) as { launches: Launch[] }).launches;
    const groups = planRun(rows, 'real');
    expect(launches.length).toBe(groups.length);
    const reasons: string[] = [];
    let rendered = 0;
    let injected = 0;
    const golden = await goldenFor(tree);
    for (const [i, launch] of launches.entries()) {
      const g = groups[i]!;
      if (launch.status === 'cannot run') {
        expect(launch.reasons?.length, launch.group).toBeGreaterThan(0);
        reasons.push(launch.reasons![0]!);
        continue;
      }
      expect(launch.status).toBe('ready');
      if (!launch.recipe) continue;
      // What srtctl would start, rendered here from the recipe file, placeholders filled in.
      const config = recipeOf(g.rows[0]!)!;
      expect(launch.recipe.configFile).toBe(config);
      const [file, selector] = config.includes(':') ? config.split(':') : [config, undefined];
      const path = `benchmarks/multi_node/srt-slurm-recipes/${file!.replace(/^recipes\//, '')}`;
      // A row opting into synthetic acceptance runs the recipe as InferenceX's injector rewrites it.
      const row = g.rows[0]! as MultiNodeRow;
      const checkout = readFileSync(join(root, path), 'utf8');
      const synthetic = optsIntoSyntheticAcceptance(row) ? syntheticAcceptanceOf(row, golden) : undefined;
      const text = synthetic ? injectSyntheticAcceptance(checkout, row.framework, synthetic, config) : checkout;
      if (synthetic) injected++;
      const recipe = await loadRecipe(path, text);
      const variant = selectVariant(recipe.doc.value, selector);
      const want = renderRecipe(variant.recipe, { file: path, isFloat: yamlFloats(text, recipe, variant) });
      const logDir = new RunDir(out).serverLogs(logsKeyOf(g));
      const fill = (v: string): string =>
        v.replace(/\{(?:host|ip):(\d+)\}/g, (_, n: string) => `\${NODES[${n}]}`).replace(/\{log_dir\}/g, logDir);
      expect(launch.recipe.processes.length).toBe(want.roles.length);
      want.roles.forEach((role, k) => {
        const got = launch.recipe!.processes[k]!;
        expect(got.role).toBe(role.role);
        expect(got.nodes).toEqual(role.nodes);
        expect(got.argv).toEqual(role.argv.map(fill));
        expect(got.env).toEqual(Object.fromEntries(Object.entries(role.env).map(([key, v]) => [key, fill(v)])));
      });
      rendered++;
    }
    // The fixture sweep's 384 multi-node rows: 80 run their recipe; the rest say why not.
    expect(rendered).toBe(80);
    // Among them the four rows of DeepSeek-V4 dynamo-vllm MTP entries that opt into synthetic acceptance.
    expect(injected).toBe(4);
    expect(launches.filter((l) => l.status === 'cannot run').length).toBe(249);
    // Frameworks InferenceX runs with a job script need that script, which this checkout lacks
    // (inferencex-job-script.test.ts runs them from one that has them).
    for (const framework of ['sglang-disagg', 'atom-disagg', 'llmd-vllm', 'tilert'])
      expect(
        reasons.some((k) =>
          new RegExp(
            `would run benchmarks/multi_node/\\S+_${framework}(-disagg)?\\.sh, which the InferenceX checkout does not have`,
          ).test(k),
        ),
        framework,
      ).toBe(true);
    // The text form says the same, without a trace.
    const textual = await runCliAsync([...args, '--inferencex', root, '--out', out, '--dry-run']);
    expect(textual.status).toBe(0);
    expect(textual.stderr).toBe('');
    expect(textual.stdout).toContain('cannot run: dynamo-trt: the decode worker 0 spans 2 nodes');
    expect(textual.stdout).toContain(
      'cannot run: runners/launch_mi355x-amds.sh would run benchmarks/multi_node/dsr1_fp8_mi355x_sglang-disagg.sh, which the InferenceX checkout does not have',
    );
    expect(textual.stdout).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('a recipe field the rendered srtctl lacks is refused naming the srt-slurm the launcher clones for the row, not as a wrong recipe', async () => {
    const config = 'recipes/vllm/deepseek-v4/8k1k/disagg-gb300-1p6d-dep4-tp4.yaml';
    const row = rows.find((r) => recipeOf(r) === config)!;
    // This checkout has no launcher: the refusal says so.
    expect((book.get(config) as { problem: string }).problem).toContain(
      "benchmark.tokenizer_mode is not in srtctl 0.3.0's schema, the srt-slurm Frontier renders recipes as; no launcher of the checkout says which srt-slurm runs this row",
    );
    const checkout = inferencexTree('checkout');
    for (const f of ['runners/launch_gb300-nv.sh', 'runners/slurm_utils.sh']) {
      mkdirSync(join(checkout, 'runners'), { recursive: true });
      writeFileSync(join(checkout, f), readFileSync(join(REPO, 'test/fixtures/inferencex/tree', f)));
    }
    writeFileSync(join(checkout, 'benchmarks/benchmark_lib.sh'), '');
    const dir = tempFiles({ 'matrix.json': JSON.stringify([row]) });
    const result = await runCliAsync([
      'run',
      '--matrix',
      join(dir, 'matrix.json'),
      '--inferencex',
      checkout,
      '--out',
      join(dir, 'run'),
      '--dry-run',
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /cannot run: dynamo-vllm: recipe \S+disagg-gb300-1p6d-dep4-tp4\.yaml: benchmark\.tokenizer_mode is not in srtctl 0\.3\.0's schema, the srt-slurm Frontier renders recipes as; runners\/launch_gb300-nv\.sh runs this row with https:\/\/github\.com\/NVIDIA\/srt-slurm\.git at branch aflowers\/gb200-dsv4-recipes \(line \d+\), a toolchain whose schema Frontier does not know/,
    );
  });

  it('runs a 1P1D recipe on a simulating local cluster, every role under the stand-ins, and the run ingests', async () => {
    const row = rows.find(
      (r) => recipeOf(r) === 'recipes/sglang/qwen3.5/gb200-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml' && r.runner === 'gb200',
    )!;
    expect(row).toBeDefined();
    const one: MatrixRow = { ...row, conc: [1, 2] };
    const cluster: ClusterProfile = simCluster({ nodes: 4, engines: { sim: { speed: 100 } } });
    const out = join(tempFiles({}), 'run');
    const frontier = [process.execPath, CLI];
    const { manifest, dir } = await run({
      rows: [one],
      matrix: { file: 'matrix.json', text: JSON.stringify([one]) },
      cluster,
      out,
      executor: localExecutor,
      frontierVersion: 'test',
      frontierCommand: frontier,
      commit: null,
      inferencex: tree,
      recipes: book,
    });
    expect(manifest.launches[0]!.error).toBeUndefined();
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    expect(manifest.launches[0]!.engine).toBe(`${recipeOf(row)} (stand-ins: sim)`);
    const logs = join(dir.root, manifest.launches[0]!.logs!);
    expect(readdirSync(logs).sort()).toEqual(['decode-0.log', 'frontend-0.log', 'nginx-0.log', 'prefill-0.log', 'recipe.json']);
    // The frontend waited for both workers and fronted them as the sim's router; nginx too, on the public port.
    expect(readFileSync(join(logs, 'frontend-0.log'), 'utf8')).toContain('frontier sim router listening on');
    expect(readFileSync(join(logs, 'prefill-0.log'), 'utf8')).toContain('prefill role');
    const agg = JSON.parse(readFileSync(dir.aggFile(manifest.points[0]!.resultFilename), 'utf8')) as Record<string, unknown>;
    expect(agg).toMatchObject({ is_multinode: true, conc: 1 });
    expect(strays(out).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'))).toEqual([]);
    const db = join(tempFiles({}), 'frontier.db');
    const ingest = await runCliAsync(['ingest', out, '--run-id', 'recipe-1', '--db', db]);
    expect(ingest.stderr).toBe('');
    expect(ingest.stdout).toContain('points: 2 (2 new)');
  }, 120_000);

  it('a recipe row opting into synthetic acceptance runs the recipe injected as InferenceX injects it, and measures that AL', async () => {
    const base = rows.find(
      (r) => recipeOf(r) === 'recipes/sglang/qwen3.5/gb200-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml' && r.runner === 'gb200',
    )!;
    const row: MultiNodeRow = {
      ...base,
      conc: [2],
      prefill: {
        ...base.prefill,
        'additional-settings': [...(base.prefill['additional-settings'] ?? []), 'SYNTHETIC_ACCEPTANCE=true'],
      },
    };
    const golden = await goldenFor(tree);
    const injected = await loadRecipeBook(tree, [row], golden);
    const cluster: ClusterProfile = simCluster({ nodes: 4, engines: { sim: { speed: 100 } } });
    const out = join(tempFiles({}), 'run');
    const { manifest, dir } = await run({
      rows: [row],
      matrix: { file: 'matrix.json', text: JSON.stringify([row]) },
      cluster,
      out,
      executor: localExecutor,
      frontierVersion: 'test',
      frontierCommand: [process.execPath, CLI],
      commit: null,
      inferencex: tree,
      recipes: injected,
    });
    expect(pointStatuses(manifest)).toEqual(['2:ok']);
    const logs = join(dir.root, manifest.launches[0]!.logs!);
    // SGLang's simulated-acceptance variables in the workers' environment, at the recipe's 3 EAGLE steps: Qwen3.5's golden 3.39.
    const told = 'stand-in: speculative decoding, 3 draft tokens, acceptance length 3.39 (SGLANG_SIMULATE_ACC_LEN)';
    expect(readFileSync(join(logs, 'decode-0.log'), 'utf8')).toContain(told);
    const raw = JSON.parse(readFileSync(dir.rawFile(manifest.points[0]!.resultFilename), 'utf8')) as Record<string, unknown> & {
      frontier: { acceptance_length_check: Record<string, unknown> };
    };
    // Read from the decode worker the stand-ins registered, behind the router.
    expect(raw.frontier.acceptance_length_check).toMatchObject({ expected: 3.39, far: false });
    expect(raw.spec_decode_acceptance_length).toBeCloseTo(3.39, 1);
    // The recipe without the opt-in is left as the checkout has it.
    expect(JSON.stringify(book.get(recipeOf(base)!))).not.toContain('SGLANG_SIMULATE_ACC_LEN');
  }, 120_000);
});
