// A Slurm cluster that runs multi-node recipes with srt-slurm's own srtctl: Frontier puts the
// recipe in the checkout's recipes/, runs `srtctl apply`, follows the job srtctl submitted on the
// test Slurm cluster (slurmctld and two slurmd on this host), and collects each concurrency's
// result from srtctl's outputs. srtctl itself is a stand-in here (its GPU steps cannot run): it
// records its command line and submits a job that writes results where srtctl's benchmark does.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMasterConfigs, loadRunners } from '../../src/catalog/index.js';
import { loadRecipeBook, openTree, recipeOf } from '../../src/plan/index.js';
import { run, slurmExecutor } from '../../src/launch/index.js';
import { generateFullSweep, isAgenticRow, isMultiNodeRow } from '../../src/matrix/index.js';
import type { MultiNodeRow } from '../../src/matrix/index.js';
import { CLI, INFERENCEX, inferencexTree, readFixture, runCliAsync, tempFiles } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { simCluster, pointStatuses } from './fixtures.js';

const RECIPE = 'recipes/sglang/qwen3.5/gb200-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml';

let slurm: LocalSlurm;
let root: string;
let row: MultiNodeRow;
let rows: MultiNodeRow[];

beforeAll(async () => {
  slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 4 });
  root = inferencexTree('checkout');
  // What makes it an InferenceX checkout for `frontier run` (openTree).
  mkdirSync(join(root, 'runners'), { recursive: true });
  writeFileSync(join(root, 'benchmarks/benchmark_lib.sh'), '');
  const configs = await loadMasterConfigs([join(root, 'configs/nvidia-master.yaml'), join(root, 'configs/amd-master.yaml')]);
  const runners = await loadRunners(join(root, 'configs/runners.yaml'));
  rows = generateFullSweep(configs.value.entries, runners.value!, {}).filter(
    (r): r is MultiNodeRow => isMultiNodeRow(r) && !isAgenticRow(r),
  );
  row = rows.find((r) => recipeOf(r) === RECIPE && r.runner === 'gb200')!;
  // Opted into synthetic acceptance, as InferenceX's master configs do it: the launch injects the
  // golden AL (Qwen3.5, thinking_on, the recipe's 3 draft steps: 3.39) into the recipe srtctl reads.
  const settings = ['SYNTHETIC_ACCEPTANCE=true', ...(row.prefill['additional-settings'] ?? [])];
  row = { ...row, conc: [1, 2], prefill: { ...row.prefill, 'additional-settings': settings } };
}, 120_000);

afterAll(async () => {
  await slurm?.stop();
});

/** srtctl's stand-in: records its argv, submits a job that writes srtctl's result files, says `✅ Job N`. */
function srtctlStandin(dir: string, result: string): string {
  const script = join(dir, 'srtctl');
  writeFileSync(
    script,
    `#!/bin/bash
printf '%s\\n' "$@" >"$PWD/srtctl-argv.txt"
[[ -f "$4" ]] || { echo "no recipe at $4" >&2; exit 2; }
cat >"$PWD/job.sh" <<JOB
#!/bin/bash
logs="$PWD/outputs/\\$SLURM_JOB_ID/logs"
mkdir -p "\\$logs/8k1k_mtp_lowlat_0_isl_8192_osl_1024"
echo "sweep of \\$SLURM_JOB_ID" >"\\$logs/sweep_\\$SLURM_JOB_ID.log"
for c in $STANDIN_CONCS; do
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["max_concurrency"] = int(sys.argv[2]); json.dump(r, open(sys.argv[3], "w"))' \\
    ${result} "\\$c" "\\$logs/8k1k_mtp_lowlat_0_isl_8192_osl_1024/results_concurrency_\\\${c}_$STANDIN_GPUS.json"
done
JOB
id=$(sbatch --parsable --partition="$STANDIN_PARTITION" --output=/dev/null "$PWD/job.sh") || exit 1
echo "✅ Job \${id%%;*} submitted"
`,
  );
  chmodSync(script, 0o755);
  return script;
}

describe('srtctl as the executor of recipe rows', () => {
  it(
    'applies the recipe with srtctl in the routed checkout, follows its job and collects its results; the run ingests',
    { timeout: 180_000 },
    async () => {
      const commit = 'c1b6b5c97f323baefad577d70c4e8392b6f537d9';
      const checkouts = tempFiles({});
      const checkout = join(checkouts, commit);
      const result = join(
        tempFiles({ 'result.json': readFixture('golden/process-result/01_single_node_tp8/input.json', INFERENCEX) }),
        'result.json',
      );
      const srtctl = srtctlStandin(tempFiles({}), result);
      const cluster = simCluster({
        name: 'gb200-srtctl',
        scheduler: 'slurm',
        simulate: false,
        nodes: 8,
        gpusPerNode: 4,
        gpu: 'gb200',
        partition: slurm.partition,
        timeLimitMinutes: 10,
        routing: [{ match: {}, toolchain: { repo: 'https://github.com/NVIDIA/srt-slurm.git', commit }, flags: [] }],
        srtctl: { root: join(checkouts, '{commit}'), command: [srtctl] },
      });
      const out = join(tempFiles({}), 'run');
      const tree = openTree(root);
      const prefill = row.prefill['num-worker'] * row.prefill.tp;
      const decode = row.decode['num-worker'] * row.decode.tp;
      const { manifest, dir } = await run({
        rows: [row],
        matrix: { file: 'matrix.json', text: JSON.stringify([row]) },
        cluster,
        out,
        executor: slurmExecutor({
          env: {
            ...process.env,
            ...slurm.env,
            STANDIN_CONCS: '1 2',
            STANDIN_GPUS: `gpus_${prefill + decode}_ctx_${prefill}_gen_${decode}`,
            STANDIN_PARTITION: slurm.partition,
          },
          frontierCommand: [process.execPath, CLI],
          pollMs: 200,
        }),
        frontierVersion: 'test',
        frontierCommand: [process.execPath, CLI],
        commit: null,
        inferencex: tree,
        recipes: await loadRecipeBook(tree, [row]),
      });
      expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
      // srtctl ran in the routed commit's checkout, on the recipe the row names, put where the launchers put it.
      const argv = readFileSync(join(checkout, 'srtctl-argv.txt'), 'utf8').trim().split('\n');
      expect(argv.slice(0, 4)).toEqual(['apply', '--no-preflight', '-f', RECIPE]);
      const own = readFileSync(join(root, 'benchmarks/multi_node/srt-slurm-recipes', RECIPE.slice('recipes/'.length)), 'utf8');
      const variables =
        '\n    SGLANG_SIMULATE_ACC_LEN: "3.39"\n    SGLANG_SIMULATE_ACC_METHOD: "match-expected"\n    SGLANG_SIMULATE_ACC_TOKEN_MODE: "real-draft-token"';
      expect(readFileSync(join(checkout, RECIPE), 'utf8')).toBe(
        own
          .replace('  prefill_environment:\n', `  prefill_environment:${variables}\n`)
          .replace('  decode_environment:\n', `  decode_environment:${variables}\n`),
      );
      expect(manifest.launches[0]!.job).toMatch(/^\d+$/);
      const logs = join(dir.root, manifest.launches[0]!.logs!, 'srtctl-logs');
      const results = join(logs, '8k1k_mtp_lowlat_0_isl_8192_osl_1024');
      for (const p of manifest.points) {
        // The point's raw result is the file srtctl's job wrote for its concurrency.
        const raw = readFileSync(dir.rawFile(p.resultFilename), 'utf8');
        const gpus = `gpus_${prefill + decode}_ctx_${prefill}_gen_${decode}`;
        expect(raw).toBe(readFileSync(join(results, `results_concurrency_${p.conc}_${gpus}.json`), 'utf8'));
        expect((JSON.parse(raw) as { max_concurrency: number }).max_concurrency).toBe(p.conc);
        expect(existsSync(dir.aggFile(p.resultFilename))).toBe(true);
      }
      expect(existsSync(join(logs, `sweep_${manifest.launches[0]!.job}.log`))).toBe(true);
      const db = join(tempFiles({}), 'frontier.db');
      const ingest = await runCliAsync(['ingest', out, '--run-id', 'srtctl-1', '--db', db]);
      expect(ingest.stderr).toBe('');
      expect(ingest.stdout).toContain('points: 2 (2 new)');
    },
  );

  it(
    'dry run: every recipe row is submitted by srtctl, also one whose recipe only the srtctl checkout has',
    { timeout: 120_000 },
    async () => {
      const dir = tempFiles({
        'clusters/srt.yaml': [
          'scheduler: slurm',
          'nodes: 64',
          'gpus-per-node: 4',
          'gpu: gb200',
          'time-limit: 240',
          'health-check: { attempts: 100, interval: 10 }',
          'srtctl: { root: "/srv/srt-slurm/{commit}", command: [srtctl] }',
          'routing:',
          '  - match: {}',
          '    toolchain: { repo: https://github.com/NVIDIA/srt-slurm.git, commit: c1b6b5c97f323baefad577d70c4e8392b6f537d9 }',
          '',
        ].join('\n'),
        'rows.json': JSON.stringify(rows),
      });
      const dry = await runCliAsync([
        'run',
        '--matrix',
        join(dir, 'rows.json'),
        '--cluster',
        'srt',
        '--clusters',
        join(dir, 'clusters'),
        '--inferencex',
        root,
        '--dry-run',
        '--format',
        'json',
      ]);
      expect(dry.stderr).toBe('');
      const launches = (
        JSON.parse(dry.stdout) as {
          launches: {
            status: string;
            reasons?: string[];
            recipe?: { configFile: string; path?: string; processes: unknown[]; submit?: string[] };
          }[];
        }
      ).launches;
      const withRecipe = launches.filter((l) => l.recipe);
      const fromSrtctl = withRecipe.filter((l) => l.recipe!.path === undefined);
      const inCheckout = withRecipe.filter((l) => l.recipe!.path !== undefined);
      expect(fromSrtctl.length).toBeGreaterThan(100);
      expect(inCheckout.length).toBeGreaterThan(50);
      for (const l of withRecipe) {
        expect(l.status).toBe('ready');
        expect(l.recipe!.submit!.slice(0, 5)).toEqual(['srtctl', 'apply', '--no-preflight', '-f', l.recipe!.configFile]);
      }
      // The checkout's recipes also show the processes srtctl will start.
      expect(inCheckout.every((l) => l.recipe!.processes.length > 0)).toBe(true);
    },
  );
});
