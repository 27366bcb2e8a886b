import { EnvReferenceError, expandPath } from './env-reference.js';
import { ClusterProfileError } from './profile.js';
import type { ClusterProfile } from './profile.js';

/**
 * Where a model's weights are on this cluster (its `models` entry, expanded), or undefined when
 * the profile has none (the engine then loads the catalog's model id).
 */
export function modelPath(
  profile: ClusterProfile,
  modelPrefix: string,
  precision: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const index = profile.models.findIndex((m) => m.modelPrefix === modelPrefix && m.precision === precision);
  if (index < 0) return undefined;
  const entry = profile.models[index]!;
  try {
    return expandPath(entry.path, env);
  } catch (e) {
    if (!(e instanceof EnvReferenceError)) throw e;
    const pos = profile.source.locate(['models', index, 'path']);
    throw new ClusterProfileError([
      {
        severity: 'error',
        rule: 'env-reference',
        file: profile.source.file,
        line: pos.line,
        col: pos.col,
        path: `models[${index}].path`,
        message: `${e.message}: cluster ${profile.name} keeps ${modelPrefix} ${precision} at "${entry.path}"`,
        hint: `export ${e.variable}=<path> before running, or write the path out in the profile`,
      },
    ]);
  }
}
