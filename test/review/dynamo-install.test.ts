import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dirSnapshot } from '../../src/changelog/index.js';
import { lint, review } from '../../src/review/index.js';
import type { RuleFinding } from '../../src/review/index.js';
import { IMAGE_FAMILIES, imageFamily, parseContainer } from '../../src/review/rules/dynamo-install.js';
import { copyTree, write } from './edit-tree.js';
import { inferencexTree } from '../helpers.js';

const RECIPES = 'benchmarks/multi_node/srt-slurm-recipes';
const FAMILY = `${RECIPES}/vllm/new-model/8k1k`;
const NAMES = ['disagg-b200-1p1d', 'disagg-b200-1p2d', 'disagg-b200-2p1d', 'disagg-b200-3p1d'];
const RULES = ['recipe/dynamo-install-disabled', 'recipe/dynamo-image-unknown'];

let base: string;
beforeAll(() => {
  base = inferencexTree();
});

/** A B200 recipe of the new family; `dynamo.install` is on line 7. */
const recipe = (name: string, container: string, frontend = 'dynamo'): string =>
  `name: "${name}"
model:
  path: "new-model"
  container: ${container}
  precision: "fp8"
dynamo:
  install: false
resources:
  gpu_type: "b200"
  gpus_per_node: 8
  prefill_nodes: 1
  decode_nodes: 1
  prefill_workers: 1
  decode_workers: 1
  gpus_per_prefill: 8
  gpus_per_decode: 8
frontend:
  type: ${frontend}
backend:
  type: vllm
benchmark:
  type: "sa-bench"
  isl: 8192
  osl: 1024
  concurrencies: "1"
`;

/** The fixture tree plus the four recipes of the new family, all on `container`. */
function family(container: string, frontend?: string): string {
  const head = copyTree(base);
  for (const name of NAMES) write(head, `${FAMILY}/${name}.yaml`, recipe(name, container, frontend));
  return head;
}

const ours = (findings: RuleFinding[]): RuleFinding[] => findings.filter((f) => RULES.includes(f.rule));
const lintOurs = async (dir: string): Promise<RuleFinding[]> => ours((await lint(dirSnapshot(dir))).findings);

describe('recipe/dynamo-install-disabled: decided by what the image ships', () => {
  it('a new family on vllm/vllm-openai, none installing Dynamo: one error per recipe', async () => {
    const head = family('"vllm/vllm-openai:v0.20.1-ubuntu2404"');
    const findings = await lintOurs(head);
    expect(findings.map((f) => [f.rule, f.severity, f.file, f.line, f.path])).toEqual(
      NAMES.map((name) => ['recipe/dynamo-install-disabled', 'error', join(head, `${FAMILY}/${name}.yaml`), 7, 'dynamo.install']),
    );
    const [first] = findings;
    expect(first!.message).toBe(
      'frontend.type is dynamo but dynamo.install is false, and vllm/vllm-openai:v0.20.1-ubuntu2404 is a vllm/vllm-openai image, which does not ship Dynamo (https://docs.vllm.ai/en/latest/deployment/docker.html): the frontend will have nothing to start',
    );
    // The other recipes on this image install a pinned Dynamo wheel: the fix names it.
    expect(first!.hint).toBe(
      'remove dynamo.install: false (or set install: true) and pin the Dynamo to install, as other recipes on vllm/vllm-openai:v0.20.1-ubuntu2404 do (dynamo.wheel: 1.2.0.dev20260426)',
    );
  });

  it('reviewed as a change, the four errors are the change’s own and block it', async () => {
    const head = family('"vllm/vllm-openai:v0.20.1-ubuntu2404"');
    const report = await review(dirSnapshot(base, 'base'), dirSnapshot(head, 'head'), { pr: 1 });
    const own = report.findings.filter((f) => f.status === 'new' && RULES.includes(f.rule));
    expect(own.map((f) => f.file)).toEqual(NAMES.map((name) => join(head, `${FAMILY}/${name}.yaml`)));
    expect(report.ok).toBe(false);
  });

  it('suggests the pin of the recipes in the same folder when none on the image has one', async () => {
    const head = family('"vllm/vllm-openai:brand-new-tag"');
    write(
      head,
      `${FAMILY}/agg-b200.yaml`,
      recipe('agg-b200', '"vllm/vllm-openai:older-tag"').replace('  install: false\n', '  install: true\n  hash: 92f5b3b8\n'),
    );
    const findings = await lintOurs(head);
    expect(findings).toHaveLength(4);
    expect(findings[0]!.hint).toBe(
      'remove dynamo.install: false (or set install: true) and pin the Dynamo to install, as other recipes in this folder do (dynamo.hash: 92f5b3b8)',
    );
  });

  it('one B200 recipe of the real tree on lmsysorg/sglang: the pin comes from the others on its image', async () => {
    const head = copyTree(base);
    const path = join(head, `${RECIPES}/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml`);
    writeFileSync(path, readFileSync(path, 'utf8').replace('  install: true\n', '  install: false\n'));
    const findings = await lintOurs(head);
    expect(findings.map((f) => [f.rule, f.file, f.line, f.col])).toEqual([['recipe/dynamo-install-disabled', path, 10, 12]]);
    expect(findings[0]!.message).toContain('lmsysorg/sglang:nightly-dev-cu13-20260710-cfc66e05 is a lmsysorg/sglang image');
    expect(findings[0]!.hint).toContain('dynamo.hash: 92f5b3b8d7dd5ab9179d4b1034bd2c1c0803693e');
  });

  it('passes the same family on an ai-dynamo runtime image, which ships Dynamo', async () => {
    expect(await lintOurs(family('nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.2.0'))).toEqual([]);
    expect(await lintOurs(family('"nvcr.io#nvidia/ai-dynamo/sglang-runtime:1.2.0-cuda13"'))).toEqual([]);
  });

  it('a frontend that is not Dynamo needs no Dynamo: nothing', async () => {
    expect(await lintOurs(family('"vllm/vllm-openai:v0.20.1-ubuntu2404"', 'sglang'))).toEqual([]);
    expect(await lintOurs(family('dynamo-sglang', 'vllm'))).toEqual([]);
  });

  it('reads a digest-pinned image and the { image: … } form', async () => {
    const head = family(
      '"lmsysorg/sglang:v0.5.14-cu130@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3"',
    );
    write(head, `${FAMILY}/${NAMES[3]}.yaml`, recipe(NAMES[3]!, '{ image: "docker.io/rocm/vllm:rocm7.0.0_vllm_0.11.2" }'));
    const findings = await lintOurs(head);
    expect(findings.map((f) => f.rule)).toEqual(Array(4).fill('recipe/dynamo-install-disabled'));
    expect(findings[0]!.message).toContain('is a lmsysorg/sglang image, which does not ship Dynamo');
    expect(findings[3]!.message).toContain(
      'docker.io/rocm/vllm:rocm7.0.0_vllm_0.11.2 is a rocm/… image, which does not ship Dynamo (https://docs.nvidia.com/dynamo/resources/support-matrix)',
    );
  });
});

describe('recipe/dynamo-image-unknown: an image Frontier cannot judge', () => {
  it('a container alias: one warning per recipe', async () => {
    const head = family('dynamo-sglang');
    const findings = await lintOurs(head);
    expect(findings.map((f) => [f.rule, f.severity, f.file, f.line])).toEqual(
      NAMES.map((name) => ['recipe/dynamo-image-unknown', 'warning', join(head, `${FAMILY}/${name}.yaml`), 7]),
    );
    expect(findings[0]!.message).toBe(
      "frontend.type is dynamo and dynamo.install is false, but Frontier cannot tell whether the container alias dynamo-sglang (defined by the cluster's srtslurm.yaml) ships Dynamo",
    );
  });

  it('a squash file, and an image of a family not in the table', async () => {
    const head = family('"/lustre/containers/vllm-dynamo.sqsh"');
    write(head, `${FAMILY}/${NAMES[0]}.yaml`, recipe(NAMES[0]!, '"ghcr.io/example/dynamo-vllm:1.0"'));
    const findings = await lintOurs(head);
    expect(findings.map((f) => f.rule)).toEqual(Array(4).fill('recipe/dynamo-image-unknown'));
    expect(findings[0]!.message).toContain('ghcr.io/example/dynamo-vllm:1.0, an image of a family not in');
    expect(findings[0]!.hint).toBe(
      'if ghcr.io/example/dynamo-vllm ships Dynamo, add a row for it to src/review/rules/dynamo-images.json; if not, remove dynamo.install: false',
    );
    expect(findings[1]!.message).toContain('the squash file /lustre/containers/vllm-dynamo.sqsh');
  });
});

describe('the real fixture tree', () => {
  it('has Dynamo frontends with dynamo.install: false only on ai-dynamo runtime images: no finding', async () => {
    const report = await lint(dirSnapshot(base));
    expect(ours(report.findings)).toEqual([]);
    // 46 TensorRT-LLM recipes rely on the runtime image's Dynamo; the Kimi-K3 ones have a vLLM frontend.
    const disabled = Object.values(recipeTexts(base)).filter((text) => text.includes('\n  install: false\n'));
    const onRuntime = disabled.filter((text) => text.includes('nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:'));
    expect(onRuntime).toHaveLength(46);
    expect(disabled.filter((text) => !onRuntime.includes(text)).every((text) => text.includes('\n  type: vllm\n'))).toBe(true);
  });

  it('the same 46 recipes on the TensorRT-LLM release image (no Dynamo) would be 46 errors', async () => {
    const head = copyTree(base);
    let changed = 0;
    for (const [path, text] of Object.entries(recipeTexts(head)))
      if (text.includes('\n  install: false\n') && text.includes('ai-dynamo/tensorrtllm-runtime:')) {
        writeFileSync(
          join(head, RECIPES, path),
          text.replace('ai-dynamo/tensorrtllm-runtime:1.3.0-dev.1-cuda13', 'tensorrt-llm/release:1.3.0rc24'),
        );
        changed++;
      }
    expect(changed).toBe(46);
    const findings = await lintOurs(head);
    expect(findings).toHaveLength(46);
    expect(new Set(findings.map((f) => f.rule))).toEqual(new Set(['recipe/dynamo-install-disabled']));
  });
});

describe('image references', () => {
  it('strips tag and digest, reads enroot and Docker Hub spellings', () => {
    const repo = (v: unknown): string | undefined => {
      const c = parseContainer(v);
      return c?.kind === 'image' ? c.repository : c?.kind;
    };
    expect(repo('vllm/vllm-openai:v0.27.1')).toBe('vllm/vllm-openai');
    expect(repo('lmsysorg/sglang:v0.5.14-cu130@sha256:5027e95b')).toBe('lmsysorg/sglang');
    expect(repo('lmsysorg/sglang@sha256:5027e95b')).toBe('lmsysorg/sglang');
    expect(repo({ image: 'vllm/vllm-openai:v0.27.1' })).toBe('vllm/vllm-openai');
    expect(repo('nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24')).toBe('nvcr.io/nvidia/tensorrt-llm/release');
    expect(repo('docker://nvcr.io#nvidia/ai-dynamo/vllm-runtime:1.2.0')).toBe('nvcr.io/nvidia/ai-dynamo/vllm-runtime');
    expect(repo('docker.io/vllm/vllm-openai:latest')).toBe('vllm/vllm-openai');
    expect(repo('registry-1.docker.io/library/ubuntu:24.04')).toBe('ubuntu');
    expect(repo('ubuntu:24.04')).toBe('ubuntu');
    expect(repo('registry.example.com:5000/team/img:1.0')).toBe('registry.example.com:5000/team/img');
    expect(repo('dynamo-sglang')).toBe('alias');
    expect(repo('dynamo-trtllm')).toBe('alias');
    expect(repo('/shared/images/sglang.sqsh')).toBe('squash');
    expect(repo(undefined)).toBeUndefined();
    expect(parseContainer('lmsysorg/sglang:v0.5.14@sha256:ab')).toMatchObject({ image: 'lmsysorg/sglang:v0.5.14' });
  });

  it('matches families by repository, or by namespace for a row ending in /', () => {
    expect(imageFamily('nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime')?.ships).toBe(true);
    expect(imageFamily('lmsysorg/sglang')?.ships).toBe(false);
    expect(imageFamily('lmsysorg/sglang-rocm')?.match).toBe('lmsysorg/sglang-rocm');
    expect(imageFamily('rocm/atom-dev')?.match).toBe('rocm/');
    expect(imageFamily('vllm/vllm-openai-nightly')).toBeUndefined();
    expect(imageFamily('nvcr.io/nvidia/ai-dynamo/dynamo-frontend')).toBeUndefined();
    for (const row of IMAGE_FAMILIES) expect(row.source).toMatch(/^https:\/\//);
  });
});

/** Every recipe of a tree as { path: text }. */
function recipeTexts(dir: string): Record<string, string> {
  const root = join(dir, RECIPES);
  const paths = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.yaml'));
  return Object.fromEntries(paths.map((p) => [p, readFileSync(join(root, p), 'utf8')]));
}
