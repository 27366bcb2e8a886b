import { readFile } from 'node:fs/promises';
import type { Problem } from '../catalog/index.js';
import { UserError } from '../util/user-error.js';
import { loadRecipe, locateInRecipe } from './load.js';
import { planRecipe } from './plan.js';
import type { Plan } from './plan.js';
import { VariantError, selectVariant } from './variants.js';
import type { Variant } from './variants.js';

/** `frontier recipe plan`'s work: the dry-run plan of every recipe variant named on its command line. */

export interface PlannedVariant {
  file: string;
  selector: string | undefined;
  plan?: Plan;
  problems: Problem[];
}

/** Plan every variant of each `FILE[:selector]` argument; schema and topology problems located in the file. */
export async function planRecipeFiles(args: readonly string[]): Promise<PlannedVariant[]> {
  const out: PlannedVariant[] = [];
  for (const arg of args) {
    const colon = arg.lastIndexOf(':');
    const [path, selector] = colon > 0 ? [arg.slice(0, colon), arg.slice(colon + 1)] : [arg, undefined];
    const text = await readFile(path).catch((e: NodeJS.ErrnoException) => {
      throw new UserError(e.code === 'ENOENT' ? `${path}: no such recipe file` : `${path}: ${e.message}`);
    });
    const file = await loadRecipe(path, text);
    const problems = file.problems;
    if (file.variants.length === 0) {
      out.push({ file: path, selector, problems });
      continue;
    }
    let variants: Variant[] = file.variants;
    if (selector !== undefined) {
      try {
        variants = [selectVariant(file.doc.value, selector)];
      } catch (e) {
        if (e instanceof VariantError) throw new UserError(`${path}: ${e.message}`);
        throw e;
      }
    }
    for (const variant of variants) {
      const plan = planRecipe(variant.recipe);
      const located = plan.findings.map((f): Problem => {
        const pos = locateInRecipe(file, f.path, variant);
        return {
          severity: f.severity,
          rule: f.rule,
          file: path,
          line: pos.line,
          col: pos.col,
          key: variant.selector,
          path: f.path,
          message: f.message,
          hint: f.hint,
        };
      });
      out.push({ file: path, selector: variant.selector, plan, problems: [...problems, ...located] });
    }
  }
  return out;
}
