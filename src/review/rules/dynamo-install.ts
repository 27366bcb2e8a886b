import { dirname } from 'node:path';
import type { RecipeFile, Variant } from '../../recipes/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import type { Tree } from '../tree.js';
import images from './dynamo-images.json' with { type: 'json' };
import { once } from '../../util/once.js';
import { recipeLocation } from './shared.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const section = (recipe: Obj, name: string): Obj => (isObj(recipe[name]) ? recipe[name] : {});

/**
 * A family of images (dynamo-images.json): `match` is a repository (`vllm/vllm-openai`), or a
 * namespace ending in `/` (`rocm/`) that covers every repository under it.
 */
export interface ImageFamily {
  match: string;
  ships: boolean;
  source: string;
}
export const IMAGE_FAMILIES: readonly ImageFamily[] = images;
const TABLE = 'src/review/rules/dynamo-images.json';

/** What `model.container` names: an image, or something only the cluster can resolve. */
export type Container =
  { kind: 'image'; text: string; repository: string; image: string } | { kind: 'alias' | 'squash'; text: string };

/**
 * Parse `model.container` (`"<image>"` or `{ image: "<image>" }`). An image's repository drops the
 * tag, the digest and Docker Hub's `docker.io/…` and `library/` spellings, and reads enroot's
 * `registry#path` as `registry/path`; `image` is the repository with its tag.
 */
export function parseContainer(value: unknown): Container | undefined {
  const raw = isObj(value) ? value.image : value;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (text.endsWith('.sqsh') || text.startsWith('/') || text.startsWith('./')) return { kind: 'squash', text };
  // srtslurm.yaml's `containers:` maps short names (dynamo-sglang) to images or squash files.
  if (!text.includes('/') && !text.includes(':')) return { kind: 'alias', text };
  let ref = text.replace(/^docker:\/\//, '').replace('#', '/');
  ref = ref.split('@')[0]!;
  let tag = '';
  const colon = ref.lastIndexOf(':');
  // A colon before the last slash is a registry port, not a tag.
  if (colon > ref.lastIndexOf('/')) [ref, tag] = [ref.slice(0, colon), ref.slice(colon)];
  const repository = ref
    .toLowerCase()
    .replace(/^(docker\.io|registry-1\.docker\.io|index\.docker\.io)\//, '')
    .replace(/^library\//, '');
  return { kind: 'image', text, repository, image: repository + tag };
}

export function imageFamily(repository: string): ImageFamily | undefined {
  return IMAGE_FAMILIES.find((f) => (f.match.endsWith('/') ? repository.startsWith(f.match) : repository === f.match));
}

/** How a recipe pins the Dynamo it installs: `version 1.2.0`, `hash 92f5b3b8`, `wheel …`, or undefined. */
function dynamoPin(recipe: Obj): string | undefined {
  const dynamo = section(recipe, 'dynamo');
  for (const field of ['version', 'hash', 'wheel', 'commit'])
    if (dynamo[field] !== undefined) return `dynamo.${field}: ${String(dynamo[field])}`;
  return undefined;
}

interface DisabledInstall {
  file: RecipeFile;
  variant: Variant;
  container: Container;
}

/** Every recipe variant with a Dynamo frontend (the default) and dynamo.install: false. */
function disabledInstalls(tree: Tree): DisabledInstall[] {
  return once(tree, 'dynamo-install-disabled', () =>
    [...tree.recipes.values()]
      .sort((a, b) => (a.path < b.path ? -1 : 1))
      .flatMap((file) => file.variants.map((variant) => ({ file, variant, recipe: variant.recipe })))
      .filter(
        ({ recipe }) =>
          String(section(recipe, 'frontend').type ?? 'dynamo') === 'dynamo' && section(recipe, 'dynamo').install === false,
      )
      .flatMap(({ file, variant, recipe }) => {
        const container = parseContainer(section(recipe, 'model').container);
        return container ? [{ file, variant, container }] : [];
      }),
  );
}

/** The Dynamo pins of the recipes that install it, by image and by folder. */
function installedPins(tree: Tree): { byImage: Map<string, Set<string>>; byFolder: Map<string, Set<string>> } {
  return once(tree, 'dynamo-install-pins', () => {
    const byImage = new Map<string, Set<string>>();
    const byFolder = new Map<string, Set<string>>();
    const add = (map: Map<string, Set<string>>, key: string, pin: string): void => {
      map.set(key, (map.get(key) ?? new Set()).add(pin));
    };
    for (const file of tree.recipes.values())
      for (const { recipe } of file.variants) {
        const pin = dynamoPin(recipe);
        if (pin === undefined || section(recipe, 'dynamo').install === false) continue;
        const container = parseContainer(section(recipe, 'model').container);
        if (container?.kind === 'image') add(byImage, container.image, pin);
        add(byFolder, dirname(file.path), pin);
      }
    return { byImage, byFolder };
  });
}

function pinHint(tree: Tree, file: RecipeFile, image: string): string {
  const { byImage, byFolder } = installedPins(tree);
  const sameImage = [...(byImage.get(image) ?? [])];
  const sameFolder = [...(byFolder.get(dirname(file.path)) ?? [])];
  if (sameImage.length > 0) return `, as other recipes on ${image} do (${sameImage.slice(0, 2).join('; ')})`;
  if (sameFolder.length > 0) return `, as other recipes in this folder do (${sameFolder.slice(0, 2).join('; ')})`;
  return ' (dynamo.version, dynamo.hash or dynamo.wheel)';
}

const familyName = (f: ImageFamily): string => (f.match.endsWith('/') ? `${f.match}…` : f.match);

const location = (tree: Tree, { file, variant }: DisabledInstall): ReturnType<typeof recipeLocation> =>
  recipeLocation(tree, file, 'dynamo.install', variant);

/** A Dynamo frontend with dynamo.install: false on an image known not to ship Dynamo. */
export const dynamoInstallDisabled: Rule = {
  id: 'recipe/dynamo-install-disabled',
  severity: 'error',
  scope: 'tree',
  description: 'a Dynamo frontend on an image that does not ship Dynamo does not set dynamo.install: false',
  explanation: `With frontend.type: dynamo (the default) srtctl starts the Dynamo frontend and workers from the container. dynamo.install: false is right only for images that ship Dynamo (NVIDIA's ai-dynamo *-runtime images); engine images such as vllm/vllm-openai, lmsysorg/sglang, TensorRT-LLM release and ROCm images do not, and the frontend will have nothing to start. Which image families ship Dynamo, each with its source, is the table ${TABLE}. Fix: remove dynamo.install: false (or set install: true) and pin the Dynamo to install (dynamo.version, hash or wheel), as the other recipes on the image or in the folder do.`,
  check: ({ head }) => {
    const out: Finding[] = [];
    for (const disabled of disabledInstalls(head)) {
      const { file, container } = disabled;
      if (container.kind !== 'image') continue;
      const family = imageFamily(container.repository);
      if (!family || family.ships) continue;
      out.push({
        ...location(head, disabled),
        message: `frontend.type is dynamo but dynamo.install is false, and ${container.text} is a ${familyName(family)} image, which does not ship Dynamo (${family.source}): the frontend will have nothing to start`,
        hint: `remove dynamo.install: false (or set install: true) and pin the Dynamo to install${pinHint(head, file, container.image)}`,
        subjects: [subject.recipe(file.path)],
      });
    }
    return out;
  },
};

/** dynamo.install: false on an image the table does not know: nobody can tell whether it is right. */
export const dynamoImageUnknown: Rule = {
  id: 'recipe/dynamo-image-unknown',
  severity: 'warning',
  scope: 'tree',
  description: 'a Dynamo frontend with dynamo.install: false runs an image whose family Frontier knows',
  explanation: `dynamo.install: false with a Dynamo frontend is right only when the container ships Dynamo. Frontier decides that from the image's family in ${TABLE}; a container alias (dynamo-sglang, defined by the cluster's srtslurm.yaml), a squash file or an image of a family not in the table cannot be checked. Fix: if the image ships Dynamo, add a row for its family to the table (match, ships, and a source that says so) or name the image itself instead of an alias; if it does not, remove dynamo.install: false and pin the Dynamo to install.`,
  check: ({ head }) =>
    disabledInstalls(head).flatMap((disabled) => {
      const { file, container } = disabled;
      if (container.kind === 'image' && imageFamily(container.repository)) return [];
      const what =
        container.kind === 'alias'
          ? `the container alias ${container.text} (defined by the cluster's srtslurm.yaml)`
          : container.kind === 'squash'
            ? `the squash file ${container.text}`
            : `${container.text}, an image of a family not in ${TABLE},`;
      return [
        {
          ...location(head, disabled),
          message: `frontend.type is dynamo and dynamo.install is false, but Frontier cannot tell whether ${what} ships Dynamo`,
          hint:
            container.kind === 'image'
              ? `if ${container.repository} ships Dynamo, add a row for it to ${TABLE}; if not, remove dynamo.install: false`
              : `name the image in model.container so Frontier can check it, or remove dynamo.install: false if the image does not ship Dynamo`,
          subjects: [subject.recipe(file.path)],
        },
      ];
    }),
};
