import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { firstParentCommits, reviewEach } from '../../src/review/index.js';
import type { CommitReview } from '../../src/review/index.js';
import { edit } from './edit-tree.js';
import { REPO, inferencexTree, runCli } from '../helpers.js';

/**
 * A git history built on the fixture InferenceX tree: one commit per class of change the gate
 * must pass (harmless) or stop (harmful), reviewed commit by commit as `review --each` does.
 */

const NVIDIA = 'configs/nvidia-master.yaml';
const LAUNCHER = 'runners/launch_b200-dgxc.sh';
const POWER_LAUNCHER = 'runners/launch_gb200-nv.sh';
const AGENTIC_ROUTES = [
  'runners/launch_gb300-nv.sh',
  'runners/slurm_utils.sh',
  'runners/launch_b300-nv.sh',
  'benchmarks/benchmark_lib.sh',
];
const B300_AGENTIC = 'benchmarks/single_node/agentic/dsv4_fp4_b300_vllm_mtp.sh';
const RECIPE = 'benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/8k1k/disagg-b200-1p1d-dep8-tp8-mtp.yaml';
const LOG = 'perf-changelog.yaml';
const KEY = 'dsv4-fp4-b200-sglang';
const LINK = 'https://github.com/SemiAnalysisAI/InferenceX/pull';

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });

const entry = (keys: string[], pr: number, tail = ''): string =>
  `- config-keys:\n${keys.map((k) => `    - ${k}\n`).join('')}  description:\n    - "change ${pr}"\n  pr-link: ${LINK}/${pr}\n${tail}`;

/** The commits, oldest first: what each does, and the verdict and rules the gate must give. */
const HISTORY: { subject: string; change: (dir: string) => void; ok: boolean; rules: string[] }[] = [
  {
    subject: 'a change whose entry leaves a blank line holding spaces (#101)',
    change: (dir) => {
      edit(dir, NVIDIA, '{ tp: 8, ep: 1, conc-start: 1, conc-end: 32 }', '{ tp: 8, ep: 1, conc-start: 1, conc-end: 64 }');
      appendFileSync(join(dir, LOG), `\n${entry([KEY], 101)}  \n`);
    },
    ok: true,
    rules: ['changelog/layout'],
  },
  {
    subject: 'the next change empties that blank line and appends its own entry (#102)',
    change: (dir) => {
      edit(dir, LOG, `${LINK}/101\n  \n`, `${LINK}/101\n\n`);
      edit(
        dir,
        NVIDIA,
        '{ tp: 8, ep: 8, dp-attn: true, conc-start: 64, conc-end: 128 }',
        '{ tp: 8, ep: 8, dp-attn: true, conc-start: 32, conc-end: 128 }',
      );
      appendFileSync(join(dir, LOG), entry([KEY], 102));
    },
    ok: true,
    rules: [],
  },
  {
    subject: 'drop the points that hang: deletion only, no sweep needed (#103)',
    change: (dir) => edit(dir, NVIDIA, 'conc-start: 256, conc-end: 1024 }', 'conc-start: 256, conc-end: 512 }'),
    ok: true,
    rules: [],
  },
  {
    subject: 'move the max-throughput search space into its own key, rows unchanged (#104)',
    change: (dir) => {
      edit(
        dir,
        NVIDIA,
        '      # DP-attention (DP_ATTENTION=true) — max-throughput CONC range\n      - { tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 512 }\n',
        '',
      );
      const text = readFileSync(join(dir, NVIDIA), 'utf8');
      const block = text.slice(text.indexOf(`${KEY}:\n`), text.indexOf('\n\n', text.indexOf(`${KEY}:\n`)));
      const split = block
        .replace(`${KEY}:`, `${KEY}-max-tput:`)
        .replace(/( {6}search-space:\n)[\s\S]*$/, '$1      - { tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 512 }');
      appendFileSync(join(dir, NVIDIA), `\n${split}\n`);
    },
    ok: true,
    rules: [],
  },
  {
    subject: 'spell out a default (ep: 1): the value changes, the rows do not (#105)',
    change: (dir) => edit(dir, NVIDIA, '{ tp: 8, ep: 1, conc-start: 1, conc-end: 64 }', '{ tp: 8, conc-start: 1, conc-end: 64 }'),
    ok: true,
    rules: [],
  },
  {
    subject: 'bump the image without an entry (#106)',
    change: (dir) =>
      edit(
        dir,
        NVIDIA,
        'image: lmsysorg/sglang:nightly-dev-cu13-20260628-da802ddc',
        'image: lmsysorg/sglang:nightly-dev-cu13-20260701-00000000',
      ),
    ok: false,
    rules: ['changelog/pairing'],
  },
  {
    subject: 'split a point range on purpose, without re-running it [skip-sweep] (#107)',
    change: (dir) =>
      edit(
        dir,
        NVIDIA,
        '- { tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 512 }',
        '- { tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 384 }\n      - { tp: 8, ep: 4, dp-attn: true, conc-start: 512, conc-end: 512 }',
      ),
    ok: true,
    rules: ['changelog/no-sweep'],
  },
  {
    subject: 'an entry appended with no blank line before it (#108)',
    change: (dir) => {
      edit(dir, NVIDIA, 'conc-start: 256, conc-end: 384 }', 'conc-start: 256, conc-end: 256 }');
      edit(dir, LOG, `${LINK}/102\n`, `${LINK}/102\n${entry([`${KEY}-max-tput`], 108).trimEnd()}\n`);
    },
    ok: false,
    rules: ['changelog/separator'],
  },
  {
    subject: 'a historical entry edited (#109)',
    change: (dir) => edit(dir, LOG, '"change 101"', '"change 101, reworded"'),
    ok: false,
    rules: ['changelog/history'],
  },
  {
    subject: 'a new B200 branch in the launcher that clones srt-slurm with no checkout (#110)',
    change: (dir) =>
      edit(
        dir,
        LAUNCHER,
        '    else\n        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n',
        '    elif [[ $FRAMEWORK == "dynamo-trt" && $MODEL_PREFIX == "dsr1" && $PRECISION == "fp8" ]]; then\n        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n        cd "$SRT_REPO_DIR" || exit 1\n    else\n        git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"\n',
      ),
    ok: false,
    rules: ['launcher/unpinned-toolchain'],
  },
  {
    subject: 'reword a message of the launcher (#111)',
    change: (dir) => edit(dir, LAUNCHER, 'echo "Cloning srt-slurm repository..."', 'echo "Cloning the srt-slurm repository..."'),
    ok: true,
    rules: [],
  },
  {
    subject: 'a new family of four recipes on a vLLM image, none installing Dynamo (#112)',
    change: (dir) => {
      const text = readFileSync(join(dir, RECIPE), 'utf8').replace('  install: true\n', '  install: false\n');
      for (const n of [1, 2, 3, 4]) writeFileSync(join(dir, RECIPE.replace('.yaml', `-new${n}.yaml`)), text);
    },
    ok: false,
    rules: ['recipe/dynamo-install-disabled'],
  },
  {
    subject: 'drop the framework guard of the GB200 power lane (#113)',
    change: (dir) =>
      edit(
        dir,
        POWER_LAUNCHER,
        'if [[ "$USES_DCGM_POWER" == "1" && "$FRAMEWORK" != "dynamo-sglang" ]]; then\n    echo "Error: dcgm-power lanes are only validated for FRAMEWORK=dynamo-sglang, got: $FRAMEWORK" >&2\n    exit 1\nfi\n',
        '',
      ),
    ok: false,
    rules: ['power/lane-gate'],
  },
  {
    // The lane's finding of #113 is still there, its lines moved: it is not this change's.
    subject: 'add a model branch above the GB200 power lane (#114)',
    change: (dir) =>
      edit(
        dir,
        POWER_LAUNCHER,
        'USES_DCGM_POWER=0\n',
        '# Kimi-K3 recipes live beside the others.\nexport KIMI_K3_NOTE=1\n\nUSES_DCGM_POWER=0\n',
      ),
    ok: true,
    rules: [],
  },
  {
    // The GB300 launcher and the recipe decide the KV offload; the row's fields only describe it.
    subject: 'mark the GLM-5.2 GB300 TRT AgentX agg point as using host KV offload (#115)',
    change: (dir) =>
      edit(
        dir,
        NVIDIA,
        '    - search-space:\n      - spec-decoding: mtp\n        conc-list: [1]\n        kv-offloading: none\n',
        '    - dram-utilization: 0.15\n      search-space:\n      - spec-decoding: mtp\n        conc-list: [1]\n        kv-offloading: dram\n        kv-offload-backend: { name: native, version: "1.3.0rc22.post1" }\n',
        'glm5.2-fp4-gb300-dynamo-trt-agentic-agg-mtp:',
      ),
    ok: true,
    rules: [],
  },
  {
    // The B300 agentic script sizes vLLM's CPU KV tier from these fields: the point measures something new.
    subject: 'move the B300 vLLM AgentX TP8 point to host KV offload (#116)',
    change: (dir) =>
      edit(
        dir,
        NVIDIA,
        '{ tp: 8, kv-offloading: none, spec-decoding: mtp, conc-list: [1, 4] }',
        '{ tp: 8, kv-offloading: dram, kv-offload-backend: { name: vllm-simple }, spec-decoding: mtp, conc-list: [1, 4] }',
        'dsv4-fp4-b300-vllm-agentic-mtp:',
      ),
    ok: false,
    rules: ['changelog/pairing'],
  },
];

let repo: string;
let commits: string[];
let reviews: CommitReview[];

beforeAll(async () => {
  repo = inferencexTree();
  // The B200 launcher, and the name its multinode runners use (a link to it, stored as its name); the GB200 one, with its
  // power lane; the GB300 and B300 ones with what they run for agentic rows (the library, a B300 agentic script).
  const copy = (from: string, f: string): void => {
    mkdirSync(dirname(join(repo, f)), { recursive: true });
    writeFileSync(join(repo, f), readFileSync(join(REPO, 'test/fixtures/inferencex', from, f)));
  };
  for (const f of [LAUNCHER, 'runners/launch_b200-dgxc-slurm.sh', POWER_LAUNCHER, ...AGENTIC_ROUTES]) copy('tree', f);
  copy('tree', B300_AGENTIC);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'the fixture tree');
  for (const { subject, change } of HISTORY) {
    change(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', subject);
  }
  commits = await firstParentCommits(repo, { last: HISTORY.length });
  reviews = [];
  for await (const r of reviewEach(repo, commits)) reviews.push(r);
}, 120_000);

describe('review --each over a history with each class of change', () => {
  it('lists the first-parent commits oldest first, the root left out', async () => {
    expect(commits).toHaveLength(HISTORY.length);
    expect(await firstParentCommits(repo, { range: `${commits[0]}..main` })).toEqual(commits.slice(1));
    expect(await firstParentCommits(repo, { last: 100 })).toEqual(commits);
  });

  for (const [i, { subject, ok, rules }] of HISTORY.entries()) {
    it(`${ok ? 'passes' : 'stops'}: ${subject}`, () => {
      const r = reviews[i]!;
      expect(r.subject).toBe(subject);
      expect([...new Set(r.findings.map((f) => f.rule))]).toEqual(rules);
      expect(r.ok).toBe(ok);
      expect(r.pr).toBe(101 + i);
    });
  }

  it('records the opt-out with its reason', () => {
    const optedOut = reviews.find((r) => r.subject.includes('[skip-sweep]'))!;
    expect(optedOut.noSweep).toEqual({
      source: `commit ${optedOut.commit}`,
      reason: '[skip-sweep] split a point range on purpose, without re-running it (#107)',
    });
    expect(optedOut.findings[0]!.message).toContain('no sweep, as the change says');
  });

  it('the CLI prints one line per commit and exits 1 when one fails', () => {
    const result = runCli(['review', '--repo', repo, '--last', '6']);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^✓ [0-9a-f]{9} +[\d.]+s {2}reword a message of the launcher/);
    expect(lines[1]).toMatch(/^✗ [0-9a-f]{9} +[\d.]+s {2}recipe\/dynamo-install-disabled ×4 {2}a new family of four recipes/);
    expect(lines[2]).toMatch(/^✗ [0-9a-f]{9} +[\d.]+s {2}power\/lane-gate ×1 {2}drop the framework guard/);
    expect(lines[3]).toMatch(/^✓ [0-9a-f]{9} +[\d.]+s {2}add a model branch above the GB200 power lane/);
    expect(lines[4]).toMatch(/^✓ [0-9a-f]{9} +[\d.]+s {2}mark the GLM-5.2 GB300 TRT AgentX agg point/);
    expect(lines[5]).toMatch(/^✗ [0-9a-f]{9} +[\d.]+s {2}changelog\/pairing ×1 {2}move the B300 vLLM AgentX TP8 point/);
    expect(lines[7]).toMatch(
      /^6 commits in [\d.]+ s: 3 pass, 3 fail \(recipe\/dynamo-install-disabled ×4, changelog\/pairing ×1, power\/lane-gate ×1\)$/,
    );
    expect(result.status).toBe(1);
  });
});
