import { once } from '../../util/once.js';
import type { Checkout } from './checkout.js';
import { readCloneRoutes } from './clone-routes.js';
import type { CloneRoute, CloneRoutes } from './clone-routes.js';
import { evaluate } from '../bash/conditions.js';

/**
 * InferenceX's launchers (`runners/launch_<name>.sh`): the bash that configures each of its
 * clusters, with the srt-slurm clones each routes multinode recipes to.
 */

const RUNNERS_DIR = 'runners';
const LAUNCHER = /^runners\/launch_(.+)\.sh$/;

export interface Launcher {
  /** `b200-dgxc`, from `runners/launch_b200-dgxc.sh`. */
  name: string;
  /** The file read: the launcher, or the one it links to (`launch_b200-dgxc-slurm.sh` → `launch_b200-dgxc.sh`). */
  path: string;
  routes: CloneRoute[];
  problems: CloneRoutes['problems'];
}

/** The launcher a runner name uses: its name up to the last `_` (`h200-cw_00` → `h200-cw`). */
export const launcherOf = (runnerName: string): string => runnerName.replace(/_[^_]*$/, '');

/** Every launcher of the checkout, by name. */
export function treeLaunchers(tree: Pick<Checkout, 'snapshot'>): Promise<Map<string, Launcher>> {
  return once(tree, 'launchers', async () => {
    const paths = (await tree.snapshot.list(RUNNERS_DIR)).filter((p) => LAUNCHER.test(p));
    const texts = await tree.snapshot.readMany(paths);
    const read = new Map<string, CloneRoutes>();
    const out = new Map<string, Launcher>();
    for (const path of paths) {
      let file = path;
      let text = texts.get(path)?.toString('utf8') ?? '';
      // A symbolic link, as git stores it: the name of the file it points to.
      const target = /^(launch_[\w.-]+\.sh)\n?$/.exec(text)?.[1];
      if (target && texts.has(`${RUNNERS_DIR}/${target}`)) {
        file = `${RUNNERS_DIR}/${target}`;
        text = texts.get(file)!.toString('utf8');
      }
      if (!read.has(file)) read.set(file, readCloneRoutes(text));
      const { routes, problems } = read.get(file)!;
      out.set(LAUNCHER.exec(path)![1]!, { name: LAUNCHER.exec(path)![1]!, path: file, routes, problems });
    }
    return out;
  });
}

/** The clones of a launcher a row's variables can reach: `certain` when the route's condition holds, else it depends on what the file decides at run time. */
export function reachedRoutes(
  launcher: Launcher,
  env: Readonly<Record<string, string>>,
): { route: CloneRoute; certain: boolean }[] {
  return launcher.routes.flatMap((route) => {
    const value = evaluate(route.condition, env);
    return value === false ? [] : [{ route, certain: value === true }];
  });
}

/**
 * The launcher a runner label runs: its first runner's (`configs/runners.yaml`, `h200-cw_00` →
 * `h200-cw`), else for a label the file does not list (`cluster:h200-dgxc`) the launcher it names,
 * `launch_<name>.sh` or `launch_<name>-slurm.sh`.
 */
export function launcherForLabel(
  tree: { runners: { labels: Readonly<Record<string, readonly string[]>> } | undefined },
  launchers: ReadonlyMap<string, Launcher>,
  label: string,
): Launcher | undefined {
  const first = tree.runners?.labels[label]?.[0];
  if (first && launchers.has(launcherOf(first))) return launchers.get(launcherOf(first));
  const bare = label.replace(/^cluster:/, '');
  return launchers.get(bare) ?? launchers.get(`${bare}-slurm`);
}
