import { treeLaunchers } from '../../clusters/index.js';
import { once } from '../../util/once.js';
import type { Tree } from '../tree.js';

/**
 * InferenceX's GB200/GB300 dcgm-power lanes as text: what the launchers (runners/launch_*.sh),
 * the recipes and the workflows say about them, read the way InferenceX's own static contract
 * tests (utils/test_gb200_power_official_contract.py, test_gb300_…) read them. The power rules
 * (power.ts) judge what is read here.
 */

/** A `NAME=value` line of a launcher. */
export interface Assignment {
  line: number;
  /** The text after `=`, as written. */
  raw: string;
  /** The value without its double quotes when it is one quoted literal. */
  value: string;
}

/** A `git clone` of the pinned producer, and what its block does after it. */
export interface ProducerClone {
  line: number;
  checkout?: { line: number; ref: string; exits: boolean } | undefined;
  /** `test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN"` (with an exit on mismatch). */
  verify?: number | undefined;
  stamp?: { line: number; name: string } | undefined;
}

export interface PowerLauncher {
  path: string;
  lines: string[];
  url: Assignment[];
  pin: Assignment[];
  /** `USES_DCGM_POWER=…` assignments. */
  lane: Assignment[];
  /** The framework the lane is restricted to (`"$FRAMEWORK" != "<x>"` guard), and its line. */
  guard?: { line: number; framework: string } | undefined;
  producerClones: ProducerClone[];
  /** Clones inside an `if [[ "$USES_DCGM_POWER" == "1" ]]` arm that are not of the producer. */
  otherPowerClones: { line: number; repo: string }[];
  /** Every `git rev-parse HEAD > "$GITHUB_WORKSPACE/<name>"` line. */
  stamps: { line: number; name: string }[];
}

/** The stamp file the launchers write and the workflow reads (the contract's STAMP_NAME). */
export const STAMP_NAME = 'power-producer-sha.txt';
/** The framework InferenceX validates dcgm-power lanes for, when a launcher does not say. */
export const POWER_FRAMEWORK = 'dynamo-sglang';
/** The provider and the srtslurm.yaml container alias the launchers inject for it. */
export const POWER_PROVIDER = 'dcgm-power';
export const EXPORTER_ALIAS = 'dcgm-exporter';

/**
 * Ports a launcher's nodes already bind: the power exporter of a recipe run there must use
 * another. Source: InferenceX utils/test_gb300_power_official_contract.py and the gb300 recipes
 * ("9401 is already bound by the cluster-level exporter on im-gb300 nodes").
 */
export const RESERVED_EXPORTER_PORTS: Readonly<Record<string, readonly number[]>> = { 'gb300-nv': [9401] };

const HEX40 = /^[0-9a-f]{40}$/;
export const isFullCommit = (value: string): boolean => HEX40.test(value);

const VAR = (name: string): string => `(?:"\\$${name}"|\\$${name}|"\\$\\{${name}\\}"|\\$\\{${name}\\})`;
const PIN_VAR = new RegExp(VAR('POWER_SRT_SLURM_PIN'));
const URL_VAR = new RegExp(VAR('POWER_SRT_SLURM_URL'));
const POWER_ARM = /^\s*(?:if|elif)\s+\[\[\s*"?\$USES_DCGM_POWER"?\s*==\s*"?1"?\s*\]\];\s*then\s*$/;

function assignments(lines: string[], name: string): Assignment[] {
  const re = new RegExp(`^\\s*(?:export\\s+)?${name}=(.*)$`);
  const out: Assignment[] = [];
  lines.forEach((text, i) => {
    const m = re.exec(text);
    if (!m) return;
    const raw = m[1]!.trim();
    const quoted = /^"([^"$`\\]*)"$/.exec(raw);
    out.push({ line: i + 1, raw, value: quoted ? quoted[1]! : raw });
  });
  return out;
}

const indent = (text: string): number => /^\s*/.exec(text)![0].length;
const ENDS_ARM = /^\s*(?:else|elif\b|fi\b)/;

/** The lines of the block a line opens: up to the next line that ends its arm (else/elif/fi at a lower indentation). */
function blockAfter(lines: string[], at: number): number[] {
  const depth = indent(lines[at]!);
  const out: number[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.trim() === '') continue;
    if (indent(text) < depth || (indent(text) === depth && ENDS_ARM.test(text))) break;
    if (/\bgit clone\b/.test(text)) break;
    out.push(i);
  }
  return out;
}

/** Read a launcher that has a dcgm-power lane; undefined when it has none. */
export function readPowerLauncher(path: string, text: string): PowerLauncher | undefined {
  if (!/\bUSES_DCGM_POWER\b|\bPOWER_SRT_SLURM_(?:URL|PIN)\b/.test(text)) return undefined;
  const lines = text.split('\n');
  const url = assignments(lines, 'POWER_SRT_SLURM_URL');
  const pin = assignments(lines, 'POWER_SRT_SLURM_PIN');
  const lane = assignments(lines, 'USES_DCGM_POWER');
  const urlValues = new Set(url.map((a) => a.value));
  let guard: PowerLauncher['guard'];
  const producerClones: ProducerClone[] = [];
  const otherPowerClones: PowerLauncher['otherPowerClones'] = [];
  const stamps: PowerLauncher['stamps'] = [];
  const powerArms: { from: number; depth: number }[] = [];
  lines.forEach((text, i) => {
    const g = /"?\$USES_DCGM_POWER"?\s*==\s*"?1"?\s*&&\s*"?\$FRAMEWORK"?\s*!=\s*"?([\w.-]+)"?/.exec(text);
    if (g && !guard) guard = { line: i + 1, framework: g[1]! };
    if (POWER_ARM.test(text)) powerArms.push({ from: i, depth: indent(text) });
    const s = /\bgit rev-parse HEAD\s*>\s*"?\$\{?GITHUB_WORKSPACE\}?\/([^"\s]+)"?/.exec(text);
    if (s) stamps.push({ line: i + 1, name: s[1]! });
    const c = /\bgit clone\s+(?:--[\w-]+(?:[ =]\S+)?\s+)*("[^"]*"|\S+)/.exec(text);
    if (!c) return;
    const repo = c[1]!.replace(/^"|"$/g, '');
    if (URL_VAR.test(c[1]!) || urlValues.has(repo)) {
      const clone: ProducerClone = { line: i + 1 };
      for (const j of blockAfter(lines, i)) {
        const t = lines[j]!;
        const co = /\bgit checkout\s+("[^"]*"|\S+)/.exec(t);
        if (co && !clone.checkout) clone.checkout = { line: j + 1, ref: co[1]!, exits: /\|\|\s*(?:\{[^}]*)?\bexit\b/.test(t) };
        if (/\btest\s+"\$\(git rev-parse HEAD\)"\s*=\s*/.test(t) && PIN_VAR.test(t) && /\|\|\s*(?:\{[^}]*)?\bexit\b/.test(t))
          clone.verify ??= j + 1;
        const st = /\bgit rev-parse HEAD\s*>\s*"?\$\{?GITHUB_WORKSPACE\}?\/([^"\s]+)"?/.exec(t);
        if (st && !clone.stamp) clone.stamp = { line: j + 1, name: st[1]! };
      }
      producerClones.push(clone);
      return;
    }
    // A clone inside a power arm (the arm's own block, not a nested else) that is not of the producer.
    const inArm = powerArms.some((arm) => arm.from < i && blockAfterArm(lines, arm.from).includes(i));
    if (inArm) otherPowerClones.push({ line: i + 1, repo });
  });
  return { path, lines, url, pin, lane, guard, producerClones, otherPowerClones, stamps };
}

/** The lines of an if-arm up to its else/elif/fi (clones included). */
function blockAfterArm(lines: string[], at: number): number[] {
  const depth = indent(lines[at]!);
  const out: number[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const text = lines[i]!;
    if (text.trim() === '') continue;
    if (indent(text) <= depth && (ENDS_ARM.test(text) || indent(text) < depth)) break;
    out.push(i);
  }
  return out;
}

/** The power launchers of a tree, one per file (a linked launcher shares its target). */
export function powerLaunchers(tree: Tree): Promise<PowerLauncher[]> {
  return once(tree, 'power-launchers', async () => {
    const paths = [...new Set([...(await treeLaunchers(tree)).values()].map((l) => l.path))].sort();
    const texts = await tree.snapshot.readMany(paths);
    return paths.flatMap((p) => readPowerLauncher(p, texts.get(p)?.toString('utf8') ?? '') ?? []);
  });
}

/**
 * Does the launchers' detection see an enabled dcgm-power lane in this recipe text? The same
 * test as their awk: inside the top-level `telemetry:` block, the exact lines
 * `  provider: dcgm-power` and `  enabled: true`.
 */
export function launcherSeesPower(text: string): boolean {
  let t = false;
  let p = false;
  let e = false;
  for (const line of text.split('\n')) {
    if (/^telemetry:/.test(line)) {
      t = true;
      continue;
    }
    if (t && /^[^ ]/.test(line)) t = false;
    if (t && line === `  provider: ${POWER_PROVIDER}`) p = true;
    if (t && line === '  enabled: true') e = true;
  }
  return p && e;
}

/** The in-tree recipe a CONFIG_FILE makes the launchers read (their `_RECIPE_SRC`), or undefined. */
export function launcherRecipePath(tree: Tree, configFile: string): string | undefined {
  if (!tree.recipesDir) return undefined;
  const rel = configFile.replace(/:.*$/, '').replace(/^recipes\//, '');
  return `${tree.recipesDir}/${rel}`;
}

/** A text file of the tree with its lines (binary and very large files are left out). */
export interface TextFile {
  path: string;
  lines: string[];
}

/** Larger files (and binary ones) are not scanned for the pin, as `git grep` skips binaries. */
export const MAX_SCAN = 2 * 1024 * 1024;

/** Every text file of the tree (what InferenceX's `git grep` of the pin searches). */
export function treeTextFiles(tree: Tree): Promise<TextFile[]> {
  return once(tree, 'power-text-files', async () => {
    const paths = await tree.snapshot.list('');
    const bytes = await tree.snapshot.readMany(paths);
    const out: TextFile[] = [];
    for (const [path, b] of bytes) {
      if (b.length > MAX_SCAN || b.includes(0)) continue;
      out.push({ path, lines: b.toString('utf8').split('\n') });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  });
}

export const WORKFLOW = /^\.github\/workflows\/[^/]+\.ya?ml$/;

/** The producer pins the launchers define (full commits only). */
export async function producerPins(tree: Tree): Promise<Set<string>> {
  return new Set((await powerLaunchers(tree)).flatMap((l) => l.pin.map((a) => a.value)).filter((v) => isFullCommit(v)));
}

/**
 * Files where a power finding can land beyond the launchers and recipes: workflows, and any file
 * holding a producer pin literal. A review compares these with the base (change.ts), so that a
 * finding in one the change touched is the change's own.
 */
export async function powerWatchedFiles(tree: Tree): Promise<string[]> {
  if ((await powerLaunchers(tree)).length === 0) return [];
  const pins = await producerPins(tree);
  const files = await treeTextFiles(tree);
  return files
    .filter((f) => WORKFLOW.test(f.path) || f.lines.some((l) => [...pins].some((pin) => l.includes(pin))))
    .map((f) => f.path);
}
