import { appendFileSync, cpSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { lint, review } from '../../src/review/index.js';
import type { ReviewReport, ReviewedFinding } from '../../src/review/index.js';
import { edit, copyTree, write } from './edit-tree.js';
import { inferencexTree, tempFiles } from '../helpers.js';

const RECIPES = 'benchmarks/multi_node/srt-slurm-recipes';
/** A B200 recipe referenced by exactly one entry, of key dsv4-fp4-b200-dynamo-sglang-mtp. */
const B200 = `${RECIPES}/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml`;
const B200_KEY = 'dsv4-fp4-b200-dynamo-sglang-mtp';
const NVIDIA = 'configs/nvidia-master.yaml';

let base: string;
beforeAll(() => {
  base = inferencexTree();
});

const entry = (keys: string[], link = 'XXX'): string =>
  `\n- config-keys:\n${keys.map((k) => `    - ${k}\n`).join('')}  description:\n    - "test change"\n  pr-link: ${link}\n`;

const run = (head: string, options: { pr?: number; since?: string; baseDir?: string } = {}): Promise<ReviewReport> =>
  review(dirSnapshot(options.baseDir ?? base, 'base'), dirSnapshot(head, 'head'), {
    pr: options.pr ?? 1,
    since: options.since ? dirSnapshot(options.since, 'since') : undefined,
  });

const own = (report: ReviewReport): ReviewedFinding[] => report.findings.filter((f) => f.status === 'new');
const ownRules = (report: ReviewReport): string[] => own(report).map((f) => f.rule);

describe('frontier review: the B200 recipe mistakes', () => {
  it('reports both errors (dynamo.install: false, and a 1 h limit with no health check) on the changed recipe', async () => {
    const head = copyTree(base);
    edit(head, B200, '  install: true\n', '  install: false\n');
    edit(head, B200, 'health_check:\n  max_attempts: 240\n', 'slurm:\n  time_limit: "1:00:00"\n');
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    const report = await run(head);
    expect(report.ok).toBe(false);
    expect(report.change.recipes.changed).toEqual([B200]);
    const findings = own(report);
    expect(findings.map((f) => [f.rule, f.severity, f.line, f.path])).toEqual([
      ['recipe/dynamo-install-disabled', 'error', 10, 'dynamo.install'],
      ['recipe/short-time-limit-without-health-check', 'error', 32, 'slurm.time_limit'],
    ]);
    expect(findings[0]!.file).toBe(join(head, B200));
    expect(findings[0]!.message).toContain(
      'lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05 is a lmsysorg/sglang image, which does not ship Dynamo',
    );
    expect(findings[0]!.hint).toContain('dynamo.hash: 92f5b3b8d7dd5ab9179d4b1034bd2c1c0803693e');
    // The real tree's own problems are listed, and do not decide.
    expect(report.findings.filter((f) => f.status === 'pre-existing').length).toBeGreaterThan(200);
  });

  it('passes a recipe that installs Dynamo, or sizes a health check for its 1 h limit', async () => {
    const head = copyTree(base);
    edit(
      head,
      B200,
      'health_check:\n  max_attempts: 240\n',
      'health_check:\n  max_attempts: 240\nslurm:\n  time_limit: "1:00:00"\n',
    );
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    const report = await run(head);
    expect(ownRules(report)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('passes dynamo.install: false on an ai-dynamo runtime image, which ships Dynamo', async () => {
    const head = copyTree(base);
    edit(head, B200, '  install: true\n', '  install: false\n');
    edit(head, B200, 'lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05', 'nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.0');
    edit(
      head,
      NVIDIA,
      'lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05',
      'nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.0',
      `${B200_KEY}:`,
    );
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    const report = await run(head);
    // The other recipes of the key still run the old image: that is the only finding.
    expect([...new Set(ownRules(report))]).toEqual(['recipe/image-mismatch']);
  });

  it('a 4 h limit without a health check is the cluster default, not a finding', async () => {
    const head = copyTree(base);
    edit(head, B200, 'health_check:\n  max_attempts: 240\n', 'slurm:\n  time_limit: "04:00:00"\n');
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    expect(ownRules(await run(head))).toEqual([]);
  });
});

describe('frontier review: the changelog gate', () => {
  it('reports an entry appended without its blank line', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, 'conc-list: [1]', 'conc-list: [1, 2]', `${B200_KEY}:`);
    edit(head, B200, 'concurrencies: "1"', 'concurrencies: "1x2"');
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]).slice(1));
    const report = await run(head);
    expect(report.ok).toBe(false);
    const findings = own(report);
    expect(findings.map((f) => f.rule)).toEqual(['changelog/separator']);
    expect(findings[0]!.file).toBe(join(head, 'perf-changelog.yaml'));
    expect(findings[0]!.message).toMatch(/blank line/);
  });

  it('with the blank line, the same change is clean and its sweep is summarised per key', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, 'conc-list: [1]', 'conc-list: [1, 2]', `${B200_KEY}:`);
    edit(head, B200, 'concurrencies: "1"', 'concurrencies: "1x2"');
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    const report = await run(head);
    expect(ownRules(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.change.keys.edited).toEqual([B200_KEY]);
    expect(report.appendedEntries).toBe(1);
    expect(report.sweep).toHaveLength(1);
    const sweep = report.sweep[0]!;
    expect(sweep).toMatchObject({ key: B200_KEY, rows: 5, scenarios: { 'ISL 8192 / OSL 1024': 5 } });
    expect(sweep.runs[0]).toEqual({
      run: 'recipes/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml',
      conc: [1, 2],
    });
  });

  it('an edited config without an entry is a pairing error on the key', async () => {
    const head = copyTree(base);
    edit(head, NVIDIA, 'conc-list: [1]', 'conc-list: [1, 2]', `${B200_KEY}:`);
    edit(head, B200, 'concurrencies: "1"', 'concurrencies: "1x2"');
    const findings = own(await run(head));
    expect(findings.map((f) => [f.rule, f.key])).toEqual([['changelog/pairing', B200_KEY]]);
  });
});

describe('frontier review: master config ↔ recipe', () => {
  /** Apply recipe edits and return the rules of the change's own findings. */
  const recipeChange = async (...edits: [string, string][]): Promise<ReviewedFinding[]> => {
    const head = copyTree(base);
    for (const [old, replacement] of edits) edit(head, B200, old, replacement);
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    return own(await run(head));
  };

  it.each([
    ['recipe/concurrency-mismatch', [['concurrencies: "1"', 'concurrencies: "1x2"']], 'conc-list'],
    [
      'recipe/worker-count-mismatch',
      [
        ['decode_nodes: 1', 'decode_nodes: 2'],
        ['decode_workers: 1', 'decode_workers: 2'],
      ],
      'num-worker',
    ],
    [
      'recipe/parallelism-mismatch',
      [
        ['gpus_per_prefill: 8', 'gpus_per_prefill: 4'],
        ['tensor-parallel-size: 8', 'tensor-parallel-size: 4'],
      ],
      'prefill',
    ],
    ['recipe/image-mismatch', [['lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05', 'lmsysorg/sglang:v0.5.9']], 'image'],
    ['recipe/seq-len-mismatch', [['  isl: 8192', '  isl: 1024']], 'isl'],
    ['recipe/precision-mismatch', [['precision: "fp4"', 'precision: "fp8"']], 'precision'],
    [
      'recipe/dynamo-version-mismatch',
      [['hash: "92f5b3b8d7dd5ab9179d4b1034bd2c1c0803693e"', 'hash: "0123456789abcdef0123456789abcdef01234567"']],
      'router.version',
    ],
  ] as [string, [string, string][], string][])('%s: a recipe that disagrees with its entry fails', async (rule, edits, field) => {
    const findings = await recipeChange(...edits);
    expect(findings.map((f) => f.rule)).toEqual([rule]);
    expect(findings[0]).toMatchObject({ key: B200_KEY, file: expect.stringMatching(/configs\/nvidia-master\.yaml$/) });
    expect(findings[0]!.path).toContain(field);
    expect(findings[0]!.hint).toContain('disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml');
  });

  it('the unchanged recipe agrees with its entry (no finding on key or recipe)', async () => {
    const report = await lint(dirSnapshot(base));
    const about = report.findings.filter(
      (f) => f.subjects.includes(`config:${B200_KEY}`) && f.rule !== 'recipe/config-file-unverifiable',
    );
    expect(about).toEqual([]);
  });

  it('the Dynamo pin matches when config and recipe change together', async () => {
    const head = copyTree(base);
    const pin = '0123456789abcdef0123456789abcdef01234567';
    edit(head, B200, 'hash: "92f5b3b8d7dd5ab9179d4b1034bd2c1c0803693e"', `hash: "${pin}"`);
    edit(head, NVIDIA, '92f5b3b8d7dd5ab9179d4b1034bd2c1c0803693e', pin, `${B200_KEY}:`);
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    // The key's other recipes still install the old commit: those, and only those, disagree.
    const findings = own(await run(head));
    expect(findings.map((f) => f.rule)).toEqual(['recipe/dynamo-version-mismatch']);
    expect(findings[0]!.hint).not.toContain('disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml');
  });

  it('a CONFIG_FILE outside the tree is unverifiable without --toolchain-dir, and missing when the checkout lacks it', async () => {
    const head = copyTree(base);
    const ghost = 'recipes/sglang/deepseek-v4/8k1k/ghost.yaml';
    edit(
      head,
      NVIDIA,
      `CONFIG_FILE=recipes/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml`,
      `CONFIG_FILE=${ghost}`,
    );
    appendFileSync(join(head, 'perf-changelog.yaml'), entry([B200_KEY]));
    const unverifiable = own(await run(head));
    expect(unverifiable.map((f) => [f.rule, f.severity])).toEqual([['recipe/config-file-unverifiable', 'warning']]);
    expect(unverifiable[0]!.message).toContain(`${ghost} is not in the tree`);

    const toolchain = tempFiles({ 'recipes/sglang/other.yaml': 'name: x\n' });
    const report = await review(dirSnapshot(base), dirSnapshot(head), { pr: 1, toolchainDir: toolchain });
    expect(own(report).map((f) => [f.rule, f.severity])).toEqual([['recipe/config-file-missing', 'error']]);
  });

  it('a CONFIG_FILE found in the toolchain checkout is checked like an in-tree recipe', async () => {
    const head = copyTree(base);
    const moved = 'recipes/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml';
    const toolchain = tempFiles({
      [moved]: readFileSync(join(base, B200), 'utf8').replace('concurrencies: "1"', 'concurrencies: "4"'),
    });
    rmSync(join(head, B200));
    const report = await review(dirSnapshot(head), dirSnapshot(head), { toolchainDir: toolchain });
    const about = report.findings.filter(
      (f) => f.subjects.includes(`config:${B200_KEY}`) && f.rule !== 'recipe/config-file-unverifiable',
    );
    expect(about.map((f) => f.rule)).toEqual(['recipe/concurrency-mismatch']);
  });
});

describe('frontier review: topology', () => {
  const colocated = (prefill: [number, number], decode: [number, number]): string =>
    [
      'name: "colocated"',
      'model: { path: "dsr1", container: "vllm/vllm-openai:v0.21.0", precision: "fp8" }',
      'resources:',
      '  gpu_type: "h200"',
      '  gpus_per_node: 8',
      '  prefill_nodes: 1',
      `  prefill_workers: ${prefill[0]}`,
      `  gpus_per_prefill: ${prefill[1]}`,
      '  decode_nodes: 0',
      `  decode_workers: ${decode[0]}`,
      `  gpus_per_decode: ${decode[1]}`,
      'backend:',
      '  type: vllm',
      '  allow_prefill_decode_colocation: true',
      '',
    ].join('\n');

  it('8×TP1 + 2×DEP8 colocated on one node fails at resources.decode_nodes', async () => {
    const head = copyTree(base);
    write(head, `${RECIPES}/vllm/colocated.yaml`, colocated([8, 1], [2, 8]));
    const report = await run(head);
    expect(report.change.recipes.added).toEqual([`${RECIPES}/vllm/colocated.yaml`]);
    expect(own(report).map((f) => [f.rule, f.line, f.path])).toEqual([
      ['recipe/colocation-does-not-fit', 9, 'resources.decode_nodes'],
    ]);
  });

  it('1×TP1 + 1×TP4 colocated (5 of 8 GPUs) passes', async () => {
    const head = copyTree(base);
    write(head, `${RECIPES}/vllm/colocated.yaml`, colocated([1, 1], [1, 4]));
    expect(ownRules(await run(head))).toEqual([]);
  });
});

describe('frontier review: dangling references', () => {
  it('a deleted recipe still named by a CONFIG_FILE and by a launcher script is reported at both', async () => {
    const withScript = copyTree(base);
    const script = 'runners/launch_b200-nscale.sh';
    const mention = `srtctl apply -f recipes/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml\n`;
    write(withScript, script, `#!/bin/bash\n${mention}`);
    const head = join(tempFiles({}), 'head');
    cpSync(withScript, head, { recursive: true });
    rmSync(join(head, B200));
    const report = await run(head, { baseDir: withScript });
    expect(report.change.recipes.removed).toEqual([B200]);
    const findings = own(report);
    expect(findings.map((f) => [f.rule, f.file.slice(head.length + 1), f.line])).toEqual([
      ['recipe/dangling-reference', NVIDIA, 5301],
      ['recipe/dangling-reference', script, 2],
    ]);
    expect(findings[0]!.message).toContain('which this change deletes');
    expect(report.ok).toBe(false);
  });

  it('deleting a recipe nothing refers to is fine', async () => {
    const head = copyTree(base);
    const configs = readFileSync(join(base, NVIDIA), 'utf8') + readFileSync(join(base, 'configs/amd-master.yaml'), 'utf8');
    const recipes = (readdirSync(join(base, RECIPES), { recursive: true }) as string[]).filter((p) => p.endsWith('.yaml')).sort();
    const unused = recipes.find((p) => !configs.includes(p.split('/').pop()!));
    expect(unused).toBeDefined();
    const target = `${RECIPES}/${unused!}`;
    rmSync(join(head, target));
    const report = await run(head);
    expect(report.change.recipes.removed).toEqual([target]);
    expect(ownRules(report)).toEqual([]);
  });
});

describe('frontier review: re-running untouched scenarios', () => {
  const example = readFileSync(join(__dirname, '../../examples/configs/example-master.yaml'), 'utf8');
  const runners = readFileSync(join(__dirname, '../../examples/configs/runners.yaml'), 'utf8');
  const history = `- config-keys:\n    - llama3.1-8b-fp8-h100-sim\n  description:\n    - "first"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n`;
  const KEY = 'llama3.1-8b-fp8-h100-sim';
  const tree = (master: string, changelog: string): string =>
    tempFiles({ 'configs/example-master.yaml': master, 'configs/runners.yaml': runners, 'perf-changelog.yaml': changelog });
  const exampleBase = (): string => tree(example, history);
  const sim8k = '          - { tp: 1, conc-start: 1, conc-end: 8 }';

  it('warns when an edit of the 8k1k scenario re-runs the untouched 1k1k one', async () => {
    const head = tree(example.replace(sim8k, sim8k.replace('8', '4')), history + entry([KEY]));
    const report = await run(head, { baseDir: exampleBase() });
    const findings = own(report);
    expect(findings.map((f) => [f.rule, f.severity, f.key])).toEqual([['changelog/reruns-untouched-scenario', 'warning', KEY]]);
    expect(findings[0]!.message).toBe(`re-runs ${KEY} ISL 1024 / OSL 64: its 7 rows are exactly as before this change`);
    expect(findings[0]!.line).toBe(8);
    expect(report.ok).toBe(true); // a warning does not block
  });

  it('warns when a 1k1k/8k1k key split carries the untouched scenario to a new key', async () => {
    const start = example.indexOf(`${KEY}:\n`);
    const end = example.indexOf('\n# ', start);
    const block = example.slice(start, end);
    const [head1k, tail] = block.split('      - isl: 8192\n');
    const split = `${head1k!.replace(`${KEY}:`, `${KEY}-1k1k:`)}\n${`${head1k!.split('      - isl: 1024\n')[0]}      - isl: 8192\n${tail!}`.replace(`${KEY}:`, `${KEY}-8k1k:`).replace('conc-end: 8', 'conc-end: 4')}`;
    const head = tree(example.replace(block, split), history + entry([`${KEY}-1k1k`, `${KEY}-8k1k`]));
    const findings = own(await run(head, { baseDir: exampleBase() }));
    expect(findings.map((f) => [f.rule, f.key])).toEqual([['changelog/reruns-untouched-scenario', `${KEY}-1k1k`]]);
    expect(findings[0]!.hint).toContain(`moved ISL 1024 / OSL 64 from ${KEY} to ${KEY}-1k1k unchanged`);
  });

  it('does not warn when every scenario the entry runs changed', async () => {
    const edited = example
      .replace(sim8k, sim8k.replace('8', '4'))
      .replace('{ tp: 1, conc-start: 1, conc-end: 64 }', '{ tp: 1, conc-start: 1, conc-end: 32 }');
    const head = tree(edited, history + entry([KEY]));
    expect(ownRules(await run(head, { baseDir: exampleBase() }))).toEqual([]);
  });
});

describe('frontier review: what decides', () => {
  it('an unchanged tree reviews clean', async () => {
    const report = await run(base);
    expect(report.ok).toBe(true);
    expect(own(report)).toEqual([]);
    expect(report.change).toMatchObject({
      keys: { added: [], removed: [], edited: [] },
      recipes: { added: [], removed: [], changed: [] },
    });
    expect(report.sweep).toEqual([]);
  });

  it('a finding on a key whose recipe changed is the change’s own, even though the key did not change', async () => {
    const head = copyTree(base);
    edit(head, B200, 'concurrencies: "1"', 'concurrencies: "1x2"');
    const findings = own(await run(head));
    // The recipe is what the key's row runs: its rows measure something new, so it needs an entry too.
    expect(findings.map((f) => [f.rule, f.key])).toEqual([
      ['changelog/pairing', B200_KEY],
      ['recipe/concurrency-mismatch', B200_KEY],
    ]);
    expect(findings[0]!.message).toBe(
      'a recipe of this config changed: 1 of its 5 matrix rows measure something new, and no appended perf-changelog.yaml entry covers it, so no sweep will run it',
    );
  });

  it('--since decides on what changed after the reviewed commit only', async () => {
    const first = copyTree(base);
    edit(first, B200, '  install: true\n', '  install: false\n');
    appendFileSync(join(first, 'perf-changelog.yaml'), entry([B200_KEY]));
    const second = join(tempFiles({}), 'head');
    cpSync(first, second, { recursive: true });
    write(
      second,
      `${RECIPES}/vllm/extra.yaml`,
      'name: x\nmodel: { path: m, container: c, precision: fp8 }\nresources: { gpu_type: h200, agg_workers: 1 }\nslurm: { time_limit: "00:30:00" }\n',
    );
    const report = await run(second, { since: first });
    expect(own(report).map((f) => f.rule)).toEqual(['recipe/short-time-limit-without-health-check']);
    expect(report.findings.filter((f) => f.status === 'earlier').map((f) => f.rule)).toEqual(['recipe/dynamo-install-disabled']);
    expect(report.ok).toBe(false);
    const again = await run(first, { since: first });
    expect(again.ok).toBe(true);
  });
});

describe('frontier lint over the whole fixture tree', () => {
  it('finds exactly the true problems of the real data', async () => {
    const report = await lint(dirSnapshot(base));
    expect(report.keys).toBe(208);
    expect(report.recipes).toBeGreaterThanOrEqual(469);
    const errors = report.findings
      .filter((f) => f.severity === 'error')
      .map((f) => `${f.rule} ${f.key ?? f.file.split('/').pop()}`);
    expect(errors).toEqual([
      ...['0', '1', '2', '3', '4'].map((i) => `recipe/schema 8k1k_stp_lowlat_${i}.yaml`),
      'recipe/schema agg-gb200-tep16-balanced-agentic.yaml',
      'recipe/schema agg-gb200-tp16-latency-agentic.yaml',
      'recipe/schema 1p1d-tp4-dep4-eagle3-8k1k.yaml',
      'recipe/dynamo-version-mismatch dsv4-fp4-gb200-dynamo-vllm',
      'recipe/image-mismatch dsv4-fp4-gb200-dynamo-vllm-mtp2',
      'recipe/image-mismatch dsv4-fp4-gb200-dynamo-vllm-mtp2-nosynthetic',
      // Four entries pin DeepSeek-V4's draft-3 golden AL on draft-2 recipes (docs/speculative-decoding.md).
      ...['agg', 'agg', 'disagg', 'disagg'].map((k) => `specdec/golden-al dsv4-fp4-gb200-dynamo-vllm-agentic-mtp-${k}`),
    ]);
    const warnings = new Map<string, number>();
    for (const f of report.findings.filter((f) => f.severity === 'warning'))
      warnings.set(f.rule, (warnings.get(f.rule) ?? 0) + 1);
    expect(Object.fromEntries(warnings)).toEqual({
      'config/runner-label': 8,
      'recipe/config-file-unverifiable': 211,
      'specdec/eval-injection-on-request': 58,
    });
  });

  it('finds the recipes in the fixtures layout (srt-slurm-recipes/) as well', async () => {
    const report = await lint(dirSnapshot(inferencexTree('fixtures')));
    expect(report.recipes).toBeGreaterThanOrEqual(469);
    expect(report.findings.filter((f) => f.severity === 'error')).toHaveLength(15);
  });
});
