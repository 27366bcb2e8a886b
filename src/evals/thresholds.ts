/**
 * Eval score thresholds in the reference format (`utils/evals/thresholds.yaml`, read by
 * `utils/evals/validate_scores.py` with `yaml.safe_load`):
 *
 *     default: { <task>: <min score>, … }
 *     models:  { <model prefix>: { <task>: <min score>, … }, … }
 *
 * or a legacy flat `{ <task>: <min score> }`, which is the default with no per-model entries.
 * A threshold is resolved most-specific-first: models.<prefix>.<task>, then default.<task>, then
 * the --min-score fallback (0.85).
 */
import { isAlias, isMap, isScalar } from 'yaml';
import type { Node } from 'yaml';
import { plainKind, resolvePlain } from '../catalog/yaml/resolve.js';
import { floatRepr } from '../pycompat/index.js';
import { UserError } from '../util/user-error.js';
import { readYamlDocument } from '../util/yaml-input.js';
import type { ResolvedAliases } from '../util/yaml-input.js';

/** A file or directory the eval commands cannot use, with what to do about it. */
export class EvalInputError extends UserError {}

/** `utils/evals/thresholds.yaml` of InferenceX commit 843c6254f, byte for byte. */
export const REFERENCE_THRESHOLDS_YAML = `# Model thresholds override task defaults.
default:
  gsm8k: 0.90
  gpqa_diamond_cot_n_shot: 0.30
  swebench_lite: 0.50
models:
  dsr1:
    gsm8k: 0.91
  dsv4:
    gsm8k: 0.91
  glm5:
    gsm8k: 0.94
  glm5.1:
    gsm8k: 0.93
  gptoss:
    gsm8k: 0.91
  kimik2.5:
    gsm8k: 0.90
  minimaxm2.5:
    gsm8k: 0.92
  qwen3.5:
    gsm8k: 0.94
`;

/** What `--thresholds` defaults to, in the first line of `frontier eval check`. */
export const REFERENCE_THRESHOLDS_LABEL = '(built-in reference thresholds)';

/** The reference's fallback when no threshold is configured for a task (`--min-score`). */
export const DEFAULT_MIN_SCORE = 0.85;

/** A minimum score and how Python's `str()` prints it (`0.9` for YAML `0.90`, `1` for `1`). */
export interface Threshold {
  value: number;
  text: string;
}

export interface ThresholdsConfig {
  default: ReadonlyMap<string, Threshold>;
  models: ReadonlyMap<string, ReadonlyMap<string, Threshold>>;
}

export type ThresholdSource = 'default' | 'min-score' | `models.${string}`;

/** A Python float threshold (`--min-score` is parsed with `type=float`). */
export const floatThreshold = (value: number): Threshold => ({ value, text: floatRepr(value) });

/** A YAML value as PyYAML's safe_load builds it, for the few types a thresholds file holds. */
type Loaded =
  | { kind: 'map'; entries: [key: Loaded, value: Loaded][] }
  | { kind: 'str'; value: string }
  | { kind: 'int' | 'float'; value: number }
  | { kind: 'other'; what: string };

const TAG = 'tag:yaml.org,2002:';

function load(node: Node | null | undefined, aliases: ResolvedAliases, where: string): Loaded {
  if (node === null || node === undefined) return { kind: 'other', what: 'null' };
  if (isAlias(node)) return load(aliases.targetOf(node), aliases, where);
  if (isMap(node)) {
    return {
      kind: 'map',
      entries: node.items.map((pair) => [load(pair.key as Node, aliases, where), load(pair.value as Node, aliases, where)]),
    };
  }
  if (isScalar(node)) {
    const text = String(node.value);
    const tag = node.tag?.startsWith(TAG) ? node.tag.slice(TAG.length) : node.tag;
    const kind = tag ?? (node.type === 'PLAIN' ? plainKind(text) : 'str');
    if (kind === 'str') return { kind: 'str', value: text };
    if (kind === 'int' || kind === 'float') {
      const value = resolvePlain(text, kind);
      if (typeof value === 'number' && !Number.isNaN(value)) return { kind, value };
    }
    return { kind: 'other', what: kind === 'null' ? 'null' : `${JSON.stringify(text)} (${kind})` };
  }
  return { kind: 'other', what: 'a list' };
}

const describe = (v: Loaded): string =>
  v.kind === 'map'
    ? 'a mapping'
    : v.kind === 'str'
      ? `the string ${JSON.stringify(v.value)}`
      : v.kind === 'other'
        ? v.what
        : String(v.value);

function taskMap(v: Loaded, where: string, file: string): Map<string, Threshold> {
  if (v.kind !== 'map')
    throw new EvalInputError(`${file}: ${where} must be a mapping of task → minimum score, not ${describe(v)}`);
  const out = new Map<string, Threshold>();
  for (const [key, value] of v.entries) {
    // PyYAML keys that are not strings (`1:`, `yes:`) can never equal a task name.
    if (key.kind !== 'str') continue;
    if ((value.kind !== 'int' && value.kind !== 'float') || !(value.value >= 0 && value.value <= 1)) {
      throw new EvalInputError(
        `${file}: ${where}.${key.value} is ${describe(value)}: a threshold is a number from 0 to 1 (e.g. 0.90)`,
      );
    }
    out.set(key.value, {
      value: value.value,
      text: value.kind === 'float' ? floatRepr(value.value) : String(value.value),
    });
  }
  return out;
}

/**
 * Parse a thresholds file (YAML or JSON) as `load_config` reads it. `file` names it in errors.
 * Thresholds must be numbers from 0 to 1 (the reference compares whatever is there, and a
 * string would crash it mid-run).
 */
export function parseThresholds(text: string, file: string): ThresholdsConfig {
  const { doc, aliases } = readYamlDocument(text, file, { schema: 'failsafe', uniqueKeys: false }, EvalInputError);
  const root = load(doc.contents as Node | null, aliases, file);
  if (root.kind !== 'map')
    throw new EvalInputError(`${file}: a thresholds file is a mapping (default: …, models: …), not ${describe(root)}`);
  const top = new Map<string, Loaded>();
  for (const [key, value] of root.entries) if (key.kind === 'str') top.set(key.value, value);
  if (!top.has('default') && !top.has('models')) {
    // Legacy flat format: the whole mapping is the per-task default.
    return { default: taskMap(root, 'the flat threshold map', file), models: new Map() };
  }
  const models = new Map<string, Map<string, Threshold>>();
  const modelsNode = top.get('models');
  if (modelsNode !== undefined) {
    if (modelsNode.kind !== 'map')
      throw new EvalInputError(`${file}: models must be a mapping of model prefix → { task: minimum score }`);
    for (const [key, value] of modelsNode.entries) {
      if (key.kind !== 'str') continue;
      models.set(key.value, taskMap(value, `models.${key.value}`, file));
    }
  }
  const defaultNode = top.get('default');
  return { default: defaultNode === undefined ? new Map() : taskMap(defaultNode, 'default', file), models };
}

let reference: ThresholdsConfig | undefined;

/** The reference `utils/evals/thresholds.yaml` (built in). */
export function referenceThresholds(): ThresholdsConfig {
  reference ??= parseThresholds(REFERENCE_THRESHOLDS_YAML, 'utils/evals/thresholds.yaml');
  return reference;
}

/** `resolve_threshold`: models.<prefix>.<task>, then default.<task>, then the fallback. */
export function resolveThreshold(
  config: ThresholdsConfig,
  prefix: string | undefined,
  task: string,
  fallback: Threshold,
): { threshold: Threshold; source: ThresholdSource } {
  const perModel = prefix ? config.models.get(prefix)?.get(task) : undefined;
  if (perModel !== undefined) return { threshold: perModel, source: `models.${prefix}` };
  const byDefault = config.default.get(task);
  if (byDefault !== undefined) return { threshold: byDefault, source: 'default' };
  return { threshold: fallback, source: 'min-score' };
}
