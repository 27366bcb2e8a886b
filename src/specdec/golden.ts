import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPlainMapping, parseYaml } from '../catalog/yaml/index.js';

/**
 * InferenceX's golden acceptance-length curves (golden_al_distribution/*.yaml): for a model and a
 * thinking mode, the mean acceptance length (AL) SPEED-Bench's coding category measured at each
 * draft length (num_speculative_tokens). Under the AgentX guidelines a run that injects synthetic
 * acceptance must inject exactly this value; it may choose the draft length, not the target.
 */

export type ThinkingMode = 'thinking_on' | 'thinking_off';
export const THINKING_MODES: readonly ThinkingMode[] = ['thinking_on', 'thinking_off'];

export interface GoldenPoint {
  draftLength: number;
  al: number;
  /** Line of the value in its file. */
  line: number;
}

export interface GoldenCurve {
  /** The file as displayed (its path relative to the tree, or its name for the built-in copy). */
  file: string;
  /** The model key of the file (e.g. `deepseek-v4-pro`). */
  model: string;
  /** The thinking mode it was measured in; undefined for the flat forms (no mode). */
  mode: ThinkingMode | undefined;
  points: GoldenPoint[];
  /** Draft lengths the file writes N/A for: collected, but not measured (a cell that failed). */
  unmeasured: number[];
}

export interface GoldenFile {
  file: string;
  /** The GitHub Actions run that measured it (the first line of the file). */
  sourceRun: string | undefined;
  /** What the header says it was measured on (`deepseek-v4-pro (B300, vLLM MTP)`). */
  measuredOn: string | undefined;
  /** The chat_template_kwargs each thinking mode was measured with, from the header. */
  chatTemplateKwargs: Partial<Record<ThinkingMode, Record<string, unknown>>>;
  curves: GoldenCurve[];
}

export class GoldenError extends Error {}

/** What InferenceX's collectors (and `frontier al collect`) write for a cell that could not be measured. */
export const NOT_MEASURED = 'N/A';

/** The copy of InferenceX's curves Frontier ships, for trees that have none (beside the bundle in dist/). */
export const BUILTIN_GOLDEN_DIR = fileURLToPath(new URL('./golden-al/', import.meta.url));

/** Where a tree keeps its curves (InferenceX's layout). */
export const GOLDEN_DIR = 'golden_al_distribution';

/**
 * InferenceX's MODEL_PREFIX → model key (runners/inject_synthetic_acceptance.py). Other prefixes
 * name the files whose stem starts with them (`qwen3.5` → `qwen3.5_mtp.yaml`).
 */
const PREFIX_MODEL: Record<string, string> = {
  dsv4: 'deepseek-v4-pro',
  dsr1: 'deepseek-r1',
  dsv4dspark: 'deepseek-v4-pro-0813',
  dsv4dsparkprob: 'deepseek-v4-pro-0813',
};

export async function parseGoldenFile(file: string, source: string | Buffer): Promise<GoldenFile> {
  const doc = await parseYaml(source, file);
  const fail = (line: number, key: string, message: string, fix: string): never => {
    throw new GoldenError(`${file}:${line}: ${key}: ${message} (${fix})`);
  };
  // Draft lengths are integer keys here, which the YAML reader reports for configs (keys must be strings there).
  const problems = doc.problems.filter((p) => !p.message.endsWith('not as a string'));
  if (problems.length > 0) {
    const p = problems[0]!;
    fail(p.line, p.key ?? 'yaml', p.message, p.hint ?? 'fix the YAML');
  }
  const header = doc.text.split(/\r?\n/).filter((l) => l.startsWith('#'));
  const chatTemplateKwargs: GoldenFile['chatTemplateKwargs'] = {};
  for (const line of header) {
    const m = /^#\s*(thinking_on|thinking_off)\b.*?chat_template_kwargs:\s*(\{.*\})\s*$/.exec(line);
    if (!m) continue;
    try {
      chatTemplateKwargs[m[1] as ThinkingMode] = JSON.parse(m[2]!) as Record<string, unknown>;
    } catch {
      // A header that is not JSON only loses the mode check, not the curve.
    }
  }
  const sourceRun = /^#\s*Source GitHub Actions run:\s*(\S+)/.exec(header[0] ?? '')?.[1];
  const measuredOn = header.map((l) => /^#\s*Measured on (.+?),? per num_speculative_tokens/.exec(l)?.[1]).find(Boolean);

  if (!isPlainMapping(doc.value)) fail(1, 'file', 'expected a mapping of model → curve', 'see golden_al_distribution/README.md');
  const curves: GoldenCurve[] = [];
  for (const [model, block] of Object.entries(doc.value as Record<string, unknown>)) {
    /** A curve's points, and the draft lengths it writes N/A for. */
    const curveOf = (path: (string | number)[], value: unknown): Pick<GoldenCurve, 'points' | 'unmeasured'> => {
      const unmeasured: number[] = [];
      // The flat list form ([{1: 1.90}, {2: 2.60}]) the injector also reads.
      const pairs = Array.isArray(value)
        ? value.flatMap((item, i) => (isPlainMapping(item) ? Object.entries(item).map(([k, v]) => [k, v, [...path, i, k]]) : []))
        : isPlainMapping(value)
          ? Object.entries(value).map(([k, v]) => [k, v, [...path, k]])
          : fail(doc.locate(path).line, path.join('.'), 'expected draft length → AL', 'write e.g. `3: 2.49`');
      const points = (pairs as [string, unknown, (string | number)[]][]).flatMap(([k, v, at]) => {
        const line = doc.locate(at).line;
        const n = Number(k);
        if (!Number.isInteger(n) || n < 1)
          fail(line, at.join('.'), `draft length ${k} is not a positive integer`, 'key by num_speculative_tokens');
        // The collectors write N/A for a cell they could not measure: the curve has no value there.
        if (v === NOT_MEASURED) {
          unmeasured.push(n);
          return [];
        }
        if (typeof v !== 'number' || v < 1 || v > n + 1)
          fail(
            line,
            at.join('.'),
            `AL ${String(v)} is not a number in [1, ${n + 1}]`,
            'AL counts the verified token, so 1 ≤ AL ≤ draft length + 1',
          );
        return [{ draftLength: n, al: v as number, line }];
      });
      return { points, unmeasured };
    };
    if (isPlainMapping(block) && Object.keys(block).some((k) => k.startsWith('thinking'))) {
      for (const [mode, curve] of Object.entries(block)) {
        if (!THINKING_MODES.includes(mode as ThinkingMode))
          fail(doc.locate([model, mode]).line, `${model}.${mode}`, 'unknown thinking mode', 'use thinking_on or thinking_off');
        curves.push({ file, model, mode: mode as ThinkingMode, ...curveOf([model, mode], curve) });
      }
    } else {
      curves.push({ file, model, mode: undefined, ...curveOf([model], block) });
    }
  }
  return { file, sourceRun, measuredOn, chatTemplateKwargs, curves };
}

/** Every curve file of a directory; `display` names each file in messages. */
export async function readGoldenDir(dir: string, display: (name: string) => string = (n) => n): Promise<GoldenFile[]> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir)).filter((n) => /\.ya?ml$/.test(n)).sort();
  return Promise.all(names.map(async (n) => parseGoldenFile(display(n), await readFile(join(dir, n)))));
}

/**
 * The curves in use: `dir` when given, else the working directory's golden_al_distribution/ (an
 * InferenceX checkout), else the built-in copy. `from` names where they came from.
 */
export async function loadGolden(dir?: string): Promise<{ files: GoldenFile[]; from: string }> {
  const local = dir ?? (existsSync(GOLDEN_DIR) ? GOLDEN_DIR : undefined);
  const from = local ?? 'built-in';
  return { files: await readGoldenDir(local ?? BUILTIN_GOLDEN_DIR, (n) => join(from, n)), from };
}

/** The curves of a model, named by its key (`deepseek-v4-pro`) or InferenceX's model prefix (`dsv4`). */
export function curvesFor(files: readonly GoldenFile[], model: string): GoldenCurve[] {
  const all = files.flatMap((f) => f.curves);
  const byKey = all.filter((c) => c.model === (PREFIX_MODEL[model] ?? model));
  if (byKey.length > 0) return byKey;
  return files.filter((f) => stemPrefix(f.file) === model).flatMap((f) => f.curves);
}

const stemPrefix = (file: string): string =>
  basename(file)
    .replace(/\.ya?ml$/, '')
    .split('_')[0]!;

/** The golden file a curve belongs to. */
export const fileOf = (files: readonly GoldenFile[], curve: GoldenCurve): GoldenFile =>
  files.find((f) => f.curves.includes(curve))!;

/** Golden values are written with two decimals; a pinned value is the golden one when it rounds to it. */
export const sameAl = (a: number, b: number): boolean => Math.abs(a - b) < 0.005;
