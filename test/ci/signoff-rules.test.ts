// Each sign-off rule on a hand-made input: one case that passes, one that fails (and N/A where it applies).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIGNOFF_RULES, templateBlock, verdictMarkdown, verifySignoff } from '../../src/ci/signoff/index.js';
import type { ChangedFile, ConfigEntry, RunEvidence, SignoffInput } from '../../src/ci/signoff/index.js';
import { REPO } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/signoff');
const CHECKLIST = readFileSync(join(FIXTURES, 'PR_REVIEW_CHECKLIST.md'), 'utf8');
const CODEOWNERS = readFileSync(join(FIXTURES, 'CODEOWNERS'), 'utf8');
const SHA = 'c'.repeat(40);

/** The current template, every box checked, with `details` in the additional detail section, signed by `by`. */
function signoffBody(by = 'seungrokj', details: string[] = []): string {
  return templateBlock(CHECKLIST)!
    .replace(/\[ \]/g, '[x]')
    .replace('- insert any additional info here', details.map((d) => `- ${d}`).join('\n'))
    .replace('FILL_IN_GITHUB_USERNAME', by);
}

const file = (path: string, added: string[] = [], head = added.join('\n')): ChangedFile => ({
  path,
  status: 'modified',
  added: added.map((text, i) => ({ line: i + 1, text })),
  head,
});

const entry = (over: Partial<ConfigEntry> = {}): ConfigEntry => ({
  key: 'dsr1-fp8-mi355x-sglang',
  file: 'configs/amd-master.yaml',
  isNew: false,
  image: 'lmsysorg/sglang:v0.5.9-rocm700-mi35x',
  framework: 'sglang',
  runner: 'mi355x',
  modelPrefix: 'dsr1',
  multinode: false,
  specDecoding: [],
  ...over,
});

const greenRun = (over: Partial<RunEvidence> = {}): RunEvidence => ({
  runId: '101',
  commit: SHA,
  status: 'completed',
  url: '',
  points: 6,
  successRate: 1,
  evals: [{ task: 'gsm8k', model: 'dsr1', hardware: 'mi355x', passed: true }],
  regressions: [],
  ...over,
});

/** An input every rule passes (or finds not applicable). */
function input(over: Partial<SignoffInput> = {}): SignoffInput {
  return {
    pr: { number: 42, body: '', headSha: SHA, commits: [SHA] },
    comment: {
      body: signoffBody('seungrokj', ['recipe: https://docs.sglang.io/cookbook/dsr1']),
      author: 'seungrokj',
      association: 'CONTRIBUTOR',
    },
    codeowners: CODEOWNERS,
    checklist: CHECKLIST,
    files: [file('configs/amd-master.yaml')],
    entries: [entry()],
    headEntries: [entry()],
    waiverExists: false,
    runs: [greenRun()],
    comments: [{ body: '/reuse-sweep-run', author: 'maintainer', association: 'MEMBER' }],
    teams: undefined,
    ...over,
  };
}

function outcome(id: string, over: Partial<SignoffInput> = {}) {
  const v = verifySignoff(input(over));
  return { status: v.rules.find((r) => r.id === id)!.status, findings: v.findings.filter((f) => f.rule === id), verdict: v };
}

describe('sign-off rules', () => {
  it('the baseline input passes every rule, and the verdict comment says PASS with the reference marker', () => {
    const v = verifySignoff(input());
    expect(v.rules.filter((r) => r.status === 'fail')).toEqual([]);
    expect(v.verdict).toBe('pass');
    const md = verdictMarkdown(v);
    expect(md.split('\n').slice(0, 2)).toEqual([
      `<!-- codeowner-signoff-verify sha=${SHA} -->`,
      '## ✅✅✅ **Verdict: PASS** ✅✅✅',
    ]);
    expect(md).toContain('`signoff/owner`');
  });

  it('rule ids are unique and each rule explains itself', () => {
    expect(new Set(SIGNOFF_RULES.map((r) => r.id)).size).toBe(SIGNOFF_RULES.length);
    for (const r of SIGNOFF_RULES) expect(r.explanation.length).toBeGreaterThan(80);
  });

  describe('signoff/owner', () => {
    it('passes for an owner named on the last matching line', () => {
      expect(outcome('signoff/owner').status).toBe('pass');
    });
    it('fails for an AMD owner signing an NVIDIA-only change, naming the path and its owners', () => {
      const r = outcome('signoff/owner', { files: [file('configs/nvidia-master.yaml')] });
      expect(r.status).toBe('fail');
      expect(r.findings[0]!.message).toContain(
        'configs/nvidia-master.yaml is owned by @ankur-singh @kedarpotdar-nv @InferenceX/core',
      );
      expect(r.findings[0]!.hint).toContain('--teams');
    });
    it('a catch-all path is covered by anyone CODEOWNERS names, and a team member given with --teams', () => {
      expect(outcome('signoff/owner', { files: [file('benchmarks/single_node/x.sh')] }).status).toBe('pass');
      const stranger = { body: signoffBody('stranger'), author: 'stranger', association: 'MEMBER' };
      expect(outcome('signoff/owner', { comment: stranger, files: [file('benchmarks/single_node/x.sh')] }).status).toBe('fail');
      const teams = { 'inferencex/core': ['stranger'] };
      expect(outcome('signoff/owner', { comment: stranger, teams, files: [file('configs/nvidia-master.yaml')] }).status).toBe(
        'pass',
      );
    });
    it('fails when the base has no CODEOWNERS', () => {
      expect(outcome('signoff/owner', { codeowners: undefined }).status).toBe('fail');
    });
  });

  describe('signoff/template', () => {
    it('fails on a stale copy (an item missing) and names it', () => {
      const body = signoffBody()
        .split('\n')
        .filter((l) => !l.includes('MODELS.md'))
        .join('\n');
      const r = outcome('signoff/template', { comment: { body, author: 'seungrokj', association: 'MEMBER' } });
      expect(r.status).toBe('fail');
      expect(r.findings.map((f) => f.message)).toEqual([
        expect.stringContaining('missing item: "Verified against the current MODELS.md'),
      ]);
    });
    it('an unchecked item fails without an explanation and is a note with one', () => {
      const body = signoffBody().replace(
        '- [x] Verified that the general code quality',
        '- [ ] Verified that the general code quality',
      );
      expect(outcome('signoff/template', { comment: { body, author: 'seungrokj', association: 'MEMBER' } }).status).toBe('fail');
      const explained = signoffBody('seungrokj', ['code quality: see the thread']).replace(
        '- [x] Verified that the general',
        '- [ ] Verified that the general',
      );
      const r = outcome('signoff/template', { comment: { body: explained, author: 'seungrokj', association: 'MEMBER' } });
      expect(r.status).toBe('pass');
      expect(r.findings.map((f) => f.severity)).toEqual(['warning']);
    });
    it('fails when the signature is still the placeholder', () => {
      const body = signoffBody().replace('Signed: `seungrokj`', 'Signed: `FILL_IN_GITHUB_USERNAME`');
      expect(
        outcome('signoff/template', { comment: { body, author: 'seungrokj', association: 'MEMBER' } }).findings[0]!.message,
      ).toContain('Signed');
    });
  });

  describe('signoff/green-sweep and signoff/evals', () => {
    it('pass on a green run of a PR commit (a short stored SHA counts)', () => {
      expect(outcome('signoff/green-sweep', { runs: [greenRun({ commit: SHA.slice(0, 8) })] }).status).toBe('pass');
      expect(outcome('signoff/evals').status).toBe('pass');
    });
    it('a green run on a commit no longer in the PR does not count', () => {
      const r = outcome('signoff/green-sweep', { runs: [greenRun({ commit: 'd'.repeat(40) })] });
      expect(r.status).toBe('fail');
      expect(r.findings[0]!.message).toBe('no passing sweep was found on any commit in this PR');
    });
    it('a run with a failed job is not green, and says why', () => {
      const r = outcome('signoff/green-sweep', { runs: [greenRun({ successRate: 0.8 })] });
      expect(r.status).toBe('fail');
      expect(r.findings[1]!.message).toContain('80% of its jobs succeeded');
    });
    it('a run with a significant regression against the official results is not green, and names it', () => {
      const regression = 'dsr1 h200 sglang fp8 TP8 8192/1024 conc 64: tput_per_gpu −10.0% [−13.1, −6.8]';
      const r = outcome('signoff/green-sweep', { runs: [greenRun({ regressions: [regression] })] });
      expect(r.status).toBe('fail');
      expect(r.findings[1]!.message).toBe(
        `run 101 on ${SHA.slice(0, 12)} is not green: 1 significant regression against the official results: ${regression}`,
      );
    });
    it('evals fail when one is below its threshold, has none, or there are no evals', () => {
      const below = greenRun({ evals: [{ task: 'gsm8k', model: 'dsr1', hardware: 'mi355x', passed: false }] });
      expect(outcome('signoff/evals', { runs: [below] }).status).toBe('fail');
      const unknown = greenRun({ evals: [{ task: 'gsm8k', model: 'dsr1', hardware: 'mi355x', passed: null }] });
      expect(outcome('signoff/evals', { runs: [unknown] }).findings[0]!.message).toContain('without a threshold');
      expect(outcome('signoff/evals', { runs: [greenRun({ evals: [] })] }).findings[0]!.message).toContain(
        'stored no eval results',
      );
    });
    it('without a store both fail as unverifiable', () => {
      expect(outcome('signoff/green-sweep', { runs: undefined }).findings[0]!.message).toContain('no store was read');
      expect(outcome('signoff/evals', { runs: undefined }).status).toBe('fail');
    });
  });

  describe('signoff/reuse-command', () => {
    it('passes on an authorized /reuse-sweep-run (bare or with a run id)', () => {
      const comments = [{ body: 'LGTM\n/reuse-sweep-run 123456', author: 'm', association: 'COLLABORATOR' }];
      expect(outcome('signoff/reuse-command', { comments }).status).toBe('pass');
    });
    it('fails when only an outside contributor posted it, or nobody did', () => {
      const outsider = [{ body: '/reuse-sweep-run', author: 'x', association: 'CONTRIBUTOR' }];
      expect(outcome('signoff/reuse-command', { comments: outsider }).findings[0]!.message).toContain('@x (CONTRIBUTOR)');
      expect(
        outcome('signoff/reuse-command', {
          comments: [{ body: 'please run /reuse-sweep-run', author: 'm', association: 'MEMBER' }],
        }).status,
      ).toBe('fail');
      expect(outcome('signoff/reuse-command', { comments: undefined }).findings[0]!.hint).toContain('--comments');
    });
  });

  describe('signoff/upstream-image', () => {
    it('a vendor image on established hardware fails; upstream (also digest-pinned, docker.io/) passes', () => {
      const fork = entry({ image: 'rocm/sgl-dev:v0.5.9' });
      const r = outcome('signoff/upstream-image', { entries: [fork] });
      expect(r.status).toBe('fail');
      expect(r.findings[0]!.message).toContain('rocm/sgl-dev:v0.5.9');
      const pinned = entry({ framework: 'vllm', image: 'docker.io/vllm/vllm-openai@sha256:abc' });
      expect(outcome('signoff/upstream-image', { entries: [pinned] }).status).toBe('pass');
    });
    it('the exception counts when the sign-off names the entry; new hardware and other frameworks are N/A', () => {
      const fork = entry({ image: 'rocm/sgl-dev:v0.5.9' });
      const body = signoffBody('seungrokj', [
        'dsr1-fp8-mi355x-sglang uses rocm/sgl-dev: a new architecture upstream cannot run yet',
        'https://docs.sglang.io/cookbook/x',
      ]);
      expect(
        outcome('signoff/upstream-image', { entries: [fork], comment: { body, author: 'seungrokj', association: 'MEMBER' } })
          .status,
      ).toBe('pass');
      expect(outcome('signoff/upstream-image', { entries: [entry({ image: 'rocm/sgl-dev:x', runner: 'mi455x' })] }).status).toBe(
        'n/a',
      );
      expect(outcome('signoff/upstream-image', { entries: [entry({ framework: 'atom', image: 'rocm/atom:x' })] }).status).toBe(
        'n/a',
      );
    });
  });

  describe('signoff/engine-first', () => {
    const atom = entry({ key: 'dsr1-fp8-mi355x-atom', framework: 'atom', image: 'rocm/atom:x', isNew: true });
    it('a new ATOM entry with an SGLang sibling for the model and SKU passes', () => {
      expect(outcome('signoff/engine-first', { entries: [atom], headEntries: [entry(), atom] }).status).toBe('pass');
    });
    it('without one it fails', () => {
      const r = outcome('signoff/engine-first', { entries: [atom], headEntries: [atom] });
      expect(r.status).toBe('fail');
      expect(r.findings[0]!.message).toContain('lands before any vLLM/SGLang entry for dsr1 on mi355x');
    });
  });

  describe('signoff/recipe-linked', () => {
    it('a single-node SGLang change with a cookbook link passes; without a link it fails; multi-node is N/A', () => {
      expect(outcome('signoff/recipe-linked').status).toBe('pass');
      expect(
        outcome('signoff/recipe-linked', { comment: { body: signoffBody(), author: 'seungrokj', association: 'MEMBER' } }).status,
      ).toBe('fail');
      expect(outcome('signoff/recipe-linked', { entries: [entry({ multinode: true })] }).status).toBe('n/a');
    });
  });

  describe('signoff/engine-patch-declared', () => {
    const patched = [
      file('benchmarks/single_node/x.sh', [
        'git apply /tmp/fix.patch',
        'sed -i "s/a/b/" $(python3 -c "import sglang,os;print(1)")/srt/site-packages/x.py',
      ]),
    ];
    it('fails on patchwork without a waiver, naming the line', () => {
      const r = outcome('signoff/engine-patch-declared', { files: patched });
      expect(r.status).toBe('fail');
      expect(r.findings.map((f) => [f.file, f.line])).toEqual([
        ['benchmarks/single_node/x.sh', 1],
        ['benchmarks/single_node/x.sh', 2],
      ]);
      expect(r.findings[0]!.message).toContain('docs/waiver/42.md is not in the PR');
    });
    it('passes with the waiver filed and linked; a patch file and a forked wheel are caught too', () => {
      const body = signoffBody('seungrokj', ['waiver: docs/waiver/42.md', 'https://docs.sglang.io/cookbook/x']);
      expect(
        outcome('signoff/engine-patch-declared', {
          files: patched,
          waiverExists: true,
          comment: { body, author: 'seungrokj', association: 'MEMBER' },
        }).status,
      ).toBe('pass');
      expect(outcome('signoff/engine-patch-declared', { files: patched, waiverExists: true }).findings[0]!.message).toContain(
        'does not link',
      );
      const wheel = [
        file('benchmarks/a.sh', ['pip install git+https://github.com/fork/vllm@branch']),
        file('benchmarks/fix.patch', ['x']),
      ];
      expect(outcome('signoff/engine-patch-declared', { files: wheel }).findings.map((f) => f.message.split(':')[0])).toEqual([
        'pip install of a fork or rebuilt wheel',
        'a patch file; docs/waiver/42.md is not in the PR',
      ]);
    });
    it('comments, docs, prose and package indexes are not patchwork (cases seen in the InferenceX tree)', () => {
      const harmless = [
        file('benchmarks/a.sh', [
          '# git apply is forbidden here',
          'echo "  $1: APPLIED (git apply)"',
          'pip install --index-url https://download.pytorch.org/whl/cpu torch',
        ]),
        file('.github/workflows/x.yml', ['            Patchwork includes patch files, git apply, source mutation,']),
        file('runners/launch.sh', ['cp "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/x.yaml" "$DEST"']),
        file('docs/notes.md', ['git apply x.patch']),
      ];
      expect(outcome('signoff/engine-patch-declared', { files: harmless }).status).toBe('n/a');
    });
  });

  describe('signoff/hf-overrides-declared', () => {
    const override = [file('benchmarks/single_node/x.sh', ['  --hf-overrides \'{"index_topk_freq": 4}\' \\'])];
    it('fails on an undeclared override, naming the file and line', () => {
      const r = outcome('signoff/hf-overrides-declared', { files: override });
      expect(r.status).toBe('fail');
      expect([r.findings[0]!.file, r.findings[0]!.line]).toEqual(['benchmarks/single_node/x.sh', 1]);
    });
    it('passes when the PR body declares it; markdown that mentions the flag is N/A', () => {
      expect(
        outcome('signoff/hf-overrides-declared', {
          files: override,
          pr: { ...input().pr, body: 'uses --hf-overrides natively supported by the model' },
        }).status,
      ).toBe('pass');
      expect(
        outcome('signoff/hf-overrides-declared', { files: [file('docs/PR_REVIEW_CHECKLIST.md', ['using --hf-overrides'])] })
          .status,
      ).toBe('n/a');
    });
  });

  describe('signoff/specdec-chat-template', () => {
    const script = (lines: string[]) => file('benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh', lines);
    it('an MTP script benchmarking raw completions fails at its benchmark call', () => {
      const r = outcome('signoff/specdec-chat-template', {
        files: [script(['vllm serve --speculative-config x', 'run_benchmark_serving \\', '  --model m'])],
      });
      expect(r.status).toBe('fail');
      expect(r.findings[0]!.line).toBe(2);
    });
    it('passes with --use-chat-template (or --dsv4); a script without spec decoding is N/A', () => {
      expect(
        outcome('signoff/specdec-chat-template', { files: [script(['run_benchmark_serving \\', '  --use-chat-template'])] })
          .status,
      ).toBe('pass');
      expect(outcome('signoff/specdec-chat-template', { files: [script(['run_benchmark_serving --dsv4'])] }).status).toBe('pass');
      expect(
        outcome('signoff/specdec-chat-template', {
          files: [file('benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh', ['run_benchmark_serving'])],
        }).status,
      ).toBe('n/a');
    });
  });

  describe('signoff/agentic-simulated-acceptance', () => {
    const agentic = (lines: string[]) => file('benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh', lines);
    it('an agentic MTP script with real acceptance fails; with SGLANG_SIMULATE_ACC_LEN or the ATOM knob it passes', () => {
      const r = outcome('signoff/agentic-simulated-acceptance', {
        files: [
          agentic(['python3 -m sglang.launch_server --speculative-algorithm EAGLE', 'run_agentic_replay_and_write_outputs']),
        ],
      });
      expect(r.status).toBe('fail');
      expect(r.findings[0]!.message).toContain('real (unsimulated) acceptance');
      expect(
        outcome('signoff/agentic-simulated-acceptance', {
          files: [agentic(['export SGLANG_SIMULATE_ACC_LEN=3.39', 'run_agentic_replay_and_write_outputs'])],
        }).status,
      ).toBe('pass');
      expect(
        outcome('signoff/agentic-simulated-acceptance', {
          files: [agentic(['SPEC_ARGS+=(--spec-decode-acceptance-length 2.49)', 'run_agentic_replay_and_write_outputs'])],
        }).status,
      ).toBe('pass');
    });
    it('a simulation knob added to a non-agentic benchmark fails unless declared; no agentic spec-decode change is N/A', () => {
      const fixed = file('benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh', [
        'export SGLANG_SIMULATE_ACC_LEN=3',
        'run_benchmark_serving --use-chat-template',
      ]);
      expect(outcome('signoff/agentic-simulated-acceptance', { files: [fixed] }).status).toBe('fail');
      expect(
        outcome('signoff/agentic-simulated-acceptance', {
          files: [fixed],
          pr: { ...input().pr, body: 'SGLANG_SIMULATE_ACC_LEN: sanctioned by the maintainers' },
        }).status,
      ).toBe('n/a');
      expect(outcome('signoff/agentic-simulated-acceptance').status).toBe('n/a');
      // A helper that patches the container is not a benchmark (benchmarks/single_node/agentic/apply_k3_container_patches.sh).
      const helper = file('benchmarks/single_node/agentic/apply_k3_container_patches.sh', [
        'patch --speculative-config handling',
      ]);
      expect(outcome('signoff/agentic-simulated-acceptance', { files: [helper] }).status).toBe('n/a');
      // Multi-node recipes get the knob from the runners at launch.
      const recipe = file('benchmarks/multi_node/srt-slurm-recipes/vllm/x/agentic/agg-mtp-agentic.yaml', [
        'speculative_config: {method: mtp}',
      ]);
      expect(outcome('signoff/agentic-simulated-acceptance', { files: [recipe] }).status).toBe('n/a');
    });
  });

  it('a failing verdict mentions the author and lists the failing findings under their check', () => {
    const md = verdictMarkdown(verifySignoff(input({ runs: [] })));
    expect(md).toContain('## ❌❌❌ **REJECTED** ❌❌❌');
    expect(md).toContain('@seungrokj: green sweep (`signoff/green-sweep`), evals (`signoff/evals`) not to standard.');
    expect(md).toContain('❌ Check 1 (green sweep): FAIL — no passing sweep was found on any commit in this PR');
  });
});
