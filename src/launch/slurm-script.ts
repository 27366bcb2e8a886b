import { dirname } from 'node:path';
import { shellQuote } from '../engines/index.js';
import type { EngineProcess, Launch } from '../engines/index.js';
import { expandPath } from '../clusters/index.js';
import type { ClusterProfile } from '../clusters/index.js';

/**
 * The sbatch script of one launch: the allocation (nodes, one task per node, GPUs per node, time
 * limit, partition and account), the nodes' addresses, one background `srun` step per engine
 * process on its node (in the cluster's container runtime when the engine has an image), the
 * readiness barrier (`frontier probe`, which fails at once when a step dies), then one
 * `frontier bench` per point. A step that ends is logged to `exits.txt` with its status, so the
 * collector can tell an engine that died from a benchmark that failed; `ready.txt`, written once the
 * barrier passes, tells a launch that never served (an infrastructure failure) from one that did.
 * Pure: text in, text out.
 */

export interface JobPoint {
  conc: number;
  /** `frontier bench` arguments, after the command itself. */
  benchArgs: string[];
}

export interface JobSpec {
  jobName: string;
  title: string;
  nodes: number;
  /** Where the job writes its output, the steps' logs and exits.txt. */
  logDir: string;
  /** Run the engine processes in the cluster's container runtime, from this image. */
  image: string | undefined;
  launch: Launch;
  points: JobPoint[];
  /** `frontier eval gsm8k` runs after the points (arguments after the command). */
  evals: { concs: number[]; tasks: string[]; args: string[] }[];
  /** How to run frontier on the nodes. */
  frontier: string[];
  /** Lines for the header (toolchain, routing). */
  notes: string[];
  /** GPU power telemetry on the first node, stopped after the last benchmark (docs/power.md). */
  power?: JobPower | undefined;
}

export interface JobPower {
  /** The run's clock (FRONTIER_CLOCK_ANCHOR, exported for every step). */
  clockAnchorMs: number;
  /** `frontier telemetry sample` arguments, after the command itself. */
  samplerArgs: string[];
  /** Exported for every step: the simulated engine's GPU registry (its engines write there, its tools read it). */
  env: Record<string, string>;
  /** Put first on the sampler's PATH. */
  pathPrefix?: string | undefined;
  /** Seconds to let the monitor sample past the last window before it is stopped. */
  settleSeconds: number;
  /** Where to record the UTC offset the job runs in (`date +%z`: an agentic replay's naive times). */
  offsetFile?: string | undefined;
}

const q = shellQuote;

/** The cluster's container mounts, as srun, apptainer and docker take them (`src:dst[:ro]`). */
export const containerMounts = (cluster: ClusterProfile): string[] =>
  cluster.container.mounts.map((m) => `${expandPath(m.source)}:${expandPath(m.target)}${m.readOnly ? ':ro' : ''}`);

/** pyxis' image: a squash file imported once into squash-dir, else the image itself. */
export const pyxisImage = (cluster: ClusterProfile, image: string): string =>
  cluster.container.squashDir ? `${expandPath(cluster.container.squashDir)}/${image.replace(/[/:@#]/g, '_')}.sqsh` : image;

/** A batch job's `#SBATCH` lines: its name, nodes, one task per node, GPUs, and the cluster's settings. */
export function sbatchHeader(
  cluster: ClusterProfile,
  o: { jobName: string; nodes: number; logDir: string; gpus: boolean },
): string[] {
  const directives = [
    `--job-name=${o.jobName}`,
    `--nodes=${o.nodes}`,
    '--ntasks-per-node=1',
    ...(o.gpus && cluster.gpusPerNode > 0 ? [`--gpus-per-node=${cluster.gpusPerNode}`] : []),
    `--time=${cluster.timeLimitMinutes}`,
    ...(cluster.partition ? [`--partition=${cluster.partition}`] : []),
    ...(cluster.account ? [`--account=${cluster.account}`] : []),
    ...(cluster.qos ? [`--qos=${cluster.qos}`] : []),
    ...(cluster.reservation ? [`--reservation=${cluster.reservation}`] : []),
    `--output=${o.logDir}/slurm-%j.out`,
    ...cluster.sbatchDirectives,
  ];
  return directives.map((d) => `#SBATCH ${d}`);
}

function containerPrefix(cluster: ClusterProfile, image: string, p: EngineProcess): string[] {
  const mounts = containerMounts(cluster);
  switch (cluster.container.runtime) {
    case 'enroot': {
      // pyxis: srun imports the image (or runs a squash file imported once into squash-dir).
      return [
        `--container-image=${pyxisImage(cluster, image)}`,
        ...(mounts.length > 0 ? [`--container-mounts=${mounts.join(',')}`] : []),
        '--no-container-mount-home',
        '--no-container-entrypoint',
      ];
    }
    case 'apptainer':
      return ['apptainer', 'exec', '--nv', ...mounts.flatMap((m) => ['--bind', m]), `docker://${image}`];
    case 'docker':
      return [
        'docker',
        'run',
        '--rm',
        '--network=host',
        '--ipc=host',
        ...(p.gpus.length > 0 ? [`--gpus="device=${p.gpus.join(',')}"`] : []),
        ...mounts.flatMap((m) => ['-v', m]),
        image,
      ];
    case 'none':
      return [];
  }
}

function stepCommand(cluster: ClusterProfile, spec: JobSpec, p: EngineProcess, node: number): string {
  const env = { ...(p.gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: p.gpus.join(',') } : {}), ...p.env };
  const srun = [
    'srun',
    '--overlap',
    '--nodes=1',
    '--ntasks=1',
    `--nodelist=\${NODE_NAMES[${node}]}`,
    `--output=${spec.logDir}/${p.name}.log`,
  ];
  const container = spec.image ? containerPrefix(cluster, spec.image, p) : [];
  // srun's own container flags come before the command; apptainer/docker are the command's head.
  const srunFlags = container.filter((c) => c.startsWith('--'));
  const head = container.filter((c) => !c.startsWith('--'));
  const words = [
    ...srun.map((w) => (w.includes('${NODE_NAMES') ? `"${w}"` : q(w))),
    ...srunFlags.map(q),
    // The log's first line names the node the step runs on, in Slurm's words.
    'bash',
    '-c',
    q('echo "frontier: $0 on node $SLURMD_NODENAME"; exec "$@"'),
    q(p.name),
    ...head.map(q),
    'env',
    ...Object.entries(env).map(([k, v]) => `${k}=${q(v)}`),
    ...p.command.map(q),
  ];
  return words.join(' ');
}

const nodeIndex = (host: string): number => {
  const m = /^\$\{NODES\[(\d+)\]\}$/.exec(host);
  if (!m) throw new Error(`job script hosts must be \${NODES[i]} expressions, got ${host}`);
  return Number(m[1]);
};

export function renderJobScript(cluster: ClusterProfile, spec: JobSpec): string {
  const out: string[] = [
    '#!/bin/bash',
    ...sbatchHeader(cluster, { jobName: spec.jobName, nodes: spec.nodes, logDir: spec.logDir, gpus: true }),
    `# ${spec.title}`,
    '# Rendered by frontier run: engine steps, readiness barrier, one benchmark per concurrency.',
    ...spec.notes.map((n) => `# ${n}`),
    '# shellcheck disable=SC2016 # each step’s wrapper expands $0 and $SLURMD_NODENAME on its node',
    'set -uo pipefail',
    `LOG_DIR=${q(spec.logDir)}`,
    `FRONTIER=(${spec.frontier.map(q).join(' ')})`,
    'mkdir -p "$LOG_DIR"',
    ': >"$LOG_DIR/exits.txt"',
    'rm -f "$LOG_DIR/ready.txt"',
    '',
    '# The allocation’s nodes, and the address of each (what the engines bind and dial).',
    'mapfile -t NODE_NAMES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")',
    'NODES=()',
    'for name in "${NODE_NAMES[@]}"; do',
    `  NODES+=("$(scontrol show node "$name" -o | sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p')")`,
    'done',
    '',
    'pids=()',
    'monitor=',
    'cleanup() {',
    '  for pid in "${pids[@]}" $monitor; do kill "$pid" 2>/dev/null || true; done',
    '  wait',
    '}',
    'trap cleanup EXIT',
    'trap "exit 143" TERM INT',
    '',
  ];
  const power = spec.power;
  if (power) {
    out.push(
      '# The run’s clock, and what the simulated engine’s GPU tools read: for every step.',
      `export FRONTIER_CLOCK_ANCHOR=${power.clockAnchorMs}`,
      ...Object.entries(power.env).map(([k, v]) => `export ${k}=${q(v)}`),
      ...(power.offsetFile ? [`mkdir -p ${q(dirname(power.offsetFile))} && date +%z >${q(power.offsetFile)}`] : []),
      '# GPU power telemetry on the first node, from before the engine until after the last benchmark.',
      `srun --overlap --nodes=1 --ntasks=1 "--nodelist=\${NODE_NAMES[0]}" --output="$LOG_DIR/telemetry.log" \\`,
      `  ${power.pathPrefix ? `env PATH=${q(power.pathPrefix)}:"$PATH" ` : ''}"\${FRONTIER[@]}" ${power.samplerArgs.map(q).join(' ')} &`,
      'monitor=$!',
      '',
    );
  }
  for (const p of spec.launch.processes) {
    const node = nodeIndex(p.host);
    out.push(`# ${p.name} (${p.role}) on node ${node}${p.gpus.length > 0 ? `, GPUs ${p.gpus.join(',')}` : ''}`);
    out.push(`(${stepCommand(cluster, spec, p, node)}; echo "${p.name} $?" >>"$LOG_DIR/exits.txt") &`);
    out.push('pids+=($!)', '');
  }
  const url = (host: string, port: number, path: string, contains?: string): string =>
    q(`http://${host}:${port}${path}${contains === undefined ? '' : `@${contains}`}`);
  const probes = [
    ...spec.launch.processes.flatMap((p) => (p.ready ?? []).map((r) => url(p.host, p.port!, r.path, r.contains))),
    ...spec.launch.ready.map((r) => url(spec.launch.endpoint.host, spec.launch.endpoint.port, r.path, r.contains)),
  ];
  out.push(
    '# Readiness barrier: every process and the endpoint answer; stop at once if a step ends.',
    `watch=(); for pid in "\${pids[@]}"; do watch+=(--watch-pid "$pid"); done`,
    `if ! "\${FRONTIER[@]}" probe --attempts ${cluster.healthCheck.attempts} --interval ${cluster.healthCheck.intervalSeconds} "\${watch[@]}" \\`,
    `    ${probes.join(' \\\n    ')}; then`,
    '  echo "frontier: the engine did not become ready" >&2',
    '  exit 1',
    'fi',
    '# From here on a failure is the measurement’s, not the node’s (the executor reads this).',
    'date -u +%Y-%m-%dT%H:%M:%SZ >"$LOG_DIR/ready.txt"',
    '',
  );
  for (const point of spec.points) {
    out.push(
      `# conc ${point.conc}`,
      `"\${FRONTIER[@]}" ${point.benchArgs.map(q).join(' ')} ||`,
      `  echo "frontier: the benchmark at conc ${point.conc} exited $?" >&2`,
    );
  }
  if (power)
    out.push(
      '# Stop the power telemetry once it has sampled past the last window.',
      `sleep ${power.settleSeconds}`,
      'kill -TERM "$monitor"; wait "$monitor"; monitor=',
      '',
    );
  for (const e of spec.evals) {
    out.push(
      `# eval ${e.tasks.join(', ')} at conc ${e.concs.join(', ')}`,
      `"\${FRONTIER[@]}" ${e.args.map(q).join(' ')} ||`,
      `  echo "frontier: the eval at conc ${e.concs.join(', ')} exited $?" >&2`,
    );
  }
  out.push('');
  return out.join('\n');
}
