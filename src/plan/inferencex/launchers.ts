import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { launcherOf } from '../../clusters/index.js';
import type { JobScriptLauncher } from '../../clusters/index.js';
import type { MultiNodeRow, SingleNodeRow } from '../../matrix/index.js';
import type { InferencexTree } from './tree.js';

/**
 * How InferenceX's launchers (`runners/launch_<runner>.sh`, chosen by the runner's name up to its
 * last `_`) pick a single-node row's benchmark script, and the port they give it. The base name is
 * `benchmarks/single_node/<scenario>/<model code>_<precision>_<gpu>`; the forms after it, tried in
 * order, differ per launcher (read off each launcher):
 * - `framework`: `_<framework><_mtp>` (the current convention: several engines per model);
 * - `legacy`: `<_trt | _atom><_mtp>` (the engine suffix only for trt, or atom on MI355X);
 * - `spec`: `<_mtp>` alone (launchers that predate engine suffixes).
 */

type Form = 'framework' | 'legacy' | 'spec';

export interface LauncherRule {
  gpu: string;
  forms: readonly Form[];
  /** The engine that the `legacy` form names (`_trt`, `_atom`). */
  legacyFramework: 'trt' | 'atom';
  /** PORT the launcher exports: fixed, or derived from the runner's name or the Slurm job's id. */
  port: (runnerName: string, jobId: number) => number;
  /**
   * A launcher that starts the container with `docker run --env NAME…` passes only those variables
   * (the ones that are set) and the settings it adds; launchers that use `srun --export=ALL` pass all.
   */
  containerEnv?: { pass: readonly string[]; set: (env: Readonly<Record<string, string>>) => Record<string, string> };
}

const FIXED = (): number => 8888;
const rule = (gpu: string, forms: Form[], extra: Partial<LauncherRule> = {}): LauncherRule => ({
  gpu,
  forms,
  legacyFramework: 'trt',
  port: FIXED,
  ...extra,
});
const CURRENT: Form[] = ['framework', 'legacy'];

export const LAUNCHERS: Readonly<Record<string, LauncherRule>> = {
  'b200-cw': rule('b200', CURRENT),
  'b200-dgxc': rule('b200', CURRENT),
  'b200-dgxc-slurm': rule('b200', CURRENT),
  'b200-nb': rule('b200', CURRENT),
  'b300-nv': rule('b300', CURRENT),
  'gb200-nv': rule('gb200', ['framework']),
  'h100-cr': rule('h100', ['spec']),
  'h100-cw': rule('h100', ['spec']),
  'h100-dgxc-slurm': rule('h100', ['spec']),
  'h200-cw': rule('h200', ['legacy']),
  'h200-nb': rule('h200', ['legacy']),
  'h200-dgxc-slurm': rule('h200', CURRENT),
  // PORT is 40000 plus the job id modulo 10000: jobs share hosts.
  'mi300x-amds': rule('mi300x', ['spec'], { port: (_, job) => 40000 + (job % 10000) }),
  'mi325x-amds': rule('mi325x', ['spec'], { port: (_, job) => 40000 + (job % 10000) }),
  'mi325x-tw': rule('mi325x', ['spec'], {
    containerEnv: {
      pass: [
        'HF_TOKEN',
        'HF_HUB_CACHE',
        'MODEL',
        'TP',
        'PP_SIZE',
        'DCP_SIZE',
        'PCP_SIZE',
        'GPU_COUNT',
        'CONC',
        'MAX_MODEL_LEN',
        'ISL',
        'OSL',
        'RUN_EVAL',
        'EVAL_ONLY',
        'RUNNER_TYPE',
        'RESULT_FILENAME',
        'RANDOM_RANGE_RATIO',
        'DP_ATTENTION',
        'EP_SIZE',
        'DP_SIZE',
        'EVAL_MAX_MODEL_LEN',
        'SPEC_DECODING',
        'NUM_SPEC_TOKENS',
        'PROFILE',
        'SGLANG_TORCH_PROFILER_DIR',
        'VLLM_TORCH_PROFILER_DIR',
        'VLLM_RPC_TIMEOUT',
      ],
      set: (env) => ({ PORT: env.PORT!, PYTHONPYCACHEPREFIX: '/tmp/pycache/', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' }),
    },
  }),
  // PORT is 8888 plus the runner name's last digit: runners share hosts.
  'mi355x-amds': rule('mi355x', CURRENT, { legacyFramework: 'atom', port: (name) => 8888 + (Number(name.slice(-1)) || 0) }),
  'rtx6000pro-lat': rule('rtx6000pro', ['framework', 'spec'], {
    containerEnv: {
      pass: [
        'HF_TOKEN',
        'HF_HUB_CACHE',
        'MODEL',
        'MODEL_PREFIX',
        'MODEL_PATH',
        'TP',
        'PP_SIZE',
        'DCP_SIZE',
        'PCP_SIZE',
        'EP_SIZE',
        'DP_SIZE',
        'DP_ATTENTION',
        'GPU_COUNT',
        'CONC',
        'MAX_MODEL_LEN',
        'ISL',
        'OSL',
        'FRAMEWORK',
        'PRECISION',
        'DISAGG',
        'SPEC_DECODING',
        'NUM_SPEC_TOKENS',
        'RUN_EVAL',
        'EVAL_ONLY',
        'EVAL_LIMIT',
        'EVAL_MAX_MODEL_LEN',
        'RUNNER_TYPE',
        'RUNNER_NAME',
        'RESULT_FILENAME',
        'RESULT_DIR',
        'RANDOM_RANGE_RATIO',
        'GPU_MEM_UTIL',
        'AIPERF_FAILED_REQUEST_THRESHOLD',
        'KV_OFFLOADING',
        'KV_OFFLOAD_BACKEND',
        'KV_OFFLOAD_BACKEND_METADATA',
        'ROUTER_METADATA',
        'KV_P2P_TRANSFER',
        'TOTAL_CPU_DRAM_GB',
        'DURATION',
        'SCENARIO_TYPE',
        'SCENARIO_SUBDIR',
        'IS_AGENTIC',
        'SWEBENCH_GEN_MODE',
        'SWEBENCH_USE_MODAL',
        'MODAL_TOKEN_ID',
        'MODAL_TOKEN_SECRET',
        'PROFILE',
        'SGLANG_TORCH_PROFILER_DIR',
        'VLLM_TORCH_PROFILER_DIR',
        'VLLM_RPC_TIMEOUT',
        'PYTHONDONTWRITEBYTECODE',
      ],
      set: (env) => ({
        PYTHONPYCACHEPREFIX: '/tmp/pycache/',
        PORT: env.PORT!,
        CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
        CUDA_VISIBLE_DEVICES: Array.from({ length: Number(env.GPU_COUNT) }, (_, i) => i).join(','),
        NCCL_IB_DISABLE: '1',
      }),
    },
  }),
};

/**
 * The runner that stands for a row's label: the one named (a cluster profile's `inferencex-runner`),
 * else the label's first runner in `configs/runners.yaml`, else (a label the file does not list,
 * such as `h200-dgxc`) the runner of the launcher the label names: `launch_<label>.sh` or
 * `launch_<label>-slurm.sh`.
 */
export function runnerFor(tree: InferencexTree, label: string, named?: string): string | undefined {
  if (named) return named;
  const listed = tree.labels.get(label)?.[0];
  if (listed) return listed;
  const bare = label.replace(/^cluster:/, '');
  const launcher = [bare, `${bare}-slurm`].find((l) => existsSync(join(tree.root, 'runners', `launch_${l}.sh`)));
  return launcher && `${launcher}_0`;
}

export type ScriptChoice = { script: string; launcher: string; rule: LauncherRule } | { problem: string };

/** The benchmark script a launcher runs for a single-node row (a path relative to the checkout). */
export function scriptFor(tree: InferencexTree, row: SingleNodeRow, runnerName: string): ScriptChoice {
  const launcher = launcherOf(runnerName);
  const r = LAUNCHERS[launcher];
  if (!r) {
    const known = existsSync(join(tree.root, 'runners', `launch_${launcher}.sh`));
    return {
      problem: known
        ? `runners/launch_${launcher}.sh runs no single-node benchmark script that frontier knows how to pick; run the row with another runner (cluster profile inferencex-runner)`
        : `runner ${runnerName}: there is no runners/launch_${launcher}.sh in the InferenceX checkout`,
    };
  }
  const scenario = (row as { 'scenario-type'?: string })['scenario-type'] === 'agentic-coding' ? 'agentic/' : 'fixed_seq_len/';
  const modelCode = row['exp-name'].split('_')[0]!;
  const base = `benchmarks/single_node/${scenario}${modelCode}_${row.precision}_${r.gpu}`;
  const spec = row['spec-decoding'] === 'mtp' ? '_mtp' : '';
  const legacy = row.framework === r.legacyFramework ? `_${r.legacyFramework}` : '';
  const names = r.forms.map((f) => `${base}${f === 'framework' ? `_${row.framework}` : f === 'legacy' ? legacy : ''}${spec}.sh`);
  // Like the launchers, the last form is taken without checking: its absence is the error.
  const script = names.find((n) => existsSync(join(tree.root, n))) ?? names[names.length - 1]!;
  if (!existsSync(join(tree.root, script)))
    return { problem: `runners/launch_${launcher}.sh would run ${script}, which the InferenceX checkout does not have` };
  return { script, launcher, rule: r };
}

/** The site's part of what a launcher exports for a job script: the cluster profile's. */
export interface JobSite {
  account: string;
  partition: string;
  /** The row's model: its folder (the name of which is the model's Hugging Face name's last part). */
  modelPath: string;
  /** $GITHUB_WORKSPACE: the checkout the script runs in. */
  workspace: string;
  /** Where the site keeps enroot squash files of images. */
  squashDir: string;
}

/**
 * How a launcher runs a multi-node row of a framework that has no srt-slurm recipe (which
 * frameworks each runs so is src/clusters' JOB_SCRIPT_FRAMEWORKS_OF): a script of
 * the checkout, after the launcher's exports, that either submits a Slurm job of its own and
 * prints its id (`printed`: AMD's `amd_utils/submit.sh` → `sbatch job.slurm`; the launcher then
 * follows the job), or allocates nodes and runs its steps itself until the benchmark is done
 * (`foreground`: `tilert_utils/submit.sh` → `salloc --no-shell`, `srun --jobid …`). Either way
 * each concurrency's result is then a file the job wrote.
 */
export interface JobScriptRule {
  gpu: string;
  job: 'printed' | 'foreground';
  /** The script, relative to the checkout. */
  script: (row: MultiNodeRow) => string;
  /** The launcher's exports before it runs the script. */
  exports: (row: MultiNodeRow, site: JobSite) => Record<string, string>;
  /**
   * Images the launcher imports into squash files before it runs the script (its `import_squash`:
   * each unless its file already is one), for a job that names the file.
   */
  images?: (row: MultiNodeRow, site: JobSite) => { image: string; squash: string }[];
  /**
   * Where the job leaves results: folders to look in, newest job first (`logs` is
   * BENCHMARK_LOGS_DIR, `workspace` the checkout), and a result's file name, whose groups are its
   * concurrency and `gpus_<n>_ctx_<p>_gen_<d>`.
   */
  results: { dirs: (row: MultiNodeRow, at: { logs: string; workspace: string }) => string[]; file: RegExp };
}

/** `root/<job>/<sub>` for each job folder under root that has it, the newest first. */
function jobDirs(root: string, sub: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((job) => join(root, job, sub))
    .filter((d) => existsSync(d))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

/** Folders under root (itself included), `depth` levels down. */
function foldersUnder(root: string, depth: number): string[] {
  if (!existsSync(root)) return [];
  const below = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory());
  return [root, ...(depth > 0 ? below.flatMap((e) => foldersUnder(join(root, e.name), depth - 1)) : [])];
}

/** The launchers' squash file of an image: `$SQUASH_DIR/<image, / : @ # as _>.sqsh`. */
const squashFile = (site: JobSite, image: string): string => `${site.squashDir}/${image.replace(/[/:@#]/g, '_')}.sqsh`;

/**
 * enroot's URI for an image, as the launchers' `enroot_uri_for_image` writes it: enroot 3 does not
 * parse Docker's `tag@digest`, so a digest-pinned image names its registry and the digest as the
 * reference (`docker://<registry>#<repository>:sha256:…`); another registry than Docker Hub is
 * named with `#`.
 */
export function enrootUri(image: string): string {
  const at = image.indexOf('@sha256:');
  const bare = at >= 0 ? image.slice(0, at) : image;
  const digest = at >= 0 ? image.slice(at + 1) : '';
  const first = bare.split('/')[0]!;
  const named = bare.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = named ? first : 'registry-1.docker.io';
  let repository = named ? bare.slice(first.length + 1) : bare;
  if (!digest) return registry === 'registry-1.docker.io' ? `docker://${image}` : `docker://${registry}#${repository}`;
  const slash = repository.lastIndexOf('/');
  const name = repository.slice(slash + 1).split(':')[0]!;
  repository = slash >= 0 ? `${repository.slice(0, slash)}/${name}` : name;
  if (registry === 'registry-1.docker.io' && !repository.includes('/')) repository = `library/${repository}`;
  return `docker://${registry}#${repository}:${digest}`;
}

/** A result named `<RESULT_FILENAME>_c<conc>_gpus_<n>_ctx_<p>_gen_<d>.json` (tilert's and llm-d's benchmark). */
const STEM_RESULT = /_c(\d+)_(gpus_\d+_ctx_\d+_gen_\d+)\.json$/;

const B200_DGXC: JobScriptRule = {
  gpu: 'b200',
  job: 'foreground',
  script: (row) => `benchmarks/multi_node/${row['exp-name'].split('_')[0]}_${row.precision}_b200_${row.framework}-disagg.sh`,
  exports: (row, site) => ({
    SLURM_PARTITION: site.partition,
    SLURM_ACCOUNT: site.account,
    MODEL_PATH: site.modelPath,
    AIPERF_MMAP_CACHE_HOST_PATH: `${site.workspace}/.aiperf-cache`,
    TILERT_WEIGHTS_DIR: join(dirname(site.modelPath), `${row['model-prefix']}-${row.precision}-tilert-8shard`),
    UCX_NET_DEVICES: 'mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1',
    UCX_MEMTYPE_CACHE: 'n',
    UCX_MEMTYPE_REG_WHOLE: 'n',
    // Not the launcher's: tilert_utils/submit.sh reads it, with the site's folder as its default.
    B200_SQUASH_DIR: site.squashDir,
  }),
  // tilert_utils/run_node.sh: --result-dir /workspace, --result-filename <RESULT_FILENAME>_c<c>_gpus_<n>_ctx_<p>_gen_<d>
  results: { dirs: (_, at) => [at.workspace], file: STEM_RESULT },
};

export const JOB_SCRIPT_LAUNCHERS: Readonly<Record<string, JobScriptRule>> = {
  // runners/launch_mi355x-amds.sh, its IS_MULTINODE branch.
  'mi355x-amds': {
    gpu: 'mi355x',
    job: 'printed',
    script: (row) =>
      `benchmarks/multi_node/${(row as { 'scenario-type'?: string })['scenario-type'] === 'agentic-coding' ? 'agentic/' : ''}${row['exp-name'].split('_')[0]}_${row.precision}_mi355x_${row.framework}.sh`,
    exports: (row, site) => ({
      SLURM_ACCOUNT: site.account,
      SLURM_PARTITION: site.partition,
      SLURM_JOB_NAME: 'benchmark-sglang-disagg.job',
      MODEL_NAME: row.model.split('/').pop()!,
      MODEL_PATH: dirname(site.modelPath),
      IBDEVICES: 'rdma0,rdma1,rdma2,rdma3,rdma4,rdma5,rdma6,rdma7',
      MORI_RDMA_TC: '104',
      MODEL_DIR: dirname(site.modelPath),
      GPUS_PER_NODE: '8',
      ISL: String(row.isl),
      OSL: String(row.osl),
      BENCHMARK_LOGS_DIR: `${site.workspace}/benchmark_logs`,
    }),
    // amd_utils/bench.sh: logs/<job>/<ENGINE>_isl_<ISL>_osl_<OSL>/concurrency_<c>_req_rate_<r>_gpus_<n>_ctx_<p>_gen_<d>.json
    results: {
      dirs: (row, at) => jobDirs(join(at.logs, 'logs'), `${row.framework}_isl_${row.isl}_osl_${row.osl}`),
      file: /^concurrency_(\d+)_req_rate_[^_]+_(gpus_\d+_ctx_\d+_gen_\d+)\.json$/,
    },
  },
  // runners/launch_gb200-nv.sh, its llmd-vllm branch: the llm-d wrapper submits
  // benchmarks/multi_node/llm-d/job.slurm (pyxis), configured by the row's CONFIG_FILE
  // (benchmarks/multi_node/llm-d-recipes/), and prints the job's id.
  'gb200-nv': {
    gpu: 'gb200',
    job: 'printed',
    script: (row) => `benchmarks/multi_node/${row['exp-name'].split('_')[0]}_${row.precision}_gb200_llmd-vllm-disagg.sh`,
    exports: (row, site) => ({
      SLURM_PARTITION: site.partition,
      SLURM_ACCOUNT: site.account,
      MODEL_PATH: site.modelPath,
      MODEL_NAME: row.model,
      LLMD_CONTAINER_ENGINE: 'pyxis',
      LLMD_SQUASH_FILE: squashFile(site, row.image),
      BENCHMARK_LOGS_DIR: `${site.workspace}/benchmark_logs`,
    }),
    // job.slurm refuses a missing or empty LLMD_SQUASH_FILE: the launcher imports the image first.
    images: (row, site) => [{ image: row.image, squash: squashFile(site, row.image) }],
    // llm-d/server.sh: --result-dir $BENCHMARK_LOGS_DIR/ (the launcher finds them anywhere below it)
    results: { dirs: (_, at) => foldersUnder(at.logs, 3), file: STEM_RESULT },
  },
  // runners/launch_b200-dgxc.sh (launch_b200-dgxc-slurm.sh links to it), its tilert branch.
  'b200-dgxc': B200_DGXC,
  'b200-dgxc-slurm': B200_DGXC,
} satisfies Record<JobScriptLauncher, JobScriptRule>;
