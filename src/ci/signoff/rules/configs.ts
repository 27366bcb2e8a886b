import type { ConfigEntry } from '../change.js';
import { notApplicable, pass, fail } from '../rule.js';
import type { SignoffContext, SignoffRule } from '../rule.js';

/** SKUs that are not "new hardware": upstream images are required on them (the verifier prompt's list). */
export const ESTABLISHED_SKUS = ['h100', 'h200', 'b200', 'b300', 'gb200', 'gb300', 'mi300x', 'mi325x', 'mi355x'];

/** The Docker Hub organisation each upstream engine publishes its images under. */
export const UPSTREAM_ORGS: Record<string, string> = { vllm: 'vllm', sglang: 'lmsysorg' };

/** The GPU of a runner label: `mi355x` of `mi355x-amds`, `cluster:mi355x-amds` or `b200-multinode`. */
const skuOf = (runner: string): string =>
  runner
    .toLowerCase()
    .replace(/^cluster:/, '')
    .split(/[-_]/)[0] ?? '';

/** The image as a Docker Hub path: `#` read as `/` (some entries write it so), Docker Hub's own host dropped. */
export function imageRepository(image: string): string {
  return image
    .replace(/#/g, '/')
    .replace(/^(?:docker\.io|registry-1\.docker\.io|index\.docker\.io)\//, '')
    .replace(/[@:].*$/, '');
}

/** Whether the sign-off's details or the PR body name the entry or its image (where an exception is justified). */
const mentioned = (context: SignoffContext, entry: ConfigEntry, extra: string[] = []): boolean =>
  [entry.key, imageRepository(entry.image), ...extra].some((s) => s !== '' && context.declarations.includes(s.toLowerCase()));

export const upstreamImageRule: SignoffRule = {
  id: 'signoff/upstream-image',
  checkNumber: 6,
  name: 'upstream image',
  severity: 'error',
  description: 'vLLM and SGLang entries on established hardware run upstream images (vllm/…, lmsysorg/…)',
  explanation: `On established hardware (${ESTABLISHED_SKUS.join(', ')}) a \`framework: vllm\` entry runs an image of Docker Hub's vllm organisation and \`framework: sglang\` one of lmsysorg, not a vendor fork. The exception (new hardware, or a model architecture upstream does not support yet) counts when the additional detail section or the PR body names the entry or its image. Fix: switch to the upstream image, or justify the exception there.`,
  check(context) {
    const entries = context.entries.filter(
      (e) => UPSTREAM_ORGS[e.framework] !== undefined && ESTABLISHED_SKUS.includes(skuOf(e.runner)),
    );
    if (entries.length === 0) return notApplicable('no vLLM/SGLang master-config entry on established hardware added or changed');
    const offending = entries.filter((e) => !imageRepository(e.image).startsWith(`${UPSTREAM_ORGS[e.framework]}/`));
    const unjustified = offending.filter((e) => !mentioned(context, e));
    if (unjustified.length > 0)
      return fail(
        `${unjustified.map((e) => `${e.key} runs ${e.image}`).join('; ')}: not an upstream image, and no exception is given`,
        unjustified.map((e) => ({
          message: `${e.key} (${e.framework} on ${e.runner}) runs ${e.image || '(no image)'}, not an image of hub.docker.com/u/${UPSTREAM_ORGS[e.framework]}`,
          file: e.file,
          hint: `use a ${UPSTREAM_ORGS[e.framework]}/ image, or justify the exception in the additional detail section naming ${e.key}`,
        })),
      );
    const justified = offending.length > 0 ? `; ${offending.length} exception(s) justified in the sign-off or PR body` : '';
    return pass(`${entries.length - offending.length} of ${entries.length} vLLM/SGLang entries run upstream images${justified}`);
  },
};

export const engineFirstRule: SignoffRule = {
  id: 'signoff/engine-first',
  checkNumber: 6,
  name: 'engine-first ordering',
  severity: 'error',
  description: 'a new entry for another framework has a vLLM or SGLang entry for the same model and SKU',
  explanation:
    'vLLM/SGLang submissions land before additional frameworks (TRT-LLM, ATOM, dynamo, …): a new entry of another framework needs a `framework: vllm` or `framework: sglang` entry with the same model-prefix on the same SKU in the master configs at the head, unless the additional detail section or the PR body names the entry (new hardware, or a model upstream cannot run yet). Fix: submit the vLLM/SGLang config first, or justify the exception.',
  check(context) {
    const entries = context.entries.filter((e) => e.isNew && UPSTREAM_ORGS[e.framework] === undefined);
    if (entries.length === 0) return notApplicable('no new entry for a framework other than vLLM/SGLang');
    const orphans = entries.filter(
      (e) =>
        !context.headEntries.some(
          (h) =>
            UPSTREAM_ORGS[h.framework] !== undefined && h.modelPrefix === e.modelPrefix && skuOf(h.runner) === skuOf(e.runner),
        ) && !mentioned(context, e),
    );
    if (orphans.length > 0)
      return fail(
        `${orphans.map((e) => e.key).join(', ')}: no vLLM/SGLang entry for the same model and SKU`,
        orphans.map((e) => ({
          message: `${e.key} (${e.framework}, ${e.modelPrefix} on ${skuOf(e.runner)}) lands before any vLLM/SGLang entry for ${e.modelPrefix} on ${skuOf(e.runner)}`,
          file: e.file,
          hint: `submit the vLLM/SGLang config first, or justify the exception in the additional detail section naming ${e.key}`,
        })),
      );
    return pass(
      `${entries.length} new non-vLLM/SGLang entr${entries.length === 1 ? 'y has' : 'ies have'} a vLLM/SGLang sibling (or a stated exception)`,
    );
  },
};

const RECIPE_LINK =
  /https?:\/\/(?:recipes\.vllm\.ai|github\.com\/vllm-project\/recipes|github\.com\/sgl-project\/sglang|docs\.sglang\.(?:io|ai)\/cookbook)\S*/i;

export const recipeLinkedRule: SignoffRule = {
  id: 'signoff/recipe-linked',
  checkNumber: 3,
  name: 'recipe linked',
  severity: 'error',
  description:
    'a single-node vLLM/SGLang change links its upstream recipe (vLLM recipes, SGLang cookbook) in the additional detail section',
  explanation:
    'The community must be able to reproduce a single-node vLLM/SGLang benchmark from upstream documentation, so the additional detail section links the recipe PR (vllm-project/recipes, sgl-project/sglang) or the published page (recipes.vllm.ai, docs.sglang.io/cookbook). Multi-node and disaggregated submissions are exempt. Whether the linked PR is merged and its server args match needs the network and a reader: this rule checks only that a link is there. Fix: add the link.',
  check(context) {
    const entries = context.entries.filter((e) => UPSTREAM_ORGS[e.framework] !== undefined && !e.multinode);
    if (entries.length === 0) return notApplicable('no single-node vLLM/SGLang entry added or changed');
    const link = context.signoff.details.map((d) => RECIPE_LINK.exec(d)?.[0]).find(Boolean);
    if (link) return pass(`recipe linked: ${link} (merge state and server args not verified here)`);
    return fail(`no upstream recipe link for ${entries.map((e) => e.key).join(', ')}`, [
      {
        message: `the additional detail section links no vLLM recipe or SGLang cookbook page for ${entries.map((e) => e.key).join(', ')}`,
        hint: 'link the merged recipe PR or the published recipe page in the additional detail section',
      },
    ]);
  },
};
