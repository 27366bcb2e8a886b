// Frontier runs a single-node row of an InferenceX checkout through the checkout's own benchmark
// script. The oracle here is InferenceX itself, driven by code of this test only:
// - which script, and the port: the row's launcher (runners/launch_<runner>.sh) run under shims for
//   the cluster tools (salloc, srun, docker…) that catch the `bash <script>` it runs;
// - the environment: the `env:` block of .github/workflows/benchmark-tmpl.yml, evaluated for the
//   row, plus what its "Launch job script" step exports;
// - what the script starts: the script run with that environment under shims that record each
//   engine's argv and environment.
// Frontier's `run --dry-run --format json` must show the same for every single-node row of the
// fixture sweep.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { SingleNodeRow } from '../../src/matrix/index.js';
import { resultFilenameOf } from '../../src/results/index.js';
import { runCliAsync, tempFiles } from '../helpers.js';
import { FIXTURE_TREE, fixtureSweep } from './fixtures.js';

const TREE = FIXTURE_TREE;

async function singleNodeRows(): Promise<SingleNodeRow[]> {
  const rows = await fixtureSweep();
  return rows.filter(
    (r): r is SingleNodeRow => !('prefill' in r) && (r as { 'scenario-type'?: string })['scenario-type'] !== 'agentic-coding',
  );
}

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

/** The workflow's inputs for a row, as the calling workflow passes a matrix entry (absent → default). */
function inputsOf(row: SingleNodeRow): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [name, spec] of Object.entries(workflow.on.workflow_call.inputs)) {
    const value = (row as unknown as Record<string, unknown>)[name] ?? spec.default;
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
    if (term.startsWith("'")) return term.slice(1, -1);
    if (term.startsWith('inputs.')) return inputs[term.slice('inputs.'.length)] ?? '';
    if (term.startsWith('secrets.')) return '';
    const eq = /^(.+?)\s*==\s*(.+)$/.exec(term);
    if (eq) return value(eq[1]!) === value(eq[2]!);
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
  python3) if [[ "$1" == -m && "$2" != pip ]]; then engine=1; fi ;;
  curl) exit 7 ;;
  sleep) exec /bin/sleep 0.01 ;;
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
  'pip',
  'pip3',
  'hf',
  'nvidia-smi',
  'amd-smi',
  'rocm-smi',
  'curl',
  'sleep',
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

describe('InferenceX single-node rows run the checkout’s own benchmark scripts', () => {
  it(
    'for every single-node row of the fixture sweep, the dry run shows the script InferenceX runs and what it starts, with InferenceX’s environment',
    { timeout: 900_000 },
    async () => {
      const rows = await singleNodeRows();
      expect(rows.length).toBeGreaterThan(600);
      const root = tempFiles({ 'clusters/node.yaml': 'scheduler: local\nnodes: 1\ngpus-per-node: 8\ngpu: h200\n' });
      writeFileSync(join(root, 'rows.json'), JSON.stringify(rows));

      // Frontier's dry run, while the oracle works.
      const product = runCliAsync(
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
      );

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
      const launched = new Map<SingleNodeRow, Launched | string>();
      await pool(rows, 2, async (row) => {
        const first = byKey.get(keyOf(row))!;
        launched.set(row, typeof first === 'object' && first.env ? await launch(row) : first);
      });

      // Each row's script, run with the workflow's environment: the engines it starts.
      const scriptBin = shims(join(root, 'script-bin'), SCRIPT_SHIM, SCRIPT_TOOLS);
      const started = new Map<SingleNodeRow, { argv: string[]; env: Record<string, string> }[]>();
      const expectedEnv = new Map<SingleNodeRow, Record<string, string>>();
      const resultName = new Map<SingleNodeRow, string>();
      const scriptOutput = new Map<SingleNodeRow, string>();
      const dry = await product;
      expect(dry.stderr).toBe('');
      const plan = JSON.parse(dry.stdout) as {
        launches: {
          runner: string;
          status: string;
          reasons?: string[];
          script?: {
            path: string;
            runner: string;
            points: {
              conc: number;
              resultFilename: string;
              env: Record<string, string>;
              processes: { argv: string[]; env: Record<string, string> }[];
            }[];
          };
        }[];
      };
      // Each row is one point of the dry run (rows that share a launch differ in conc), named as results are.
      const byName = new Map(
        plan.launches.flatMap((l) =>
          l.script ? l.script.points.map((p) => [`${l.runner} ${p.resultFilename}`, { launch: l, point: p }] as const) : [],
        ),
      );
      const refused = plan.launches.filter((l) => l.status !== 'ready');
      expect(refused.map((l) => l.reasons)).toEqual([]);
      expect(byName.size).toBe(rows.length);
      for (const row of rows) resultName.set(row, resultFilenameOf(row, 'node'));

      await pool(rows, 2, async (row) => {
        const l = launched.get(row);
        if (typeof l !== 'object') return;
        const out = join(root, 'started', String(rows.indexOf(row)));
        mkdirSync(out, { recursive: true });
        const work = workspace(join(root, 'ws', String(rows.indexOf(row))));
        // srun --export=ALL passes the workflow's variables (the launcher's own site settings, cache
        // mounts and partitions, are a cluster profile's business); docker only what it names.
        const env = { ...BASE_ENV, ...(l.env ?? { ...stepEnv(row), PORT: l.port }) };
        expectedEnv.set(row, env);
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
          { ...env, PATH: `${scriptBin}:${BASE_ENV.PATH}`, ORACLE_OUT: out },
          work,
        );
        scriptOutput.set(row, output);
        const calls = readdirSync(out)
          .filter((f) => f.endsWith('.argv'))
          .sort();
        started.set(
          row,
          calls.map((f) => {
            const argv = readFileSync(join(out, f), 'utf8').split('\0').slice(0, -1);
            const recorded = Object.fromEntries(
              readFileSync(join(out, f.replace('.argv', '.env')), 'utf8')
                .split('\0')
                .filter(Boolean)
                .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
            );
            // What the engine's environment sets: the workflow's variables and whatever the script exported.
            const own = Object.fromEntries(
              Object.entries(recorded).filter(
                ([k, v]) =>
                  !['_', 'SHLVL', 'PWD', 'OLDPWD', 'ORACLE_OUT', 'PATH'].includes(k) &&
                  (k in env || (BASE_ENV as Record<string, string>)[k] !== v),
              ),
            );
            return { argv, env: own };
          }),
        );
        rmSync(work, { recursive: true, force: true });
      });

      const mismatches: string[] = [];
      let engines = 0;
      rows.forEach((row, i) => {
        const { launch, point } = byName.get(`${row.runner} ${resultName.get(row)!}`)!;
        const l = launched.get(row);
        const what = `row ${i} (${row.runner} ${row['exp-name']} ${row.precision} ${row.framework} conc ${row.conc})`;
        if (typeof l !== 'object') {
          mismatches.push(`${what}: the launcher ran no script: ${l}`);
          return;
        }
        if (launch.script!.path !== l.script)
          mismatches.push(`${what}: frontier runs ${launch.script!.path}, the launcher ${l.script}`);
        const env = Object.fromEntries(
          Object.entries(expectedEnv.get(row)!).filter(([k]) => !(k in BASE_ENV) && !SECRETS.has(k)),
        );
        if (JSON.stringify(sorted(point.env)) !== JSON.stringify(sorted(env)))
          mismatches.push(
            `${what}: frontier's environment ${JSON.stringify(sorted(point.env))}\n  the workflow's ${JSON.stringify(sorted(env))}`,
          );
        const theirs = started.get(row) ?? [];
        const ours = point.processes;
        engines += theirs.length;
        const strip = (x: { argv: string[]; env: Record<string, string> }[]): unknown =>
          x.map((p) => ({
            argv: p.argv,
            env: sorted(Object.fromEntries(Object.entries(p.env).filter(([k]) => !(k in BASE_ENV) && !SECRETS.has(k)))),
          }));
        if (JSON.stringify(strip(ours)) !== JSON.stringify(strip(theirs)))
          mismatches.push(
            `${what}: frontier records ${JSON.stringify(strip(ours)).slice(0, 800)}\n  the script starts ${JSON.stringify(strip(theirs)).slice(0, 800)}${theirs.length === 0 ? `\n  its output ends: ${scriptOutput.get(row)!.slice(-600)}` : ''}`,
          );
      });
      expect({ count: mismatches.length, first: mismatches.slice(0, 3) }).toEqual({ count: 0, first: [] });
      expect(engines).toBeGreaterThanOrEqual(rows.length);
    },
  );
});
