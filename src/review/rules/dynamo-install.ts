import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import { recipeLocation } from './shared.js';

type Obj = Record<string, unknown>;
const section = (recipe: Obj, name: string): Obj => (recipe[name] ?? {}) as Obj;

/** How a recipe pins the Dynamo it installs: `version 1.2.0`, `hash 92f5b3b8`, `wheel …`, or undefined. */
function dynamoPin(recipe: Obj): string | undefined {
  const dynamo = section(recipe, 'dynamo');
  for (const field of ['version', 'hash', 'wheel', 'commit'])
    if (dynamo[field] !== undefined) return `dynamo.${field}: ${String(dynamo[field])}`;
  return undefined;
}

/**
 * frontend.type dynamo with dynamo.install: false, while every other recipe on the same image
 * installs Dynamo: the image has no Dynamo, so the frontend has nothing to start.
 */
export const dynamoInstallDisabled: Rule = {
  id: 'recipe/dynamo-install-disabled',
  severity: 'error',
  scope: 'tree',
  description: 'a Dynamo frontend on an image that needs Dynamo installed does not set dynamo.install: false',
  explanation:
    "With frontend.type: dynamo (the default) srtctl starts the Dynamo frontend and workers from the container. dynamo.install: false is right only for images that ship Dynamo (e.g. NVIDIA's ai-dynamo runtime images). When every other recipe on the same image installs Dynamo, this one will start nothing: remove install: false, and pin the Dynamo the others install.",
  check: ({ head }) => {
    // Per image: each recipe file with a Dynamo frontend, and whether all its variants install Dynamo.
    const byImage = new Map<string, Map<string, { installs: boolean; pin: string | undefined }>>();
    for (const file of head.recipes.values()) {
      for (const { recipe } of file.variants) {
        if (String(section(recipe, 'frontend').type ?? 'dynamo') !== 'dynamo') continue;
        const image = String(section(recipe, 'model').container ?? '');
        const files = byImage.get(image) ?? new Map<string, { installs: boolean; pin: string | undefined }>();
        byImage.set(image, files);
        const installs = section(recipe, 'dynamo').install !== false;
        const known = files.get(file.path);
        files.set(file.path, { installs: (known?.installs ?? true) && installs, pin: known?.pin ?? dynamoPin(recipe) });
      }
    }
    const out: Finding[] = [];
    for (const file of head.recipes.values()) {
      for (const variant of file.variants) {
        const r = variant.recipe;
        if (String(section(r, 'frontend').type ?? 'dynamo') !== 'dynamo' || section(r, 'dynamo').install !== false) continue;
        const image = String(section(r, 'model').container ?? '');
        const others = [...(byImage.get(image) ?? [])].filter(([path]) => path !== file.path).map(([, o]) => o);
        if (others.length === 0 || !others.every((o) => o.installs)) continue;
        const pins = [...new Set(others.map((o) => o.pin).filter((p) => p !== undefined))];
        const n = others.length;
        out.push({
          ...recipeLocation(head, file, 'dynamo.install', variant),
          message: `frontend.type is dynamo but dynamo.install is false, while ${n === 1 ? 'the other recipe' : `all ${n} other recipes`} on ${image} install Dynamo: the frontend will have nothing to start`,
          hint: `remove dynamo.install: false${pins.length > 0 ? ` and pin what the others install (${pins.slice(0, 2).join('; ')})` : ''}`,
          subjects: [subject.recipe(file.path)],
        });
      }
    }
    return out;
  },
};
