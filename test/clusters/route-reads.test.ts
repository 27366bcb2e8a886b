import { describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { descriptiveFields } from '../../src/clusters/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { loadTree } from '../../src/review/index.js';
import { tempFiles } from '../helpers.js';

/**
 * Which row fields only describe a row: read off a small checkout whose launcher, library and
 * scripts read (or only validate) the variables the workflow hands them.
 */

const RUNNERS = 'labels:\n  b300:\n    - b300-nv_0\n  gb300:\n    - gb300-nv_0\n';
const LIB_VALIDATES = [
  '#!/usr/bin/env bash',
  'export PORT="${PORT:-8888}"',
  '# KV_P2P_TRANSFER is mentioned in this comment only.',
  'if [[ "${IS_AGENTIC:-0}" == "1" ]]; then',
  '    if [[ -z "${KV_OFFLOADING:-}" ]]; then',
  '        echo "Error: KV_OFFLOADING must be set" >&2',
  '        exit 1',
  '    fi',
  '    [[ "${TOTAL_CPU_DRAM_GB:-0}" =~ ^[0-9]+$ ]] || { echo "bad TOTAL_CPU_DRAM_GB" >&2; exit 1; }',
  'fi',
  '',
  'kv_offload_enabled() {',
  '    [[ "$KV_OFFLOADING" != "none" ]]',
  '}',
  '',
  'router_args() {',
  '    echo "--router $ROUTER_METADATA"',
  '}',
  '',
].join('\n');

const singleNode = (extra: Record<string, unknown> = {}): MatrixRow =>
  ({
    runner: 'b300',
    'exp-name': 'dsv4_tp8_conc4',
    precision: 'fp4',
    'scenario-type': 'agentic-coding',
    'kv-offloading': 'dram',
    ...extra,
  }) as unknown as MatrixRow;

async function fieldsOf(files: Record<string, string>, row: MatrixRow): Promise<string[]> {
  const dir = tempFiles({ 'configs/runners.yaml': RUNNERS, 'benchmarks/benchmark_lib.sh': LIB_VALIDATES, ...files });
  const describes = await descriptiveFields(await loadTree(dirSnapshot(dir)));
  return [...describes(row)].sort();
}

const LAUNCHER = 'runners/launch_b300-nv.sh';
const launcher =
  'source benchmarks/benchmark_lib.sh\nbash "benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_b300.sh"\n';
const SCRIPT = 'benchmarks/single_node/agentic/dsv4_fp4_b300.sh';
const ALL = [
  'disagg',
  'kv-offload-backend',
  'kv-offload-backend-metadata',
  'kv-offloading',
  'kv-p2p-transfer',
  'router',
  'total-cpu-dram-gb',
];

describe('descriptive row fields, read with the engine’s eyes', () => {
  it('a field whose variable the route only validates (report and exit) describes the row', async () => {
    const script = 'source "$(dirname "$0")/../../benchmark_lib.sh"\nvllm serve "$MODEL" --tensor-parallel-size "$TP"\n';
    expect(await fieldsOf({ [LAUNCHER]: launcher, [SCRIPT]: script }, singleNode())).toEqual(ALL);
  });

  it('a library function the script calls reads its variables; its last test is the answer the caller branches on', async () => {
    const script =
      'source "$(dirname "$0")/../../benchmark_lib.sh"\nFLAGS=""\nif kv_offload_enabled; then\n  FLAGS="--kv-offloading-size $TOTAL_CPU_DRAM_GB"\nfi\nvllm serve "$MODEL" $FLAGS\n';
    const fields = await fieldsOf({ [LAUNCHER]: launcher, [SCRIPT]: script }, singleNode());
    expect(fields).not.toContain('kv-offloading');
    expect(fields).not.toContain('total-cpu-dram-gb');
    expect(fields).toContain('router'); // router_args is never called
  });

  it('a message written to a file is not a report: the variable reaches what runs', async () => {
    const script = 'echo "offload: $KV_OFFLOADING" > /tmp/engine.conf\nvllm serve --config /tmp/engine.conf\n';
    expect(await fieldsOf({ [LAUNCHER]: launcher, [SCRIPT]: script }, singleNode())).not.toContain('kv-offloading');
  });

  it('a shell file named only in a comment is not on the route; one the code runs is', async () => {
    const reads = 'echo "$KV_P2P_TRANSFER" > /tmp/p2p\n';
    const commented = { [LAUNCHER]: `# see helper.sh\n${launcher}`, [SCRIPT]: 'vllm serve\n', 'runners/helper.sh': reads };
    expect(await fieldsOf(commented, singleNode())).toContain('kv-p2p-transfer');
    const run = { [LAUNCHER]: `bash runners/helper.sh\n${launcher}`, [SCRIPT]: 'vllm serve\n', 'runners/helper.sh': reads };
    expect(await fieldsOf(run, singleNode())).not.toContain('kv-p2p-transfer');
  });

  it('a multinode recipe that sets a variable does not read it; one that expands it does', async () => {
    const row = {
      runner: 'gb300',
      'exp-name': 'dsv4_p1x8_d1x8_conc4',
      conc: [4],
      precision: 'fp4',
      'scenario-type': 'agentic-coding',
      prefill: { 'additional-settings': ['CONFIG_FILE=recipes/agentic.yaml'] },
      decode: { 'additional-settings': [] },
    } as unknown as MatrixRow;
    const recipe = (env: string): string => `name: agentic\nbenchmark:\n  type: custom\n  env:\n${env}`;
    const files = (env: string): Record<string, string> => ({
      'runners/launch_gb300-nv.sh': 'srtctl apply -f "$CONFIG_FILE"\n',
      'benchmarks/multi_node/srt-slurm-recipes/agentic.yaml': recipe(env),
    });
    const sets = await fieldsOf(files('    KV_OFFLOADING: none\n'), row);
    expect(sets).toContain('kv-offloading');
    const expands = await fieldsOf(files('    KV_OFFLOADING: ${KV_OFFLOADING}\n'), row);
    expect(expands).not.toContain('kv-offloading');
  });

  it('nothing is descriptive where the route is not known here (no launcher, no script)', async () => {
    expect(await fieldsOf({ [SCRIPT]: 'vllm serve\n' }, singleNode())).toEqual([]);
    expect(await fieldsOf({ [LAUNCHER]: launcher }, singleNode())).toEqual([]);
  });

  it('a file the bash reader cannot follow counts whole', async () => {
    const script = 'if [[ "$KV_OFFLOADING" == none ]]; then\n  echo "no offload" >&2\n  exit 1\n'; // no fi
    expect(await fieldsOf({ [LAUNCHER]: launcher, [SCRIPT]: script }, singleNode())).not.toContain('kv-offloading');
  });
});
