import { chmodSync, cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { lint, review } from '../../src/review/index.js';
import type { ReviewedFinding, RuleFinding } from '../../src/review/index.js';
import { launcherSeesPower, readPowerLauncher } from '../../src/review/rules/power-lane.js';
import { copyTree, edit, write } from './edit-tree.js';
import { REPO, inferencexTree } from '../helpers.js';

/**
 * The power/… rules: InferenceX's static contract of the official GB200/GB300 dcgm-power lanes
 * (utils/test_gb200_power_official_contract.py, test_gb300_…), on the fixture copy of the real
 * launchers, workflow template and power recipes (unchanged, they give no finding), and on
 * copies with one mistake each (each gives exactly its finding, at its line, as the change's own).
 */

const FIXTURE = join(REPO, 'test/fixtures/inferencex/tree');
const GB200 = 'runners/launch_gb200-nv.sh';
const GB300 = 'runners/launch_gb300-nv.sh';
const TMPL = '.github/workflows/benchmark-multinode-tmpl.yml';
const RECIPES = 'benchmarks/multi_node/srt-slurm-recipes';
const QWEN_GB200 = `${RECIPES}/sglang/qwen3.5/gb200-fp8/8k1k/1p1d-tp4-tp4.yaml`;
const QWEN_GB300 = `${RECIPES}/sglang/qwen3.5/gb300-fp8/8k1k/1p1d-tp4-tp4.yaml`;
const PIN = '6fc1bed01a0b82dae0088a105c03ce0cfb353443';
const TELEMETRY =
  '\ntelemetry:\n  enabled: true\n  provider: dcgm-power\n  default_frequency: 1.0\n  required: true\n  dcgm_exporter:\n    container_image: dcgm-exporter\n    port: 9401\n';

/** The fixture tree with InferenceX's launchers and workflows, writable. */
function withPowerFiles(): string {
  const dir = inferencexTree();
  for (const sub of ['runners', '.github']) cpSync(join(FIXTURE, sub), join(dir, sub), { recursive: true });
  for (const f of readdirSync(join(dir, 'runners'))) chmodSync(join(dir, 'runners', f), 0o644);
  return dir;
}

const power = (findings: RuleFinding[]): RuleFinding[] => findings.filter((f) => f.rule.startsWith('power/'));
const lineOf = (dir: string, path: string, needle: string, from = 0): number => {
  const lines = readFileSync(join(dir, path), 'utf8').split('\n');
  const i = lines.findIndex((l, k) => k >= from && l.includes(needle));
  if (i < 0) throw new Error(`test setup: ${needle} not in ${path}`);
  return i + 1;
};

let base: string;
beforeAll(() => {
  base = withPowerFiles();
});

/** The power findings a change to a copy of the base makes its own: [rule, file:line]. */
async function ownPowerFindings(change: (head: string) => void): Promise<{ head: string; found: ReviewedFinding[] }> {
  const head = copyTree(base);
  change(head);
  const report = await review(dirSnapshot(base), dirSnapshot(head), { pr: 1 });
  const found = report.findings.filter((f) => f.rule.startsWith('power/'));
  expect(found.every((f) => f.status === 'new')).toBe(true);
  return { head, found };
}
const at = (f: RuleFinding, dir: string): [string, string] => [f.rule, `${f.file.slice(dir.length + 1)}:${f.line}`];

describe('the power rules on the real launchers, workflow and recipes', () => {
  it('give no finding: the official lanes hold their contract', async () => {
    const report = await lint(dirSnapshot(base));
    expect(power(report.findings)).toEqual([]);
  }, 60_000);

  it('read both launchers as InferenceX does: one pin, two pinned clones each, the framework guard', () => {
    for (const path of [GB200, GB300]) {
      const l = readPowerLauncher(path, readFileSync(join(FIXTURE, path), 'utf8'))!;
      expect(l.pin.map((a) => a.value)).toEqual([PIN]);
      expect(l.url.map((a) => a.value)).toEqual(['https://github.com/edwingao28/srt-slurm.git']);
      expect(l.lane.map((a) => a.raw)).toEqual(['0', '1']);
      expect(l.guard?.framework).toBe('dynamo-sglang');
      expect(l.producerClones).toHaveLength(2);
      for (const c of l.producerClones) expect(c.checkout && c.verify && c.stamp?.name).toBe('power-producer-sha.txt');
      expect(l.otherPowerClones).toEqual([]);
    }
    expect(
      readPowerLauncher('runners/launch_b200-dgxc.sh', readFileSync(join(FIXTURE, 'runners/launch_b200-dgxc.sh'), 'utf8')),
    ).toBe(undefined);
  });

  it("detect the lane with the launchers' line match (flow style, 4-space indent and a stray enabled do not count)", () => {
    expect(launcherSeesPower(readFileSync(join(REPO, 'test/fixtures/inferencex/tree', GB200), 'utf8'))).toBe(false);
    expect(launcherSeesPower(`model: x${TELEMETRY}`)).toBe(true);
    expect(launcherSeesPower('telemetry: {provider: dcgm-power, enabled: true}\n')).toBe(false);
    expect(launcherSeesPower('telemetry:\n    provider: dcgm-power\n    enabled: true\n')).toBe(false);
    expect(launcherSeesPower('telemetry:\n  provider: dcgm-power\nother:\n  enabled: true\n')).toBe(false);
  });
});

describe('a change that breaks the power contract gets exactly its finding', () => {
  it('power/framework: a dynamo-vllm GB200 recipe that turns dcgm-power on', async () => {
    const recipe = `${RECIPES}/vllm/deepseek-v4/8k1k/disagg-gb200-low-latency.yaml`;
    const { head, found } = await ownPowerFindings((h) =>
      writeFileSync(join(h, recipe), readFileSync(join(h, recipe), 'utf8') + TELEMETRY),
    );
    expect(found.length).toBeGreaterThan(0);
    expect(new Set(found.map((f) => f.rule))).toEqual(new Set(['power/framework']));
    expect(new Set(found.map((f) => f.key))).toEqual(new Set(['dsv4-fp4-gb200-dynamo-vllm']));
    expect(found[0]!.file.slice(head.length + 1)).toBe('configs/nvidia-master.yaml');
    expect(found[0]!.message).toContain(
      `runners/launch_gb200-nv.sh:${lineOf(base, GB200, '"$FRAMEWORK" != "dynamo-sglang"')} exits`,
    );
  });

  it('power/unsupported-launcher: a B200 recipe that turns dcgm-power on', async () => {
    const recipe = `${RECIPES}/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml`;
    const { found } = await ownPowerFindings((h) =>
      writeFileSync(join(h, recipe), readFileSync(join(h, recipe), 'utf8') + TELEMETRY),
    );
    expect(found.map((f) => [f.rule, f.key])).toEqual([['power/unsupported-launcher', 'dsv4-fp4-b200-dynamo-sglang-mtp']]);
    expect(found[0]!.message).toMatch(/through runners\/launch_b200-\S+\.sh, which has no dcgm-power lane/);
  });

  it('power/undetected-telemetry: the block in flow style', async () => {
    const { head, found } = await ownPowerFindings((h) =>
      edit(
        h,
        QWEN_GB200,
        'telemetry:\n  enabled: true\n  provider: dcgm-power',
        'telemetry: {enabled: true, provider: dcgm-power}\ntelemetry_rest:',
      ),
    );
    // telemetry_rest keeps the rest of the block parseable; only the detection matters here.
    expect(found.map((f) => at(f, head))).toEqual([
      ['power/undetected-telemetry', `${QWEN_GB200}:${lineOf(head, QWEN_GB200, 'telemetry:')}`],
    ]);
  });

  it('power/exporter-settings: a GB300 recipe on the port the cluster exporter holds, and another container alias', async () => {
    const { head, found } = await ownPowerFindings((h) => {
      edit(h, QWEN_GB300, 'port: 19401', 'port: 9401');
      edit(
        h,
        QWEN_GB200,
        'container_image: dcgm-exporter',
        'container_image: nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless',
      );
    });
    expect(found.map((f) => at(f, head)).sort()).toEqual(
      [
        ['power/exporter-settings', `${QWEN_GB200}:${lineOf(head, QWEN_GB200, 'container_image:')}`],
        ['power/exporter-settings', `${QWEN_GB300}:${lineOf(head, QWEN_GB300, 'port: 9401')}`],
      ].sort(),
    );
  });

  it('power/producer-pin: a short pin, a pin bumped in one launcher only, a pin from the environment', async () => {
    const short = await ownPowerFindings((h) => edit(h, GB200, `POWER_SRT_SLURM_PIN="${PIN}"`, 'POWER_SRT_SLURM_PIN="6fc1bed"'));
    expect(short.found.map((f) => at(f, short.head))).toEqual([['power/producer-pin', `${GB200}:17`]]);
    expect(short.found[0]!.message).toContain('not a full 40-hex commit');

    const bumped = await ownPowerFindings((h) => edit(h, GB300, PIN, 'a'.repeat(40)));
    expect(bumped.found.map((f) => at(f, bumped.head))).toEqual([['power/producer-pin', `${GB300}:179`]]);
    expect(bumped.found[0]!.message).toBe(
      `POWER_SRT_SLURM_PIN is "${'a'.repeat(40)}" here but "${PIN}" in ${GB200}:17: the power lanes of both clusters must run the same producer`,
    );

    const env = await ownPowerFindings((h) =>
      edit(h, GB300, `POWER_SRT_SLURM_PIN="${PIN}"`, `POWER_SRT_SLURM_PIN="\${POWER_SRT_SLURM_PIN:-${PIN}}"`),
    );
    expect(env.found.map((f) => at(f, env.head))).toEqual([['power/producer-pin', `${GB300}:179`]]);
    expect(env.found[0]!.message).toContain('the environment could redirect the pinned clone');
  });

  it('power/pin-literal: the pin copied into a workflow or a script, and another commit in a workflow', async () => {
    const { head, found } = await ownPowerFindings((h) => {
      edit(h, TMPL, '      power-producer-sha:\n', `      power-producer-sha:\n        default: '${PIN}'\n`);
      write(h, 'utils/show_producer.sh', `#!/bin/bash\necho "producer ${PIN}"\n`);
      edit(h, TMPL, 'run: |\n', `run: |\n          echo pinned ${'b'.repeat(40)}\n`, 'name: Process result');
    });
    expect(found.map((f) => at(f, head)).sort()).toEqual(
      [
        ['power/pin-literal', `${TMPL}:${lineOf(head, TMPL, PIN)}`],
        ['power/pin-literal', `${TMPL}:${lineOf(head, TMPL, 'b'.repeat(40))}`],
        ['power/pin-literal', 'utils/show_producer.sh:2'],
      ].sort(),
    );
  });

  it('power/pinned-clone: a power clone with no verification, one with no checkout, and a power arm cloning upstream', async () => {
    const verify =
      'test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN" || { echo "Error: srt-slurm HEAD does not match POWER_SRT_SLURM_PIN=$POWER_SRT_SLURM_PIN" >&2; exit 1; }\n';
    const { head, found } = await ownPowerFindings((h) => {
      edit(h, GB200, `        ${verify}`, '', 'elif [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "qwen3.5" ]]');
      edit(h, GB300, '        git checkout "$POWER_SRT_SLURM_PIN" || exit 1\n', '');
    });
    const gb200Clone = lineOf(
      head,
      GB200,
      'git clone "$POWER_SRT_SLURM_URL"',
      lineOf(head, GB200, '$MODEL_PREFIX == "qwen3.5" ]]'),
    );
    expect(found.map((f) => at(f, head))).toEqual([
      ['power/pinned-clone', `${GB200}:${gb200Clone}`],
      ['power/pinned-clone', `${GB300}:${lineOf(head, GB300, 'git clone "$POWER_SRT_SLURM_URL"')}`],
    ]);
    expect(found[0]!.message).toMatch(/never verifies HEAD against the pin$/);
    expect(found[1]!.message).toMatch(/never checks out "\$POWER_SRT_SLURM_PIN"/);

    const upstream = await ownPowerFindings((h) =>
      edit(
        h,
        GB200,
        'git clone "$POWER_SRT_SLURM_URL" "$SRT_REPO_DIR"',
        'git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"',
      ),
    );
    expect(upstream.found.map((f) => at(f, upstream.head))).toEqual([
      ['power/pinned-clone', `${GB200}:${lineOf(base, GB200, 'git clone "$POWER_SRT_SLURM_URL"')}`],
    ]);
    expect(upstream.found[0]!.message).toContain('clones https://github.com/NVIDIA/srt-slurm.git instead of the pinned producer');
  });

  it('power/stamp: the workflow reads another stamp, drops the -z guard, or hard-codes POWER_PRODUCER_SHA', async () => {
    const renamed = await ownPowerFindings((h) => edit(h, TMPL, '"$(cat power-producer-sha.txt)"', '"$(cat producer-sha.txt)"'));
    expect(renamed.found.map((f) => at(f, renamed.head))).toEqual([['power/stamp', `${TMPL}:404`]]);
    expect(renamed.found[0]!.message).toContain(
      'reads the producer stamp producer-sha.txt, but the launchers write power-producer-sha.txt',
    );

    const unguarded = await ownPowerFindings((h) =>
      edit(
        h,
        TMPL,
        'if [ -z "$POWER_PRODUCER_SHA" ] && [ -f power-producer-sha.txt ]; then',
        'if [ -f power-producer-sha.txt ]; then',
      ),
    );
    expect(unguarded.found.map((f) => at(f, unguarded.head))).toEqual([['power/stamp', `${TMPL}:404`]]);

    const hardcoded = await ownPowerFindings((h) =>
      edit(h, TMPL, 'POWER_PRODUCER_SHA: ${{ inputs.power-producer-sha }}', 'POWER_PRODUCER_SHA: 6fc1bed'),
    );
    expect(hardcoded.found.map((f) => at(f, hardcoded.head))).toEqual([['power/stamp', `${TMPL}:249`]]);

    // The full pin hard-coded is both mistakes: a copied pin and a hard-coded producer.
    const pinned = await ownPowerFindings((h) =>
      edit(h, TMPL, 'POWER_PRODUCER_SHA: ${{ inputs.power-producer-sha }}', `POWER_PRODUCER_SHA: ${PIN}`),
    );
    expect(pinned.found.map((f) => at(f, pinned.head)).sort()).toEqual([
      ['power/pin-literal', `${TMPL}:249`],
      ['power/stamp', `${TMPL}:249`],
    ]);
  });

  it('power/lane-gate: a lane the environment can turn on, and a launcher without the framework guard', async () => {
    const env = await ownPowerFindings((h) => edit(h, GB300, 'USES_DCGM_POWER=0', 'USES_DCGM_POWER="${USES_DCGM_POWER:-0}"'));
    expect(env.found.map((f) => at(f, env.head))).toEqual([['power/lane-gate', `${GB300}:151`]]);

    const guard = await ownPowerFindings((h) =>
      edit(h, GB200, 'if [[ "$USES_DCGM_POWER" == "1" && "$FRAMEWORK" != "dynamo-sglang" ]]; then', 'if false; then'),
    );
    expect(guard.found.map((f) => at(f, guard.head))).toEqual([['power/lane-gate', `${GB200}:302`]]);
  });

  it('power/exporter-provisioning: a moving exporter image, and an exporter never hashed', async () => {
    const { head, found } = await ownPowerFindings((h) => {
      edit(h, GB200, 'dcgm-exporter:4.6.0-4.8.3-distroless"', 'dcgm-exporter:latest"');
      edit(h, GB300, '    sha256sum "$DCGM_EXPORTER_SQSH" > "$GITHUB_WORKSPACE/exporter-image.sha256"\n', '');
    });
    expect(found.map((f) => at(f, head))).toEqual([
      ['power/exporter-provisioning', `${GB200}:${lineOf(head, GB200, 'DCGM_EXPORTER_IMAGE=')}`],
      ['power/exporter-provisioning', `${GB300}:${lineOf(head, GB300, 'DCGM_EXPORTER_IMAGE=')}`],
    ]);
    expect(found[0]!.message).toContain('not a fixed image');
    expect(found[1]!.message).toContain('never hashes the exporter image');
  });

  it('power/telemetry-optional: a power recipe whose telemetry is not required (a warning)', async () => {
    const { head, found } = await ownPowerFindings((h) => edit(h, QWEN_GB300, 'required: true', 'required: false', 'telemetry:'));
    expect(found.map((f) => [...at(f, head), f.severity])).toEqual([
      ['power/telemetry-optional', `${QWEN_GB300}:${lineOf(head, QWEN_GB300, 'required: false')}`, 'warning'],
    ]);
  });

  it('an unrelated edit of a power launcher or the workflow makes no power finding', async () => {
    const { found } = await ownPowerFindings((h) => {
      edit(h, GB200, 'echo "Cloning srt-slurm repository..."', 'echo "Cloning the srt-slurm repository..."');
      edit(h, TMPL, 'echo "Processing $result_file"', 'echo "Processing result $result_file"');
    });
    expect(found).toEqual([]);
  });
});
