// Frontier runs a single-node row of an InferenceX checkout through the checkout's own benchmark
// script. The oracle here is InferenceX itself, driven by code of this test only:
// - which script, and the port: the row's launcher (runners/launch_<runner>.sh) run under shims for
//   the cluster tools (salloc, srun, docker…) that catch the `bash <script>` it runs;
// - the environment: the `env:` block of .github/workflows/benchmark-tmpl.yml, evaluated for the
//   row, plus what its "Launch job script" step exports;
// - what the script starts: the script run with that environment under shims that record each
//   engine's argv and environment.
// The oracle's answer for every single-node row of the fixture sweep is kept as a golden
// (UPDATE_GOLDEN=1 reruns the oracle on all of them and rewrites it), with a digest of the checkout
// it was recorded on; each run reruns it on one row of each script. Frontier must match the golden: the
// script and environment of every row, as its dry run plans them, and what the script starts, by
// `run --dry-run`, for one row of each kind (rows whose answers differ only in their numbers).
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadClusterProfile } from '../../src/clusters/index.js';
import { openTree, planLaunch, planRun } from '../../src/plan/index.js';
import { contractOf } from '../../src/launch/inferencex/script-record.js';
import type { SingleNodeRow } from '../../src/matrix/index.js';
import { resultFilenameOf } from '../../src/results/index.js';
import { BUNDLED_INFERENCEX, CLI, runCliAsync, tempFiles } from '../helpers.js';
import { FIXTURE_TREE, fixtureSweep } from './fixtures.js';

const TREE = FIXTURE_TREE;

/** The sweep's single-node rows, once each (the agentic configs list a few points twice). */
async function singleNodeRows(): Promise<SingleNodeRow[]> {
  const rows = (await fixtureSweep()).filter((r): r is SingleNodeRow => !('prefill' in r));
  return [...new Map(rows.map((r) => [rowKey(r), r])).values()];
}

const isAgentic = (row: SingleNodeRow): boolean => (row as { 'scenario-type'?: string })['scenario-type'] === 'agentic-coding';

// ---------------------------------------------------------------------------------------------
// The workflow's environment, from benchmark-tmpl.yml.

interface WorkflowInput {
  type: string;
  default?: unknown;
}

const workflow = parseYaml(readFileSync(join(TREE, '.github/workflows/benchmark-tmpl.yml'), 'utf8')) as {
  on: { workflow_call: { inputs: Record<string, WorkflowInput> } };
  env: Record<string, unknown>;
};

/**
 * How run-sweep.yml's agentic job passes a matrix entry to the template: its `with:` block, whose
 * expressions (matrix.config paths, toJson, literals, && and ||) differ from a fixed-length row's
 * field-for-field inputs (the backend by its name, JSON for objects, zero sequence lengths).
 */
const sweep = parseYaml(readFileSync(join(TREE, '.github/workflows/run-sweep.yml'), 'utf8'), { maxAliasCount: -1 }) as {
  jobs: Record<string, { uses?: string; with?: Record<string, unknown> }>;
};
const AGENTIC_WITH = Object.values(sweep.jobs).find(
  (j) => j.uses?.endsWith('/benchmark-tmpl.yml') && j.with?.['scenario-type'] === 'agentic-coding',
)!.with!;

/** A `with:` value for a matrix entry, as GitHub evaluates it (`toJson` pretty-prints; no PR labels). */
function withValue(raw: unknown, config: Record<string, unknown>): unknown {
  const m = typeof raw === 'string' ? /^\$\{\{(.*)\}\}$/s.exec(raw.trim()) : null;
  if (!m) return raw;
  const truthy = (v: unknown): boolean => v !== undefined && v !== null && v !== false && v !== '' && v !== 0;
  const term = (t: string): unknown => {
    t = t.trim();
    if (t.startsWith("'")) return t.slice(1, -1);
    if (t === 'true' || t === 'false') return t === 'true';
    const json = /^toJson\((.*)\)$/.exec(t);
    if (json) return JSON.stringify(term(json[1]!), null, 2);
    if (t.startsWith('contains(github.event')) return false;
    if (!t.startsWith('matrix.config')) throw new Error(`expression not understood: ${t}`);
    let v: unknown = config;
    for (const [, dotted, quoted] of t.slice('matrix.config'.length).matchAll(/\.([\w-]+)|\['([^']+)'\]/g))
      v = (v as Record<string, unknown> | undefined)?.[(dotted ?? quoted)!];
    return v;
  };
  const and = (a: string): unknown => {
    let v: unknown = true;
    for (const t of a.split('&&')) if (!truthy((v = term(t)))) return v;
    return v;
  };
  const alternatives = m[1]!.split('||');
  for (const a of alternatives.slice(0, -1)) {
    const v = and(a);
    if (truthy(v)) return v;
  }
  return and(alternatives[alternatives.length - 1]!);
}

/** The workflow's inputs for a row, as the calling workflow passes a matrix entry (absent → default). */
function inputsOf(row: SingleNodeRow): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  const config = row as unknown as Record<string, unknown>;
  for (const [name, spec] of Object.entries(workflow.on.workflow_call.inputs)) {
    const given = isAgentic(row) ? (name in AGENTIC_WITH ? withValue(AGENTIC_WITH[name], config) : undefined) : config[name];
    const value = given ?? spec.default;
    if (spec.type === 'boolean') out[name] = value === true;
    else
      out[name] = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return out;
}

/**
 * GitHub's expressions as this template uses them: references, `==`, `&&` and `||` (which yield
 * an operand, as in JavaScript), string literals.
 */
function evaluate(expr: string, inputs: Record<string, string | boolean>): string | boolean {
  const value = (term: string): string | boolean => {
    term = term.trim();
    const eq = /^(.+?)\s*==\s*(.+)$/.exec(term);
    if (eq) return value(eq[1]!) === value(eq[2]!);
    if (term.startsWith("'")) return term.slice(1, -1);
    if (term.startsWith('inputs.')) return inputs[term.slice('inputs.'.length)] ?? '';
    if (term.startsWith('secrets.')) return '';
    throw new Error(`expression not understood: ${term}`);
  };
  const truthy = (v: string | boolean): boolean => v !== false && v !== '';
  const and = (alternative: string): string | boolean => {
    let v: string | boolean = true;
    for (const term of alternative.split('&&')) {
      v = value(term);
      if (!truthy(v)) return v;
    }
    return v;
  };
  const alternatives = expr.split('||');
  for (const a of alternatives.slice(0, -1)) {
    const v = and(a);
    if (truthy(v)) return v;
  }
  return and(alternatives[alternatives.length - 1]!);
}

function workflowEnv(row: SingleNodeRow): Record<string, string> {
  const inputs = inputsOf(row);
  const env: Record<string, string> = {};
  for (const [key, raw] of Object.entries(workflow.env)) {
    const text = String(raw);
    const m = /^\$\{\{(.*)\}\}$/.exec(text.trim());
    const v = m ? evaluate(m[1]!, inputs) : text;
    env[key] = typeof v === 'boolean' ? String(v) : v;
  }
  return env;
}

const labels = (parseYaml(readFileSync(join(TREE, 'configs/runners.yaml'), 'utf8')) as { labels: Record<string, string[]> })
  .labels;

/** The runner a row's label sends it to (as frontier picks it: the label's first, else the launcher it names). */
function runnerOf(row: SingleNodeRow): string {
  const listed = labels[row.runner]?.[0];
  if (listed) return listed;
  const bare = row.runner.replace(/^cluster:/, '');
  return existsSync(join(TREE, `runners/launch_${bare}.sh`)) ? `${bare}_0` : `${bare}-slurm_0`;
}

/** The workflow's environment and what its "Launch job script" step exports, for a row. */
function stepEnv(row: SingleNodeRow): Record<string, string> {
  return {
    ...workflowEnv(row),
    RUNNER_NAME: runnerOf(row),
    RUNNER_TYPE: row.runner,
    RESULT_FILENAME: resultFilenameOf(row, 'node'),
    GPU_COUNT: String(row.tp * row.pp * row['pcp-size']),
    GITHUB_STEP_SUMMARY: '',
  };
}

function readEnv(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

// ---------------------------------------------------------------------------------------------
// Shims: the cluster tools a launcher calls, the GPU tools a script calls.

const CLUSTER_SHIM = `#!/bin/bash
tool=$(basename "$0")
args=("$@")
# The benchmark script the launcher runs (srun … bash <script>, docker run … <script>) and the port
# it gives it; docker passes only the variables its --env options name (set ones), and writes them.
for ((i = 0; i < \${#args[@]}; i++)); do
  if [[ "\${args[$i]}" == *benchmarks/single_node/*.sh ]]; then
    port="$PORT"
    for a in "$@"; do if [[ "$a" == --export=* ]]; then
      IFS=, read -ra kv <<<"\${a#--export=}"
      for x in "\${kv[@]}"; do [[ "$x" == PORT=* ]] && port="\${x#PORT=}"; done
    fi; done
    if [[ $tool == docker ]]; then
      : >"$ORACLE_OUT.env"
      for ((j = 0; j < i; j++)); do
        if [[ "\${args[$j]}" == --env || "\${args[$j]}" == -e ]]; then
          e="\${args[$((j + 1))]}"
          if [[ "$e" == *=* ]]; then printf '%s\\0' "$e" >>"$ORACLE_OUT.env"
          elif [[ -v "$e" ]]; then printf '%s=%s\\0' "$e" "\${!e}" >>"$ORACLE_OUT.env"; fi
          [[ "$e" == PORT=* ]] && port="\${e#PORT=}"
        fi
      done
    fi
    printf '%s %s\\n' "\${args[$i]}" "$port" >"$ORACLE_OUT"
    kill -KILL 0
  fi
done
# Job 0: a dry run has no job yet, and launchers that derive the port from the job id use job 0's.
if [[ $tool == salloc ]]; then echo "salloc: Granted job allocation 0" >&2; fi
if [[ $tool == squeue ]]; then echo 0; fi
exit 0
`;
const CLUSTER_TOOLS = [
  'salloc',
  'srun',
  'sbatch',
  'squeue',
  'scancel',
  'scontrol',
  'sbcast',
  'sinfo',
  'docker',
  'enroot',
  'unsquashfs',
  'flock',
  'sudo',
];

const SCRIPT_SHIM = `#!/bin/bash
tool=$(basename "$0")
engine=0
case "$tool" in
  vllm) [[ "$1" == serve ]] && engine=1 ;;
  trtllm-serve | mpirun) engine=1 ;;
  sglang) [[ "$1" == serve ]] && engine=1 ;;
  python3 | python) if [[ "$1" == -m && "$2" != pip ]]; then engine=1; fi ;;
  # AIPerf's virtual environment (agentic scripts): its tools are this shim.
  uv) if [[ "$1" == venv ]]; then v=\${!#}; mkdir -p "$v/bin"; for t in python aiperf hf; do ln -sf "$(dirname "$0")/shim" "$v/bin/$t"; done; fi ;;
  curl) exit 7 ;;
  sleep) exec /bin/sleep 0.01 ;;
  # An idle AMD node's memory use, which AMD scripts poll before they start.
  rocm-smi) if [[ " $* " == *" --showmemuse "* ]]; then for i in 0 1 2 3 4 5 6 7; do printf 'GPU[%d]\t\t: GPU Memory Allocated (VRAM%%): 0\n' $i; done; fi ;;
esac
if [[ $engine == 1 ]]; then
  n="$ORACLE_OUT/$(date +%s%N)"
  printf '%s\\0' "$tool" "$@" >"$n.argv"
  env -0 >"$n.env"
fi
exit 0
`;
const SCRIPT_TOOLS = [
  'vllm',
  'sglang',
  'trtllm-serve',
  'mpirun',
  'python3',
  'python',
  'pip',
  'pip3',
  'hf',
  'nvidia-smi',
  'amd-smi',
  'rocm-smi',
  'curl',
  'sleep',
  'uv',
];

function shims(dir: string, script: string, tools: string[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'shim'), script);
  chmodSync(join(dir, 'shim'), 0o755);
  for (const t of tools) symlinkSync('shim', join(dir, t));
  return dir;
}

/** A checkout to run launchers in: the fixture tree's entries linked into a folder of its own. */
function workspace(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const e of readdirSync(TREE)) symlinkSync(join(TREE, e), join(dir, e));
  return dir;
}

function runDetached(command: string[], env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-4000)));
    child.stderr.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-4000)));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
    child.once('exit', () => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    });
    child.once('close', () => resolve(output));
  });
}

async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** Variables the workflow fills from its secrets: a site's own, not shown by a dry run. */
const SECRETS = new Set(
  Object.entries(workflow.env)
    .filter(([, v]) => String(v).includes('secrets.'))
    .map(([k]) => k),
);

const sorted = (o: Record<string, string>): [string, string][] => Object.entries(o).sort(([a], [b]) => a.localeCompare(b));

const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };

/** An environment as the comparison sees it: without the host's basics and the site's secrets. */
const settings = (env: Record<string, string>): Record<string, string> =>
  Object.fromEntries(sorted(env).filter(([k]) => !(k in BASE_ENV) && !SECRETS.has(k)));

interface Process {
  argv: string[];
  env: Record<string, string>;
}

/**
 * InferenceX's answer for a row: the script its launcher runs, with what environment, and the
 * engines it starts (none, with the script's last words, when it stops before: an agentic script
 * that patches its image's files, which the oracle has not); or why the launcher ran no script.
 */
type Answer = { script: string; env: Record<string, string>; processes: Process[]; problem?: string } | { problem: string };

/** A row's name in the golden and in the dry run: its runner label and result file name. */
const rowKey = (row: SingleNodeRow): string => `${row.runner} ${resultFilenameOf(row, 'node')}`;

/** What InferenceX does for each row, keyed by rowKey (`root`: a scratch folder). */
async function oracle(rows: readonly SingleNodeRow[], root: string): Promise<Map<string, Answer>> {
  // The launchers: which script and port, once per runner and script-naming inputs.
  const clusterBin = shims(join(root, 'cluster-bin'), CLUSTER_SHIM, CLUSTER_TOOLS);
  const checkout = workspace(join(root, 'checkout'));
  interface Launched {
    script: string;
    port: string;
    /** A launcher that starts the container with docker: exactly what its --env options pass. */
    env?: Record<string, string>;
  }
  let n = 0;
  const launch = async (row: SingleNodeRow): Promise<Launched | string> => {
    const runner = runnerOf(row);
    const out = join(root, `launched-${n++}`);
    const env = {
      ...BASE_ENV,
      ...stepEnv(row),
      PATH: `${clusterBin}:${BASE_ENV.PATH}`,
      ORACLE_OUT: out,
      GITHUB_WORKSPACE: checkout,
      USER: 'runner',
    };
    const output = await runDetached(['bash', `runners/launch_${runner.replace(/_[^_]*$/, '')}.sh`], env, checkout);
    if (!existsSync(out)) return `no script: ${output.slice(-600)}`;
    const [script, port] = readFileSync(out, 'utf8').trim().split(' ') as [string, string];
    const passed = existsSync(`${out}.env`) ? readEnv(`${out}.env`) : undefined;
    return { script: script.replace(/^\.\//, ''), port, ...(passed ? { env: passed } : {}) };
  };
  // Once per runner and script-naming inputs; per row where docker passes the row's own variables.
  const keyOf = (row: SingleNodeRow): string =>
    [runnerOf(row), row['exp-name'], row.precision, row.framework, row['spec-decoding'], row.model, row.image].join(' ');
  const byKey = new Map<string, Launched | string>();
  await pool([...new Map(rows.map((r) => [keyOf(r), r])).values()], 2, async (row) => {
    byKey.set(keyOf(row), await launch(row));
  });

  // Each row's script, run with the workflow's environment: the engines it starts.
  const scriptBin = shims(join(root, 'script-bin'), SCRIPT_SHIM, SCRIPT_TOOLS);
  const answers = new Map<string, Answer>();
  await pool(rows, 2, async (row) => {
    const first = byKey.get(keyOf(row))!;
    const l = typeof first === 'object' && first.env ? await launch(row) : first;
    if (typeof l !== 'object') {
      answers.set(rowKey(row), { problem: `the launcher ran no script: ${l}` });
      return;
    }
    const i = rows.indexOf(row);
    const out = join(root, 'started', String(i));
    mkdirSync(out, { recursive: true });
    const work = workspace(join(root, 'ws', String(i)));
    // The scripts' scratch (an agentic script's AIPerf environment under $TMPDIR) stays in the test's.
    const tmp = join(root, 'tmp', String(i));
    mkdirSync(tmp, { recursive: true });
    // srun --export=ALL passes the workflow's variables (the launcher's own site settings, cache
    // mounts and partitions, are a cluster profile's business); docker only what it names.
    const env = { ...BASE_ENV, ...(l.env ?? { ...stepEnv(row), PORT: l.port }) };
    const output = await runDetached(
      [
        'unshare',
        '--mount',
        '--propagation',
        'private',
        '--',
        'bash',
        '-c',
        'mkdir -p /workspace && mount --bind "$0" /workspace && cd /workspace && exec bash "$1"',
        work,
        l.script,
      ],
      { ...env, PATH: `${scriptBin}:${BASE_ENV.PATH}`, ORACLE_OUT: out, TMPDIR: tmp },
      work,
    );
    const calls = readdirSync(out)
      .filter((f) => f.endsWith('.argv'))
      .sort();
    const processes = calls.map((f) => {
      const argv = readFileSync(join(out, f), 'utf8').split('\0').slice(0, -1);
      const recorded = readEnv(join(out, f.replace('.argv', '.env')));
      // What the engine's environment sets: the workflow's variables and whatever the script exported.
      const own = Object.fromEntries(
        Object.entries(recorded).filter(
          ([k, v]) =>
            !['_', 'SHLVL', 'PWD', 'OLDPWD', 'ORACLE_OUT', 'PATH', 'TMPDIR'].includes(k) &&
            (k in env || (BASE_ENV as Record<string, string>)[k] !== v),
        ),
      );
      return { argv, env: settings(own) };
    });
    answers.set(
      rowKey(row),
      processes.length > 0
        ? { script: l.script, env: settings(env), processes }
        : {
            script: l.script,
            env: settings(env),
            processes: [],
            problem: `${l.script} started no engine; its output ends: ${output.slice(-600)}`,
          },
    );
    rmSync(work, { recursive: true, force: true });
  });
  return answers;
}

/**
 * A row's kind: the shape of its answer, numbers aside. What a script starts follows from its
 * environment, which is compared for every row; the stand-ins that record it care for which
 * commands run, with which options and variables, not for the numbers they carry.
 */
const kindOf = (answer: Answer): string => JSON.stringify(essence(answer)).replace(/\d+/g, '#');

/** What an answer says, without the last words of a script that started no engine (their PIDs and timings vary). */
const essence = (a: Answer): Answer => ('script' in a ? { script: a.script, env: a.env, processes: a.processes } : a);

const GOLDEN = join(BUNDLED_INFERENCEX, 'golden', 'single-node-scripts.json.gz');

/** The golden: the oracle's answers, and the checkout they were recorded on (its digest). */
interface Golden {
  tree: string;
  answers: Record<string, Answer>;
}

/** A digest of every file under `root` (links followed), by path and content. */
function digestOf(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        hash
          .update(`${relative(root, path)}\0`)
          .update(readFileSync(path))
          .update('\0');
    }
  };
  walk(root);
  return hash.digest('hex');
}
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface DryRun {
  launches: {
    runner: string;
    status: string;
    reasons?: string[];
    script?: {
      path: string;
      points: { resultFilename: string; env: Record<string, string>; processes: Process[]; problem?: string }[];
    };
  }[];
}

describe('InferenceX single-node rows run the checkout’s own benchmark scripts', () => {
  it(
    'for every single-node row of the fixture sweep, Frontier runs the script InferenceX runs, with InferenceX’s environment, and it starts what InferenceX’s would',
    { timeout: 900_000 },
    async () => {
      const rows = await singleNodeRows();
      expect(rows.length).toBeGreaterThan(600);
      const root = tempFiles({ 'clusters/node.yaml': 'scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h200\n' });

      if (UPDATE) {
        const answers = Object.fromEntries(await oracle(rows, join(root, 'all')));
        writeFileSync(GOLDEN, gzipSync(`${JSON.stringify({ tree: digestOf(TREE), answers })}\n`));
      }
      const { tree: recorded, answers: golden } = JSON.parse(gunzipSync(readFileSync(GOLDEN)).toString('utf8')) as Golden;
      const regenerate = 'UPDATE_GOLDEN=1 npx vitest run test/launch/inferencex-scripts.test.ts';
      expect(recorded, `the fixture checkout changed: ${regenerate}`).toBe(digestOf(TREE));
      expect(Object.keys(golden).sort(), `the fixture sweep changed: ${regenerate}`).toEqual(rows.map(rowKey).sort());
      const answerOf = (row: SingleNodeRow): Answer => golden[rowKey(row)]!;
      // Every launcher runs a script; every fixed-length script starts its engine.
      expect(rows.filter((r) => !('script' in answerOf(r))).map(rowKey)).toEqual([]);
      expect(rows.filter((r) => !isAgentic(r) && answerOf(r).problem).map(rowKey)).toEqual([]);

      // The script and environment of every row, as the dry run plans them.
      const cluster = await loadClusterProfile(join(root, 'clusters/node.yaml'));
      const tree = openTree(TREE);
      const mismatches: string[] = [];
      const what = (row: SingleNodeRow): string =>
        `${row.runner} ${row['exp-name']} ${row.precision} ${row.framework} conc ${row.conc}`;
      for (const g of planRun(rows, cluster.name)) {
        const planned = planLaunch(g, { cluster, frontierCommand: [process.execPath, CLI], tree });
        for (const p of g.points) {
          const row = p.row as SingleNodeRow;
          const answer = answerOf(row) as Exclude<Answer, { problem: string }>;
          const plan = planned.kind === 'script' ? planned.script : undefined;
          // A script the launcher runs but the checkout lacks (InferenceX's job fails): Frontier refuses, naming it.
          const missing = !existsSync(join(TREE, answer.script));
          if (missing) {
            if (
              planned.kind !== 'cannot-run' ||
              !planned.reasons.some((r) => r.includes(`${answer.script}, which the InferenceX checkout does not have`))
            )
              mismatches.push(
                `${what(row)}: the launcher runs ${answer.script}, which the checkout lacks; frontier does not refuse it`,
              );
          } else if (!plan)
            mismatches.push(
              `${what(row)}: frontier cannot run it: ${planned.kind === 'cannot-run' ? planned.reasons.join('; ') : planned.kind}`,
            );
          else if (plan.script !== answer.script)
            mismatches.push(`${what(row)}: frontier runs ${plan.script}, the launcher ${answer.script}`);
          else {
            const ours = settings(contractOf(plan, row, p.resultFilename));
            const differ = [...new Set([...Object.keys(ours), ...Object.keys(answer.env)])].filter(
              (k) => ours[k] !== answer.env[k],
            );
            if (differ.length > 0)
              mismatches.push(
                `${what(row)}: ${differ.map((k) => `${k} is ${ours[k] ?? '(unset)'}, the workflow's ${answer.env[k] ?? '(unset)'}`).join('; ')}`,
              );
          }
        }
      }
      expect({ count: mismatches.length, first: mismatches.slice(0, 3) }).toEqual({ count: 0, first: [] });

      // What the script starts, by the dry run, for one row of each kind; the oracle reruns on one
      // row of each script, to show the golden is still what its code records.
      const kinds = new Map<string, SingleNodeRow>();
      const runnable = rows.filter((r) => existsSync(join(TREE, (answerOf(r) as { script: string }).script)));
      for (const row of runnable) if (!kinds.has(kindOf(answerOf(row)))) kinds.set(kindOf(answerOf(row)), row);
      const chosen = [...kinds.values()];
      const scripts = new Map<string, SingleNodeRow>();
      for (const row of chosen) {
        const { script } = answerOf(row) as Exclude<Answer, { problem: string }>;
        if (!scripts.has(script)) scripts.set(script, row);
      }
      writeFileSync(join(root, 'rows.json'), JSON.stringify(chosen));
      const [dry, rerun] = await Promise.all([
        runCliAsync(
          [
            'run',
            '--matrix',
            join(root, 'rows.json'),
            '--cluster',
            'node',
            '--clusters',
            join(root, 'clusters'),
            '--inferencex',
            TREE,
            '--dry-run',
            '--format',
            'json',
          ],
          { cwd: root },
        ),
        oracle([...scripts.values()], join(root, 'rerun')),
      ]);
      expect(dry.stderr).toBe('');
      const plan = JSON.parse(dry.stdout) as DryRun;
      expect(plan.launches.filter((l) => l.status !== 'ready').map((l) => l.reasons)).toEqual([]);
      const points = new Map(
        plan.launches.flatMap((l) =>
          l.script!.points.map((p) => [`${l.runner} ${p.resultFilename}`, { path: l.script!.path, ...p }]),
        ),
      );
      expect(points.size).toBe(chosen.length);
      // Two answers, from where they first differ.
      const apart = (a: unknown, b: unknown): [string, string] => {
        const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
        let i = 0;
        while (i < x.length && x[i] === y[i]) i++;
        const from = Math.max(0, i - 300);
        return [`…${x.slice(from, i + 500)}`, `…${y.slice(from, i + 500)}`];
      };
      for (const row of chosen) {
        const answer = answerOf(row) as Exclude<Answer, { problem: string }>;
        // The golden is still what InferenceX does.
        if (rerun.has(rowKey(row)) && JSON.stringify(essence(rerun.get(rowKey(row))!)) !== JSON.stringify(essence(answer)))
          mismatches.push(
            `${what(row)}: InferenceX now ${apart(rerun.get(rowKey(row)), answer).join('\n  the golden ')}\n  (UPDATE_GOLDEN=1 rewrites it)`,
          );
        const point = points.get(rowKey(row))!;
        const ours = {
          script: point.path,
          env: settings(point.env),
          processes: point.processes.map((p) => ({ argv: p.argv, env: settings(p.env) })),
        };
        const theirs = essence(answer);
        if (JSON.stringify(ours) !== JSON.stringify(theirs))
          mismatches.push(
            `${what(row)}: frontier ${apart(ours, theirs).join('\n  InferenceX ')}${point.problem ? `\n  (${point.problem.slice(-400)})` : ''}`,
          );
      }
      expect({ count: mismatches.length, first: mismatches.slice(0, 3) }).toEqual({ count: 0, first: [] });
    },
  );
});
