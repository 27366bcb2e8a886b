import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { lint, review } from '../../src/review/index.js';
import type { RuleFinding } from '../../src/review/index.js';
import { copyTree, edit, write } from './edit-tree.js';
import { REPO, inferencexTree } from '../helpers.js';

/**
 * The specdec/… rules on the fixture copy of the real InferenceX tree (master configs, the 469
 * srt-slurm recipes, runners/ with the synthetic-acceptance injector, agentic scripts that pin
 * acceptance through each engine's knob, and the golden curves), unchanged and with one mistake
 * per edit: a wrong AL, an unguarded eval, a draft length off the curve, a thinking mode the
 * curve was not measured in, and settings the injector cannot apply.
 */

const FIXTURE = join(REPO, 'test/fixtures/inferencex');
const GOLDEN = join(REPO, 'src/specdec/golden-al');
const AGENTIC = 'benchmarks/single_node/agentic';
const SPECDEC_SCRIPTS = [
  'dsv4_fp4_b300_vllm_mtp.sh',
  'dsv4_fp4_mi355x_atom_mtp.sh',
  'dsv4_fp4_mi355x_sglang_mtp.sh',
  'glm5.2_fp4_b300_sglang_mtp.sh',
  'kimik3_fp4_b300_vllm_mtp.sh',
  'minimaxm3_fp4_b300_mtp.sh',
  'minimaxm3_fp4_b300_trt_mtp.sh',
  'qwen3.5_fp8_h200_mtp.sh',
];
const RECIPES = 'benchmarks/multi_node/srt-slurm-recipes';
const CONFIG = 'configs/nvidia-master.yaml';

function specdecTree(): string {
  const dir = inferencexTree();
  cpSync(join(FIXTURE, 'tree/runners'), join(dir, 'runners'), { recursive: true });
  for (const f of readdirSync(join(dir, 'runners'))) if (f.endsWith('.sh')) chmodSync(join(dir, 'runners', f), 0o644);
  // The agentic scripts that pin synthetic acceptance through each engine's knob.
  mkdirSync(join(dir, AGENTIC), { recursive: true });
  for (const script of SPECDEC_SCRIPTS) cpSync(join(FIXTURE, 'tree', AGENTIC, script), join(dir, AGENTIC, script));
  cpSync(GOLDEN, join(dir, 'golden_al_distribution'), { recursive: true, filter: (p) => !p.endsWith('README.md') });
  return dir;
}

const specdec = (findings: RuleFinding[]): RuleFinding[] => findings.filter((f) => f.rule.startsWith('specdec/'));
const where = (f: RuleFinding, dir: string): string => `${f.rule} ${f.file.replace(`${dir}/`, '')}:${f.line}`;
const lineOf = (dir: string, path: string, needle: string, from = 1): number => {
  const lines = readFileSync(join(dir, path), 'utf8').split('\n');
  const i = lines.findIndex((l, k) => k >= from - 1 && l.includes(needle));
  if (i < 0) throw new Error(`test setup: ${needle} not in ${path}`);
  return i + 1;
};

let base: string;
beforeAll(() => {
  base = specdecTree();
});

describe('specdec rules on the real InferenceX tree', () => {
  it('pass the real scripts and recipes, and catch the four entries that pin the draft-3 AL on a draft-2 recipe', async () => {
    const { findings } = await lint(dirSnapshot(base));
    const found = specdec(findings);
    // Every script and recipe value is the golden one: no finding names them as wrong.
    expect(found.filter((f) => f.rule !== 'specdec/eval-injection-on-request' && !f.file.endsWith(CONFIG))).toEqual([]);
    const errors = found.filter((f) => f.severity === 'error');
    expect(errors.map((f) => where(f, base))).toEqual([7744, 7760, 7792, 7809].map((n) => `specdec/golden-al ${CONFIG}:${n}`));
    for (const f of errors) {
      expect(f.message).toContain('SYNTHETIC_ACCEPTANCE_LENGTH=2.49');
      expect(f.message).toContain(
        'deepseek-v4-pro at draft length 2: 2.27 (thinking_on, golden_al_distribution/dsv4_mtp.yaml:12)',
      );
      expect(f.hint).toContain('set SYNTHETIC_ACCEPTANCE_LENGTH to 2.27');
    }
    // Agentic recipes that hard-code the knob serve requested evals with it: a warning per recipe.
    const onRequest = found.filter((f) => f.rule === 'specdec/eval-injection-on-request');
    expect(onRequest.every((f) => f.severity === 'warning' && f.file.includes('/agentic/'))).toBe(true);
    expect(onRequest.length).toBeGreaterThan(0);
  });

  it('report each mistake, where it is written, with the value it should be', async () => {
    const head = copyTree(base);
    // Wrong AL: SGLang 3.40 for Qwen3.5 at 3 drafts (golden 3.39); TRT-LLM's knob counts drafts only.
    edit(head, `${AGENTIC}/qwen3.5_fp8_h200_mtp.sh`, 'SGLANG_SIMULATE_ACC_LEN=3.39', 'SGLANG_SIMULATE_ACC_LEN=3.40');
    edit(
      head,
      `${AGENTIC}/minimaxm3_fp4_b300_trt_mtp.sh`,
      'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.78',
      'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.78',
    );
    // Wrong AL in a master config: 2.5 for DeepSeek-V4 on a 3-draft recipe (golden 2.49).
    edit(head, CONFIG, 'SYNTHETIC_ACCEPTANCE_LENGTH=2.49', 'SYNTHETIC_ACCEPTANCE_LENGTH=2.5', 'dsv4-fp4-b200-dynamo-vllm-mtp:');
    // Unknown draft length: Kimi-K3's low-concurrency arm at 9 drafts.
    edit(head, `${AGENTIC}/kimik3_fp4_b300_vllm_mtp.sh`, 'NUM_SPEC_TOKENS=7', 'NUM_SPEC_TOKENS=9');
    // Eval-only with injection: the synthetic speculative config no longer depends on EVAL_ONLY.
    edit(
      head,
      `${AGENTIC}/dsv4_fp4_b300_vllm_mtp.sh`,
      'if [ "${EVAL_ONLY:-false}" = "true" ]; then',
      'if [ "$CONC" -gt 512 ]; then',
    );
    // Thinking mode: MiniMax-M3 served with thinking disabled, still pinned to the thinking_on value.
    edit(head, `${AGENTIC}/minimaxm3_fp4_b300_mtp.sh`, `'{"thinking_mode":"enabled"}'`, `'{"thinking_mode":"disabled"}'`);

    const report = await review(dirSnapshot(base), dirSnapshot(head), { pr: 1 });
    const own = report.findings.filter((f) => f.rule.startsWith('specdec/') && f.status === 'new');
    const line = (path: string, needle: string, from?: number): string => `${path}:${lineOf(head, path, needle, from)}`;
    expect(own.map((f) => where(f, head)).sort()).toEqual(
      [
        `specdec/golden-al ${line(`${AGENTIC}/qwen3.5_fp8_h200_mtp.sh`, 'SGLANG_SIMULATE_ACC_LEN=3.40')}`,
        `specdec/golden-al ${line(`${AGENTIC}/minimaxm3_fp4_b300_trt_mtp.sh`, 'FORCE_NUM_ACCEPTED_TOKENS=2.78')}`,
        `specdec/golden-al ${line(CONFIG, 'SYNTHETIC_ACCEPTANCE_LENGTH=2.5"', lineOf(head, CONFIG, 'dsv4-fp4-b200-dynamo-vllm-mtp:'))}`,
        `specdec/draft-length ${line(`${AGENTIC}/kimik3_fp4_b300_vllm_mtp.sh`, 'SYNTHETIC_ACCEPT_LEN=3.84')}`,
        `specdec/eval-injection ${line(`${AGENTIC}/dsv4_fp4_b300_vllm_mtp.sh`, '"synthetic_acceptance_length\\": 2.49')}`,
        `specdec/thinking-mode ${line(`${AGENTIC}/minimaxm3_fp4_b300_mtp.sh`, 'SYNTHETIC_ACCEPT_LEN=2.78')}`,
      ].sort(),
    );
    const by = (rule: string, file: string): RuleFinding => own.find((f) => f.rule === rule && f.file.endsWith(file))!;
    expect(by('specdec/golden-al', 'qwen3.5_fp8_h200_mtp.sh').message).toContain(
      'golden AL of qwen3.5-397b-a17b-nvfp4 at draft length 3: 3.39',
    );
    const trt = by('specdec/golden-al', 'minimaxm3_fp4_b300_trt_mtp.sh');
    expect(trt.message).toContain('(AL 3.78)');
    expect(trt.hint).toContain('set TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS to 1.78');
    expect(by('specdec/golden-al', CONFIG).hint).toContain('to 2.49');
    expect(by('specdec/draft-length', 'kimik3_fp4_b300_vllm_mtp.sh').message).toContain(
      'draft length 9 is not on the golden AL curve of kimi-k3',
    );
    expect(by('specdec/thinking-mode', 'minimaxm3_fp4_b300_mtp.sh').message).toContain(
      'is the thinking_on golden AL of minimax-m3',
    );
    expect(by('specdec/eval-injection', 'dsv4_fp4_b300_vllm_mtp.sh').message).toContain('whether or not EVAL_ONLY is true');
    expect(report.ok).toBe(false);
  });

  it('catch injection that cannot happen, and recipes whose evals would get it', async () => {
    const head = copyTree(base);
    // A length without SYNTHETIC_ACCEPTANCE=true does nothing.
    edit(head, CONFIG, '          - "SYNTHETIC_ACCEPTANCE=true"\n', '', 'dsv4-fp4-b200-dynamo-vllm-mtp:');
    // No injector backend for TensorRT-LLM.
    edit(
      head,
      CONFIG,
      '- "CONFIG_FILE=recipes/trtllm/b200-fp4/8k1k/mtp/ctx1_gen1_dep8_batch8_eplb0_mtp3.yaml"',
      '- "SYNTHETIC_ACCEPTANCE=true"\n          - "CONFIG_FILE=recipes/trtllm/b200-fp4/8k1k/mtp/ctx1_gen1_dep8_batch8_eplb0_mtp3.yaml"',
    );
    // An 8k1k recipe (default evals, no EVAL_CONFIG_FILE, nothing strips it) that hard-codes the golden value.
    const sglang = `${RECIPES}/sglang/deepseek-v4/8k1k/disagg-gb200-low-latency-1p1d-tp8-tp8-mtp.yaml`;
    edit(head, sglang, '  decode_environment:\n', '  decode_environment:\n    SGLANG_SIMULATE_ACC_LEN: "2.49"\n');

    const report = await review(dirSnapshot(base), dirSnapshot(head), { pr: 1 });
    const own = report.findings.filter((f) => f.rule.startsWith('specdec/') && f.status === 'new');
    const kinds = own.map((f) => `${f.rule} ${f.message}`);
    expect(
      kinds.some((k) => /^specdec\/not-injected SYNTHETIC_ACCEPTANCE_LENGTH is set but SYNTHETIC_ACCEPTANCE is not set/.test(k)),
    ).toBe(true);
    expect(kinds.some((k) => /^specdec\/not-injected .*no injector for framework dynamo-trt/.test(k))).toBe(true);
    const evalFinding = own.find((f) => f.rule === 'specdec/eval-injection')!;
    expect(evalFinding.file).toContain(sglang);
    expect(evalFinding.line).toBe(lineOf(head, sglang, 'SGLANG_SIMULATE_ACC_LEN'));
    expect(evalFinding.message).toContain('8k1k rows run evals');
    // The value itself is the golden one (DeepSeek-V4, 3 drafts): no golden-al finding.
    expect(own.filter((f) => f.rule === 'specdec/golden-al')).toEqual([]);
    expect(own).toHaveLength(3);
  });

  it('hold every pinned value to an edited curve, as findings of the change that edited it', async () => {
    const head = copyTree(base);
    edit(head, 'golden_al_distribution/dsv4_mtp.yaml', '    3: 2.49', '    3: 2.50');
    const report = await review(dirSnapshot(base), dirSnapshot(head), { pr: 1 });
    const judged = report.findings.filter((f) => f.rule === 'specdec/golden-al' && f.status === 'new');
    // The four draft-2 entries were off the curve before, and the edit left draft 2 alone: the same
    // findings on the base, so not the change's own (a finding is new by what it is about, not by
    // the file it is judged against having changed).
    expect(judged.filter((f) => f.message.includes('at draft length 2'))).toHaveLength(0);
    expect(
      report.findings.filter(
        (f) => f.rule === 'specdec/golden-al' && f.status === 'pre-existing' && f.message.includes('at draft length 2'),
      ),
    ).toHaveLength(4);
    const own = judged.filter((f) => !f.message.includes('at draft length 2'));
    const files = new Set(own.map((f) => f.file.replace(`${head}/`, '').replace(/^.*srt-slurm-recipes\/.*$/, 'recipe')));
    // The DeepSeek-V4 scripts (vLLM, ATOM, SGLang), the recipes and the master config all pinned 2.49 at 3 drafts.
    expect([...files].sort()).toEqual(
      [
        `${AGENTIC}/dsv4_fp4_b300_vllm_mtp.sh`,
        `${AGENTIC}/dsv4_fp4_mi355x_atom_mtp.sh`,
        `${AGENTIC}/dsv4_fp4_mi355x_sglang_mtp.sh`,
        CONFIG,
        'recipe',
      ].sort(),
    );
    for (const f of own) expect(f.message).toContain('2.50 (thinking_on, golden_al_distribution/dsv4_mtp.yaml:13)');
  });

  it('name the file, line and key of a curve file that cannot be read', async () => {
    const head = copyTree(base);
    write(head, 'golden_al_distribution/broken.yaml', 'm:\n  thinking_on:\n    1: 1.8\n    2: 9.5\n');
    const { findings } = await lint(dirSnapshot(head));
    const found = specdec(findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.file).toBe(join(head, 'golden_al_distribution/broken.yaml'));
    expect(found[0]!.line).toBe(4);
    expect(found[0]!.message).toContain('m.thinking_on.2: AL 9.5 is not a number in [1, 3]');
  });
});
