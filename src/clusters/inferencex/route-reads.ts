import { isAgenticRow, isMultiNodeRow } from '../../matrix/index.js';
import type { DescriptiveFields, MatrixRow, MultiNodeRow } from '../../matrix/index.js';
import { recipeInTree } from '../../recipes/index.js';
import { once } from '../../util/once.js';
import { SHELL_NAME, readShell } from '../bash/code.js';
import type { Code, ShellFile } from '../bash/code.js';
import type { Checkout } from './checkout.js';
import { launcherForLabel, treeLaunchers } from './read-launchers.js';
import { DESCRIPTIVE_FIELDS, DESCRIPTIVE_VARIABLES, multiNodeWorkflowEnv } from './workflow-env.js';

/*
 * Which of a row's fields only describe it, read with the engine's eyes: a field of
 * DESCRIPTIVE_VARIABLES whose variable nothing on the row's route reads reaches the job's name
 * and the result's metadata, never the engine, its recipe or the client. The route is the
 * launcher of the row's runner, the benchmark scripts it can pick for the row, the recipes the row
 * runs, and every shell file these name; a sourced library counts with its top-level code and the
 * functions called on the route. Reading is by name (`KV_OFFLOADING` anywhere in a shell file's
 * code; `$KV_OFFLOADING` in a recipe, whose keys set variables rather than read them), so a
 * variable that is only mentioned still counts as read: a doubt keeps the field measured.
 */

/** What reading routes needs of a checkout: its files, runners, and the bytes of its recipes (recipe path → bytes). */
export type RouteTree = Pick<Checkout, 'snapshot' | 'runners' | 'recipesDir'> & { recipeBytes: ReadonlyMap<string, Buffer> };

const NONE: ReadonlySet<string> = new Set();
const SHELL_DIRS = ['benchmarks', 'runners'];
const RECIPE_READ = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;

interface ShellIndex {
  /** Path → text of every shell file under benchmarks/ and runners/. */
  texts: Map<string, string>;
  /** A file name (`benchmark_lib.sh`) → the paths of the files so named. */
  byName: Map<string, string[]>;
  /** A file as read (once, when a route first reaches it). */
  read(path: string): ShellFile;
}

/** Files read, by text: a history's trees share most of their files (`review --each`). */
const readTexts = new Map<string, ShellFile>();

function readShellOnce(text: string): ShellFile {
  if (!readTexts.has(text)) readTexts.set(text, readShell(text));
  return readTexts.get(text)!;
}

function shellIndex(tree: RouteTree): Promise<ShellIndex> {
  return once(tree, 'route-shell-files', async () => {
    const paths = (await Promise.all(SHELL_DIRS.map((d) => tree.snapshot.list(d)))).flat().filter((p) => p.endsWith('.sh'));
    const texts = new Map([...(await tree.snapshot.readMany(paths))].map(([path, bytes]) => [path, bytes.toString('utf8')]));
    const byName = new Map<string, string[]>();
    for (const path of texts.keys()) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      byName.set(name, [...(byName.get(name) ?? []), path]);
    }
    return { texts, byName, read: (path: string) => readShellOnce(texts.get(path)!) };
  });
}

/** The files a row's run goes through, before the shell files they name. */
interface Route {
  shell: string[];
  /** Recipe paths in the tree. */
  recipes: string[];
}

/** A row's route, or undefined where it is not known here (no benchmark script, a recipe not in the tree). */
function routeOf(tree: RouteTree, launcher: string, shell: ShellIndex, row: MatrixRow): Route | undefined {
  const paths = [...shell.texts.keys()];
  if (isMultiNodeRow(row)) {
    const env = multiNodeWorkflowEnv(row as MultiNodeRow, { resultFilename: '', runnerName: '' });
    const values = [env.CONFIG_FILE, env.EVAL_CONFIG_FILE].filter((v): v is string => !!v);
    // A job script's route: any script of benchmarks/multi_node.
    if (values.length === 0)
      return { shell: [launcher, ...paths.filter((p) => p.startsWith('benchmarks/multi_node/'))], recipes: [] };
    const recipes = values.map((v) => recipeInTree(v, tree.recipesDir).inTree);
    return recipes.every((r) => tree.recipeBytes.has(r)) ? { shell: [launcher], recipes } : undefined;
  }
  const prefix = `benchmarks/single_node/${isAgenticRow(row) ? 'agentic' : 'fixed_seq_len'}/${row['exp-name'].split('_')[0]}_${row.precision}_`;
  const scripts = paths.filter((p) => p.startsWith(prefix));
  return scripts.length > 0 ? { shell: [launcher, ...scripts], recipes: [] } : undefined;
}

/**
 * The words a route's code uses: its recipes' variable references, and the code of its shell files
 * and of those they name (a name resolves to the file beside the one naming it, else to every file
 * so named), top-level code always and a function's body once something reached calls it.
 */
function routeReads(tree: RouteTree, route: Route, shell: ShellIndex): Set<string> {
  const reads = new Set<string>();
  const files = new Set(route.shell);
  const resolve = (name: string, from: string): string[] => {
    const all = shell.byName.get(name) ?? [];
    const beside = all.filter((p) => p.slice(0, p.lastIndexOf('/')) === from.slice(0, from.lastIndexOf('/')));
    return beside.length > 0 ? beside : all;
  };
  for (const path of route.recipes) {
    const text = tree.recipeBytes.get(path)!.toString('utf8');
    for (const m of text.matchAll(RECIPE_READ)) reads.add(m[1]!);
    for (const name of text.match(SHELL_NAME) ?? []) for (const p of resolve(name, path)) files.add(p);
  }
  const visited = new Set<string>();
  const called = new Set<Code>();
  const reach = (path: string, c: Code): void => {
    for (const w of c.words) reads.add(w);
    for (const name of c.names) for (const p of resolve(name, path)) files.add(p);
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const path of files) {
      if (visited.has(path)) continue;
      visited.add(path);
      reach(path, shell.read(path).top);
      grew = true;
    }
    for (const path of visited)
      for (const [name, body] of shell.read(path).functions) {
        if (!reads.has(name) || called.has(body)) continue;
        called.add(body);
        reach(path, body);
        grew = true;
      }
  }
  return reads;
}

/** The descriptive fields of each row of the tree (none where its route is not known). */
export async function descriptiveFields(tree: RouteTree): Promise<DescriptiveFields> {
  const [launchers, shell] = await Promise.all([treeLaunchers(tree), shellIndex(tree)]);
  const known = new Map<string, ReadonlySet<string>>();
  return (row) => {
    const launcher = launcherForLabel(tree, launchers, row.runner);
    const route = launcher && shell.texts.has(launcher.path) ? routeOf(tree, launcher.path, shell, row) : undefined;
    if (!route) return NONE;
    const key = JSON.stringify(route);
    if (!known.has(key)) {
      const reads = routeReads(tree, route, shell);
      known.set(key, new Set(DESCRIPTIVE_FIELDS.filter((field) => !reads.has(DESCRIPTIVE_VARIABLES[field]!))));
    }
    return known.get(key)!;
  };
}
