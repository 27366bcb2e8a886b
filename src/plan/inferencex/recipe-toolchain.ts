import { dirSnapshot } from '../../changelog/index.js';
import { launcherForLabel, multiNodeWorkflowEnv, reachedRoutes, treeLaunchers } from '../../clusters/index.js';
import type { CloneRoute } from '../../clusters/index.js';
import type { MultiNodeRow } from '../../matrix/index.js';
import { MODELED_SRTCTL } from '../../recipes/index.js';
import { once } from '../../util/once.js';
import type { InferencexTree } from './tree.js';

/**
 * A recipe field the renderer does not know may be right for the srt-slurm the row's launcher
 * clones (a later release, a fork): where that launcher routes the row, so that a refusal names
 * the toolchain whose schema is unknown here rather than calling the recipe wrong.
 */

const refText = (r: CloneRoute): string =>
  r.ref.kind === 'default' ? 'its default branch' : `${r.ref.kind === 'verified' ? 'tag' : r.ref.kind} ${r.ref.value ?? '?'}`;

/** Why the refusal of `field` may say nothing of the recipe: the clones the row's launcher runs it with. */
export async function unknownToolchainNote(tree: InferencexTree, row: MultiNodeRow, field: string): Promise<string> {
  // One reading of the launchers per checkout, however many recipes ask.
  const launchers = await treeLaunchers(once(tree, 'launcher-files', () => ({ snapshot: dirSnapshot(tree.root) })));
  const launcher = launcherForLabel({ runners: { labels: Object.fromEntries(tree.labels) } }, launchers, row.runner);
  const reached = launcher
    ? reachedRoutes(launcher, multiNodeWorkflowEnv(row, { resultFilename: '', runnerName: `${launcher.name}_0` })).map(
        (r) => r.route,
      )
    : [];
  const where =
    launcher && reached.length > 0
      ? `${launcher.path} runs this row with ${reached.map((r) => `${r.repo} at ${refText(r)} (line ${r.line})`).join(' or ')}`
      : 'no launcher of the checkout says which srt-slurm runs this row';
  return `${field} is not in srtctl ${MODELED_SRTCTL}'s schema, the srt-slurm Frontier renders recipes as; ${where}, a toolchain whose schema Frontier does not know, so the recipe may be right for it: run the row with that toolchain's own srtctl (a Slurm cluster profile's srtctl: { root: <its checkout> })`;
}
