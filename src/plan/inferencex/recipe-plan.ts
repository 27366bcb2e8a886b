import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SyntheticAcceptanceError } from '../../engines/index.js';
import type { SyntheticAcceptance } from '../../engines/index.js';
import { isAgenticRow, isMultiNodeRow } from '../../matrix/index.js';
import type { MatrixRow } from '../../matrix/index.js';
import {
  RenderError,
  UnknownFieldError,
  VariantError,
  loadRecipe,
  renderRecipe,
  selectVariant,
  yamlFloats,
} from '../../recipes/index.js';
import { unknownToolchainNote } from './recipe-toolchain.js';
import type { RenderedRecipe, RenderedRole } from '../../recipes/index.js';
import { recipeOf } from '../../plan/launches.js';
import { injectSyntheticAcceptance } from '../../specdec/inject.js';
import type { GoldenFile } from '../../specdec/golden.js';
import { optsIntoSyntheticAcceptance, syntheticAcceptanceOf } from '../../specdec/synthetic.js';
import type { InferencexTree } from './tree.js';
import { flagValue } from '../../util/argv.js';

/**
 * How a multi-node row of an InferenceX checkout runs: the srt-slurm recipe its CONFIG_FILE names,
 * as srtctl renders it (`renderRecipe`): every worker, nginx and frontend process with its nodes,
 * GPUs, argv and environment. The launcher copies `benchmarks/multi_node/srt-slurm-recipes/` to
 * the srt-slurm checkout's `recipes/` (runners/launch_gb200-nv.sh), so a CONFIG_FILE
 * `recipes/<path>[:<selector>]` is `benchmarks/multi_node/srt-slurm-recipes/<path>` here, and the
 * selector (`override_x`, `zip_override_g[N]`) picks the variant `srtctl apply -f` submits.
 */

export const RECIPES_DIR = 'benchmarks/multi_node/srt-slurm-recipes';

export interface RecipePlan {
  /** CONFIG_FILE as the row gives it. */
  configFile: string;
  /** The recipe file, relative to the checkout. */
  path: string;
  selector: string | undefined;
  /** The file as the checkout has it (srtctl, as an executor, is given it). */
  text: string;
  rendered: RenderedRecipe;
  /**
   * The recipe with synthetic acceptance injected, as InferenceX's launcher injects it before
   * `srtctl apply`, for each acceptance its rows opting in ask for (`syntheticKey`).
   */
  synthetic?: Map<string, RecipePlan | { problem: string }>;
}

/** Which injected variant of a recipe a synthetic acceptance runs. */
export const syntheticKey = (s: SyntheticAcceptance): string => JSON.stringify(s);

/** Each CONFIG_FILE of the rows, read and rendered (or why it cannot be); absent: not in the checkout. */
export type RecipeBook = ReadonlyMap<string, RecipePlan | { problem: string }>;

/** The file and selector a CONFIG_FILE names, with the file's path in the checkout. */
export function recipeLocation(configFile: string): { path: string; selector: string | undefined } {
  const colon = configFile.lastIndexOf(':');
  const [file, selector] = colon > 0 ? [configFile.slice(0, colon), configFile.slice(colon + 1)] : [configFile, undefined];
  const relative = file.startsWith('recipes/') ? file.slice('recipes/'.length) : file.replace(`${RECIPES_DIR}/`, '');
  return { path: `${RECIPES_DIR}/${relative}`, selector };
}

/**
 * Read and render the recipes the rows name that are in the checkout (async: the YAML reader is).
 * A recipe that is not there is left out: the row then runs through Frontier's engine adapter.
 * With the golden AL curves, the rows that opt into synthetic acceptance get their injected
 * variant rendered too.
 */
export async function loadRecipeBook(
  tree: InferencexTree,
  rows: readonly MatrixRow[],
  golden?: readonly GoldenFile[],
): Promise<RecipeBook> {
  const book = new Map<string, RecipePlan | { problem: string }>();
  for (const row of rows) {
    if (!isMultiNodeRow(row) || isAgenticRow(row)) continue;
    const configFile = recipeOf(row);
    if (configFile === undefined) continue;
    if (!book.has(configFile)) {
      const { path, selector } = recipeLocation(configFile);
      const full = join(tree.root, path);
      if (!existsSync(full)) continue;
      const plan = await planRecipeFile(configFile, path, selector, readFileSync(full, 'utf8'));
      // A field the renderer does not know: say which toolchain would have to know it.
      if ('unknownField' in plan && plan.unknownField)
        plan.problem = `recipe ${path}: ${await unknownToolchainNote(tree, row, plan.unknownField)}`;
      book.set(configFile, plan);
    }
    const plan = book.get(configFile)!;
    if (golden && !('problem' in plan) && optsIntoSyntheticAcceptance(row)) await planInjected(plan, row, golden);
  }
  return book;
}

async function planInjected(plan: RecipePlan, row: MatrixRow, golden: readonly GoldenFile[]): Promise<void> {
  plan.synthetic ??= new Map();
  let s: SyntheticAcceptance | undefined;
  let text: string;
  try {
    s = syntheticAcceptanceOf(row, golden);
    if (!s || plan.synthetic.has(syntheticKey(s))) return;
    text = injectSyntheticAcceptance(plan.text, row.framework, s, plan.configFile);
  } catch (e) {
    if (!(e instanceof SyntheticAcceptanceError)) throw e;
    if (s) plan.synthetic.set(syntheticKey(s), { problem: e.message });
    return;
  }
  plan.synthetic.set(syntheticKey(s), await planRecipeFile(plan.configFile, plan.path, plan.selector, text));
}

async function planRecipeFile(
  configFile: string,
  path: string,
  selector: string | undefined,
  text: string,
): Promise<RecipePlan | { problem: string; unknownField?: string }> {
  const file = await loadRecipe(path, text);
  if (file.doc.value === null || typeof file.doc.value !== 'object')
    return { problem: `recipe ${path} is not a recipe: ${file.problems.map((p) => p.message).join('; ') || 'empty'}` };
  let variant;
  try {
    variant = selectVariant(file.doc.value, selector);
  } catch (e) {
    if (!(e instanceof VariantError)) throw e;
    // Without a selector, `srtctl apply -f` submits every variant of an override file as its own job.
    return { problem: `CONFIG_FILE ${configFile}: ${e.message}` };
  }
  try {
    const rendered = renderRecipe(variant.recipe, { file: path, isFloat: yamlFloats(text, file, variant) });
    return { configFile, path, selector, text, rendered };
  } catch (e) {
    if (e instanceof UnknownFieldError) return { problem: `recipe ${e.message}`, unknownField: e.field };
    if (e instanceof RenderError) return { problem: `recipe ${e.message}` };
    return { problem: `recipe ${path}: ${(e as Error).message}` };
  }
}

/** The worker roles (the ones with GPUs) and the GPUs they take in all. */
export const workerRoles = (r: RenderedRecipe): RenderedRole[] =>
  r.roles.filter((x) => x.role === 'prefill' || x.role === 'decode' || x.role === 'aggregated');

export const recipeGpus = (r: RenderedRecipe): number => workerRoles(r).reduce((n, x) => n + x.nodes.length * x.gpus.length, 0);

/** Each role's process name, unique within the launch: `<role>-<index>`, then `-<k>` for an endpoint's further processes. */
export function roleNames(r: RenderedRecipe): string[] {
  const seen = new Map<string, number>();
  return r.roles.map((x) => {
    const base = `${x.role}-${x.index}`;
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    return k === 0 ? base : `${base}-${k}`;
  });
}

/** Whether a role is the first process of its endpoint (the one that serves; the others join it). */
export function leaders(r: RenderedRecipe): boolean[] {
  const seen = new Set<string>();
  return r.roles.map((x) => {
    const key = `${x.role}-${x.index}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const PLACEHOLDER = /\{(host|ip):(\d+)\}/g;

export interface Resolve {
  /** Node N's address: `${NODES[N]}` in a job script, 127.0.0.1 locally. */
  host: (node: number) => string;
  logDir: string;
  /** srtctl's random uuid4 (hex), one per launch. */
  uuid?: string;
}

/** A rendered value with its placeholders filled in. */
export function resolveValue(value: string, r: Resolve, uuid: string): string {
  return value
    .replace(PLACEHOLDER, (_, _kind: string, n: string) => r.host(Number(n)))
    .replace(/\{log_dir\}/g, r.logDir)
    .replace(/\{uuid\}/g, uuid);
}

/** Every role's argv and environment with placeholders filled in. */
export function resolveRoles(roles: readonly RenderedRole[], r: Resolve): RenderedRole[] {
  const uuid = r.uuid ?? randomBytes(16).toString('hex');
  return roles.map((x) => ({
    ...x,
    argv: x.argv.map((a) => resolveValue(a, r, uuid)),
    env: Object.fromEntries(Object.entries(x.env).map(([k, v]) => [k, resolveValue(v, r, uuid)])),
  }));
}

/** The port a flag or variable names: `--port N`, `--http-port=N`, `…_PORT=N`. */
const PORT_FLAG = /^--[\w-]*port$/;
const PORT_FLAG_EQ = /^(--[\w-]*port=)(\d+)$/;
const ADDRESS = /(\{(?:host|ip):(\d+)\}):(\d+)/g;

/**
 * Move every port a recipe's processes use to another one, consistently: a port is node N's
 * (the node in the address `{ip:N}:P`, else the node of the process that names it), and each
 * (node, port) pair gets `next()`'s port everywhere it appears. srtctl numbers ports per node, so
 * on a shared host (a local cluster, whose nodes are all this machine) the prefill and decode
 * workers' 6100s, or two frontends' 8180s, would collide; after this they do not.
 */
export function remapPorts(
  roles: readonly RenderedRole[],
  next: () => number,
): { roles: RenderedRole[]; port: (node: number, port: number) => number } {
  const map = new Map<string, number>();
  const port = (node: number, p: number): number => {
    const key = `${node}:${p}`;
    let to = map.get(key);
    if (to === undefined) {
      to = next();
      map.set(key, to);
    }
    return to;
  };
  const addresses = (v: string): string =>
    v.replace(ADDRESS, (_, a: string, n: string, p: string) => `${a}:${port(Number(n), Number(p))}`);
  const out = roles.map((x) => {
    const own = x.nodes[0] ?? 0;
    const argv = x.argv.map((a, i) => {
      const eq = PORT_FLAG_EQ.exec(a);
      if (eq) return `${eq[1]}${port(own, Number(eq[2]))}`;
      if (i > 0 && PORT_FLAG.test(x.argv[i - 1]!) && /^\d+$/.test(a)) return String(port(own, Number(a)));
      return addresses(a);
    });
    const env = Object.fromEntries(
      Object.entries(x.env).map(([k, v]) => [
        k,
        /PORT$/.test(k) && /^\d+$/.test(v) ? String(port(own, Number(v))) : addresses(v),
      ]),
    );
    return { ...x, argv, env };
  });
  return { roles: out, port };
}

/** srtctl's public endpoint: nginx on 8000 when it fronts several frontends, else the frontend, else the one worker. */
export const PUBLIC_PORT = 8000;

export function endpointOf(roles: readonly RenderedRole[]): { node: number; port: number } {
  const nginx = roles.find((x) => x.role === 'nginx');
  if (nginx) return { node: nginx.nodes[0]!, port: PUBLIC_PORT };
  const fe = roles.find((x) => x.role === 'frontend');
  if (fe) {
    const p = flagValue(fe.argv, '--http-port') ?? flagValue(fe.argv, '--port');
    return { node: fe.nodes[0]!, port: p === undefined ? PUBLIC_PORT : Number(p) };
  }
  const w = workerRoles({ name: '', nodes: 0, roles: [...roles] })[0];
  const p = w ? flagValue(w.argv, '--port') : undefined;
  return { node: w?.nodes[0] ?? 0, port: p === undefined ? PUBLIC_PORT : Number(p) };
}

/** The model name the workers serve (what requests name), if their argv says. */
export const servedNameOf = (r: RenderedRecipe): string | undefined =>
  workerRoles(r)
    .map((x) => flagValue(x.argv, '--served-model-name'))
    .find((v) => v !== undefined);
