import { basename } from 'node:path';
import { BUILTIN_GOLDEN_DIR, GOLDEN_DIR, GoldenError, curvesFor, parseGoldenFile, readGoldenDir } from '../../specdec/golden.js';
import type { GoldenCurve, GoldenFile, ThinkingMode } from '../../specdec/golden.js';
import { judge } from '../../specdec/judge.js';
import type { Deployment, Pin, Verdict } from '../../specdec/judge.js';
import { recipePins, recipeSpeculation } from '../../specdec/recipe-pins.js';
import { scriptAcceptance } from '../../specdec/script-pins.js';
import { parseScript, runsInEval } from '../../specdec/shell.js';
import { additionalSettings } from '../../specdec/synthetic.js';
import { treeLaunchers } from '../../clusters/index.js';
import { once } from '../../util/once.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import type { Tree } from '../tree.js';
import { configLocation, recipeLocation, resolvedReferences } from './shared.js';

/**
 * Speculative decoding by InferenceX's rules (golden_al_distribution/README.md): wherever a
 * configuration, recipe or benchmark script injects synthetic acceptance, the value is the
 * committed golden AL for its model, thinking mode and draft length, eval runs do not get it, and
 * the runner's injector can actually apply it.
 */

type SpecdecRule =
  | 'specdec/golden-al'
  | 'specdec/draft-length'
  | 'specdec/thinking-mode'
  | 'specdec/eval-injection'
  | 'specdec/eval-injection-on-request'
  | 'specdec/not-injected';

interface SpecdecFinding extends Finding {
  rule: SpecdecRule;
}

/** Where single-node benchmark scripts live; the SPEED-Bench collectors there measure real acceptance. */
const SCRIPTS_DIR = 'benchmarks/single_node';
const COLLECTORS = /\/speedbench\//;
const KNOB_TEXT =
  /synthetic_acceptance_length|SGLANG_SIMULATE_ACC_LEN|TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS|--spec-decode-acceptance-/;
/** The file InferenceX's injector reads when SYNTHETIC_ACCEPTANCE_LENGTH is not set (runners/inject_synthetic_acceptance.py). */
const INJECTOR = 'runners/inject_synthetic_acceptance.py';
const INJECTOR_REFERENCE = 'benchmarks/speedbench-reference-al.yaml';
const INJECTORS_DIR = 'runners/synthetic_injectors';

interface TreeGolden {
  files: GoldenFile[];
  /** Raw paths of the tree's curve files (none when the built-in copy is used). */
  paths: string[];
  problem?: SpecdecFinding | undefined;
}

function treeGolden(tree: Tree): Promise<TreeGolden> {
  return once(tree, 'specdec-golden', async () => {
    const paths = (await tree.snapshot.list(GOLDEN_DIR)).filter((p) => /\.ya?ml$/.test(p)).sort();
    try {
      if (paths.length === 0)
        return { files: await readGoldenDir(BUILTIN_GOLDEN_DIR, (n) => `built-in ${GOLDEN_DIR}/${n}`), paths };
      const bytes = await tree.snapshot.readMany(paths);
      // Messages name curve files by their path in the tree; findings locate by the snapshot's display.
      return { files: await Promise.all(paths.map((p) => parseGoldenFile(p, bytes.get(p)!))), paths };
    } catch (e) {
      if (!(e instanceof GoldenError)) throw e;
      const m = /^(.*?):(\d+): (.*)$/s.exec(e.message);
      const problem: SpecdecFinding = {
        rule: 'specdec/golden-al',
        file: tree.snapshot.display(m?.[1] ?? GOLDEN_DIR),
        line: Number(m?.[2] ?? 1),
        col: 1,
        message: `the golden AL curves cannot be read: ${m?.[3] ?? e.message}`,
        hint: 'fix the file (see golden_al_distribution/README.md for the format)',
        subjects: [subject.file(tree.snapshot.display(m?.[1] ?? GOLDEN_DIR))],
      };
      return { files: [], paths, problem };
    }
  });
}

/** Single-node scripts that mention a synthetic-acceptance knob, read once. */
function knobScripts(tree: Tree): Promise<{ path: string; text: string }[]> {
  return once(tree, 'specdec-scripts', async () => {
    const paths = (await tree.snapshot.list(SCRIPTS_DIR)).filter((p) => p.endsWith('.sh') && !COLLECTORS.test(p));
    const bytes = await tree.snapshot.readMany(paths);
    return [...bytes]
      .map(([path, b]) => ({ path, text: b.toString('utf8') }))
      .filter((s) => KNOB_TEXT.test(s.text))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  });
}

/** Files whose edits the specdec findings are about, for telling a change's findings from older ones. */
export async function specdecWatchedFiles(tree: Tree): Promise<string[]> {
  const [golden, scripts] = await Promise.all([treeGolden(tree), knobScripts(tree)]);
  return [...golden.paths, ...scripts.map((s) => s.path)];
}

function verdictFinding(
  verdict: Verdict,
  where: Omit<Finding, 'message' | 'hint' | 'subjects'>,
  subjects: string[],
): SpecdecFinding {
  return { ...where, rule: verdict.rule, message: verdict.message, hint: verdict.hint, subjects };
}

/** The model a prefix names, as messages call it: the golden key when a curve exists. */
const modelName = (files: readonly GoldenFile[], prefix: string): string => curvesFor(files, prefix)[0]?.model ?? prefix;

/** A model with several curves (EAGLE3 and its GQA head): the ones a script names in a comment, when it names any. */
function namedCurves(curves: GoldenCurve[], text: string): GoldenCurve[] {
  const named = new Set([...text.matchAll(/golden_al_distribution\/([\w.-]+\.ya?ml)\b/g)].map((m) => m[1]!));
  const chosen = curves.filter((c) => named.has(basename(c.file)));
  return chosen.length > 0 ? chosen : curves;
}

async function scriptFindings(tree: Tree, golden: TreeGolden): Promise<SpecdecFinding[]> {
  const out: SpecdecFinding[] = [];
  for (const { path, text } of await knobScripts(tree)) {
    const display = tree.snapshot.display(path);
    const subjects = [subject.file(display)];
    const prefix = basename(path).split('_')[0]!;
    const curves = namedCurves(curvesFor(golden.files, prefix), text);
    const { pins, thinking } = scriptAcceptance(text);
    const deployment: Deployment = {
      model: modelName(golden.files, prefix),
      thinking: thinking?.kwargs,
      thinkingAt: thinking && `${display}:${thinking.line}`,
    };
    for (const pin of pins) {
      const verdict = judge(pin, deployment, curves, golden.files);
      if (verdict) out.push(verdictFinding(verdict, { file: display, line: pin.line, col: pin.col, key: pin.knob }, subjects));
    }
    const inEval = [...new Map(pins.filter((p) => p.inEval !== false).map((p) => [p.knobLine, p])).values()];
    for (const pin of inEval)
      out.push({
        rule: 'specdec/eval-injection',
        file: display,
        line: pin.knobLine,
        col: 1,
        key: pin.knob,
        message:
          pin.inEval === undefined
            ? `${pin.knob} is set whether or not EVAL_ONLY is true: an eval run accepts drafts the target never verified, and scores garbage`
            : `${pin.knob} is set in the EVAL_ONLY=true arm: the eval accepts drafts the target never verified`,
        hint: 'set it only when EVAL_ONLY is not true (if [ "${EVAL_ONLY:-false}" != "true" ]; then …; fi), as the reference scripts do',
        subjects,
      });
  }
  return out;
}

/** An entry's additional-settings, each with its path in the config. */
function entrySettings(entry: Record<string, unknown>, entryPath: (string | number)[]): Map<string, SettingAt> {
  return new Map(
    [...additionalSettings(entry)].map(([name, s]) => [
      name,
      { value: s.value, path: [...entryPath, s.role, 'additional-settings', s.index] },
    ]),
  );
}

interface SettingAt {
  value: string;
  path: (string | number)[];
}

/** The frameworks the tree's injector has a backend for (`register("dynamo-vllm", …)`); undefined when the tree has no injector. */
async function injectorFrameworks(tree: Tree): Promise<Set<string> | undefined> {
  if (!(await tree.snapshot.read(INJECTOR))) return undefined;
  const paths = (await tree.snapshot.list(INJECTORS_DIR)).filter((p) => p.endsWith('.py'));
  const out = new Set<string>();
  for (const b of (await tree.snapshot.readMany(paths)).values())
    for (const m of b.toString('utf8').matchAll(/\bregister\(\s*["']([^"']+)["']/g)) out.add(m[1]!);
  return out;
}

/** Why the injector would find nothing to rewrite in a recipe (runners/synthetic_injectors/). */
function injectorMiss(framework: string, text: string): string | undefined {
  if (framework === 'dynamo-vllm' && !/speculative-config:\s*'([^']+)'/.test(text))
    return "has no speculative-config: '<json>' line (single-quoted JSON) for the vLLM injector to rewrite";
  if (framework === 'dynamo-sglang') {
    if (text.includes('SGLANG_SIMULATE_ACC_LEN'))
      return 'already sets SGLANG_SIMULATE_ACC_* variables, which the SGLang injector refuses';
    if (!/^ {2}(?:aggregated|prefill|decode)_environment:\s*$/m.test(text))
      return 'has no block-style `  <role>_environment:` section (two-space indentation) for the SGLang injector to add to';
  }
  return undefined;
}

async function configFindings(tree: Tree, golden: TreeGolden): Promise<SpecdecFinding[]> {
  const out: SpecdecFinding[] = [];
  const frameworks = await injectorFrameworks(tree);
  const hasReference = (await tree.snapshot.read(INJECTOR_REFERENCE)) !== undefined;
  const references = await resolvedReferences(tree);
  for (const { reference, recipe } of references) {
    if (reference.setting !== 'CONFIG_FILE') continue;
    const values = entrySettings(reference.entry, reference.entryPath);
    const enabled = values.get('SYNTHETIC_ACCEPTANCE');
    const length = values.get('SYNTHETIC_ACCEPTANCE_LENGTH');
    if (!enabled && !length) continue;
    const { key, config } = reference;
    const subjects = [subject.config(key), ...(recipe.status === 'found' ? [subject.recipe(recipe.path)] : [])];
    const on = enabled?.value.trim().toLowerCase() === 'true';
    const notInjected = (path: (string | number)[], message: string, hint: string): void => {
      out.push({ rule: 'specdec/not-injected', ...configLocation(tree, key, path), message, hint, subjects });
    };
    if (!on) {
      if (length)
        notInjected(
          length.path,
          `SYNTHETIC_ACCEPTANCE_LENGTH is set but SYNTHETIC_ACCEPTANCE is ${enabled ? `"${enabled.value}"` : 'not set'}: the injector does nothing, and the run measures real acceptance`,
          'add "SYNTHETIC_ACCEPTANCE=true" to the additional-settings, or remove the length',
        );
      continue;
    }
    if (frameworks && !frameworks.has(config.framework)) {
      notInjected(
        enabled!.path,
        `SYNTHETIC_ACCEPTANCE=true, but ${INJECTOR} has no injector for framework ${config.framework} (it has ${[...frameworks].join(', ') || 'none'}): the launch exits with an error`,
        `inject through a framework that has one, or add a backend under ${INJECTORS_DIR}/`,
      );
      continue;
    }
    const curves = curvesFor(golden.files, config['model-prefix']);
    const speculation = recipe.status === 'found' ? recipeSpeculation(recipe.variant.recipe) : [];
    const draftLengths = [...new Set(speculation.map((s) => s.draftLength).filter((n): n is number => n !== undefined))];
    if (frameworks && recipe.status === 'found') {
      const text = tree.recipeBytes.get(recipe.path)?.toString('utf8');
      const miss = text === undefined ? undefined : injectorMiss(config.framework, text);
      if (miss) {
        notInjected(
          enabled!.path,
          `SYNTHETIC_ACCEPTANCE=true, but ${recipe.path} ${miss}: the launch exits with an error`,
          'write the recipe the way the injector reads it, or turn synthetic acceptance off',
        );
        continue;
      }
    }
    if (!length) {
      if (frameworks && !hasReference) {
        const n = draftLengths[0];
        const target = curves.flatMap((c) =>
          c.points.filter((p) => p.draftLength === n).map((p) => `${p.al.toFixed(2)} (${c.mode ?? 'AL'})`),
        );
        notInjected(
          enabled!.path,
          `SYNTHETIC_ACCEPTANCE=true without SYNTHETIC_ACCEPTANCE_LENGTH: the injector looks the AL up in ${INJECTOR_REFERENCE}, which the tree does not have, and the launch exits with an error`,
          `add "SYNTHETIC_ACCEPTANCE_LENGTH=<golden AL>"${target.length > 0 ? `: ${target.join(' or ')} at draft length ${n}` : ''} (frontier al show ${config['model-prefix']})`,
        );
      }
      continue;
    }
    const mode = values.get('THINKING_MODE');
    const thinking = mode ? (mode.value as ThinkingMode) : speculation.find((s) => s.thinking)?.thinking;
    const pin: Pin = { knob: 'SYNTHETIC_ACCEPTANCE_LENGTH', written: length.value, draftLengths };
    const deployment: Deployment = {
      model: modelName(golden.files, config['model-prefix']),
      thinking,
      thinkingAt: mode ? `THINKING_MODE=${mode.value}` : undefined,
    };
    const verdict = judge(pin, deployment, curves, golden.files);
    if (verdict) out.push(verdictFinding(verdict, configLocation(tree, key, length.path), subjects));
  }
  return dedupe(out);
}

/** A launcher deletes a knob from recipes in EVAL_ONLY runs (`sed -i '/KNOB/d'`), as InferenceX's GB300 launcher does for TRT-LLM's. */
async function strippedForEval(tree: Tree): Promise<Set<string>> {
  return once(tree, 'specdec-stripped', async () => {
    const out = new Set<string>();
    for (const launcher of (await treeLaunchers(tree)).values()) {
      const text = (await tree.snapshot.read(launcher.path))?.toString('utf8') ?? '';
      if (!text.includes('EVAL_ONLY')) continue;
      for (const s of parseScript(text).statements) {
        if (runsInEval(s.arms) !== true) continue;
        for (const m of s.text.matchAll(/sed\b[^|;]*?\/(\w+)\/d/g)) out.add(m[1]!);
      }
    }
    return out;
  });
}

/**
 * When the rows of a search-space entry run evals (src/matrix/evals.ts): 8k1k fixed-seq-len rows
 * are in the default eval selection; agentic rows run evals when a sweep asks for them.
 */
function entryEvals(reference: {
  entryPath: (string | number)[];
  seq: { isl: number; osl: number } | undefined;
}): 'default' | 'on-request' | undefined {
  if (reference.seq?.isl === 8192 && reference.seq.osl === 1024) return 'default';
  return reference.entryPath[1] === 'agentic-coding' ? 'on-request' : undefined;
}

async function recipeFindings(tree: Tree, golden: TreeGolden): Promise<SpecdecFinding[]> {
  const out: SpecdecFinding[] = [];
  const stripped = await strippedForEval(tree);
  const references = (await resolvedReferences(tree)).filter(
    ({ recipe }) => recipe.status === 'found' && recipe.source === 'tree',
  );
  for (const { reference, recipe } of references) {
    if (recipe.status !== 'found') continue;
    const pins = recipePins(recipe.variant.recipe);
    if (pins.length === 0) continue;
    const prefix = reference.config['model-prefix'];
    const subjects = [subject.recipe(recipe.path), subject.config(reference.key)];
    const speculation = recipeSpeculation(recipe.variant.recipe);
    for (const pin of pins) {
      const where = recipeLocation(tree, recipe.file, pin.path, recipe.variant);
      const thinking = speculation.find((s) => s.role === pin.role)?.thinking;
      const verdict = judge(
        pin,
        { model: modelName(golden.files, prefix), thinking },
        curvesFor(golden.files, prefix),
        golden.files,
      );
      if (verdict) out.push(verdictFinding(verdict, where, subjects));
      const evalRecipe = reference.setting === 'EVAL_CONFIG_FILE';
      const hasEvalRecipe = entrySettings(reference.entry, reference.entryPath).has('EVAL_CONFIG_FILE');
      const evals = evalRecipe ? 'default' : hasEvalRecipe || stripped.has(pin.knob) ? undefined : entryEvals(reference);
      if (evals)
        out.push({
          rule: evals === 'default' ? 'specdec/eval-injection' : 'specdec/eval-injection-on-request',
          ...where,
          message: evalRecipe
            ? `${recipe.path} is ${reference.key}'s EVAL_CONFIG_FILE (the real-verification recipe of its eval runs) but hard-codes ${pin.knob}`
            : `${recipe.path} hard-codes ${pin.knob}, and ${reference.key}'s ${evals === 'default' ? '8k1k rows run evals' : 'agentic rows run evals when a sweep asks for them'} with it (no EVAL_CONFIG_FILE, and no launcher strips the knob for EVAL_ONLY): the eval accepts drafts the target never verified`,
          hint: evalRecipe
            ? `remove ${pin.knob} from the eval recipe`
            : 'give the entry an EVAL_CONFIG_FILE with real verification, or inject the AL from the master config (SYNTHETIC_ACCEPTANCE=true, SYNTHETIC_ACCEPTANCE_LENGTH=<golden AL>), which the injector skips for EVAL_ONLY',
          subjects,
        });
    }
  }
  return dedupe(out);
}

/** One finding per place and message (several keys and entries run the same recipe). */
function dedupe(findings: SpecdecFinding[]): SpecdecFinding[] {
  const seen = new Map<string, SpecdecFinding>();
  for (const f of findings) {
    const id = `${f.rule}|${f.file}|${f.line}|${f.col}|${f.message}`;
    const known = seen.get(id);
    if (known) known.subjects = [...new Set([...known.subjects, ...f.subjects])];
    else seen.set(id, f);
  }
  return [...seen.values()];
}

const JUDGED = new Set<SpecdecRule>(['specdec/golden-al', 'specdec/draft-length', 'specdec/thinking-mode']);

function specdecFindings(tree: Tree): Promise<SpecdecFinding[]> {
  return once(tree, 'specdec', async () => {
    const golden = await treeGolden(tree);
    if (golden.problem) return [golden.problem];
    const parts = await Promise.all([configFindings(tree, golden), recipeFindings(tree, golden), scriptFindings(tree, golden)]);
    // A finding judged by the curves is also about them: an edited curve makes it the change's own.
    const curveSubjects = golden.paths.map((p) => subject.file(tree.snapshot.display(p)));
    return parts.flat().map((f) => (JUDGED.has(f.rule) ? { ...f, subjects: [...f.subjects, ...curveSubjects] } : f));
  });
}

function specdecRule(id: SpecdecRule, description: string, explanation: string, severity: Rule['severity'] = 'error'): Rule {
  return {
    id,
    severity,
    scope: 'tree',
    description,
    explanation,
    check: async ({ head }) =>
      (await specdecFindings(head)).filter((f) => f.rule === id).map(({ rule: _rule, ...finding }) => finding),
  };
}

export const SPECDEC_RULES: readonly Rule[] = [
  specdecRule(
    'specdec/golden-al',
    'synthetic acceptance is the committed golden AL of its model, thinking mode and draft length',
    "Under InferenceX's AgentX guidelines a run that injects synthetic acceptance (SYNTHETIC_ACCEPTANCE_LENGTH in a master config, vLLM's synthetic_acceptance_length, SGLANG_SIMULATE_ACC_LEN, TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS = AL − 1, ATOM's --spec-decode-acceptance-length) must inject the golden AL committed in golden_al_distribution/ for its model, thinking mode and draft length: a submission may choose its draft length, not its acceptance target. The model comes from the config's model-prefix (a script's file name), the draft length from the engine flags the value runs with (num_speculative_tokens, speculative-num-steps, max_draft_len). Values are compared at the curves' two decimals. Fix: set the value the finding names (`frontier al show <model>` prints the curve); a model with no curve needs one collected with speedbench-al.yml first.",
  ),
  specdecRule(
    'specdec/draft-length',
    'a run with synthetic acceptance uses a draft length the golden curve has',
    'The golden curves are measured at draft lengths 1–8; a draft length outside the curve has no acceptance target, so whatever value is injected is made up. Fix: run a draft length the curve has, or collect the curve at that length with speedbench-al.yml.',
  ),
  specdecRule(
    'specdec/thinking-mode',
    'synthetic acceptance comes from the curve of the thinking mode the chat template serves',
    "Acceptance depends on the thinking mode: each golden file records the chat_template_kwargs its thinking_on and thinking_off curves were measured with. A deployment whose chat template says otherwise (--default-chat-template-kwargs, a recipe's default-chat-template-kwargs, DeepSeek-V4's reasoning effort, a THINKING_MODE setting) while pinning a curve's value injects the acceptance of a mode it does not run — or of one no curve was measured in. A deployment that sets no kwargs serves its template's default, which is not checked. Fix: pin the value of the mode the deployment serves, or serve the mode the curve was measured in.",
  ),
  specdecRule(
    'specdec/eval-injection',
    'eval runs do not inject synthetic acceptance',
    "Synthetic acceptance commits draft tokens regardless of the target model's logits, so an eval run with it scores text the model never produced (InferenceX's SWE-bench run went to 0.0000). InferenceX's injector skips EVAL_ONLY runs, its GB300 launcher deletes TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS from recipes for them, and its scripts set the knob only when EVAL_ONLY is not true. A script that sets it without that test, a recipe named as EVAL_CONFIG_FILE that hard-codes it, or a hard-coded recipe whose 8k1k entry runs default evals with no EVAL_CONFIG_FILE and no launcher that strips the knob, injects it into the eval (agentic entries, which run evals only on request, are specdec/eval-injection-on-request). Fix: guard the knob with EVAL_ONLY, inject it from the master config, or give the entry a real-verification EVAL_CONFIG_FILE.",
  ),
  specdecRule(
    'specdec/eval-injection-on-request',
    'a recipe that hard-codes synthetic acceptance is not what agentic eval runs use',
    "Agentic rows run evals only when a sweep asks for them (--evals-only, --all-evals); an srt-slurm recipe that hard-codes synthetic acceptance (SGLANG_SIMULATE_ACC_LEN in a worker environment, vLLM's synthetic_acceptance_length) then serves the eval with it, because the injector's EVAL_ONLY skip only covers what it injects itself and no launcher strips those knobs (InferenceX's GB300 launcher strips only TensorRT-LLM's). InferenceX's reviewer asks agentic recipes to carry the knob, so this is a warning, not an error. Fix: give the entry an EVAL_CONFIG_FILE with real verification (as InferenceX's MiniMax-M3 entries do), or inject from the master config.",
    'warning',
  ),
  specdecRule(
    'specdec/not-injected',
    "a master config's synthetic acceptance is one the runner's injector applies",
    "InferenceX's multi-node launchers run runners/inject_synthetic_acceptance.py on the recipe before submitting it. It does nothing unless SYNTHETIC_ACCEPTANCE=true (a SYNTHETIC_ACCEPTANCE_LENGTH alone is silently ignored and the run measures real acceptance), exits with an error for a framework with no backend in runners/synthetic_injectors/ (dynamo-vllm, dynamo-sglang), for a recipe it cannot rewrite (vLLM: no single-quoted speculative-config JSON line; SGLang: no two-space `<role>_environment:` block, or SGLANG_SIMULATE_ACC_* already set), and when no length is given and the file it looks the AL up in (benchmarks/speedbench-reference-al.yaml) is absent. Checked only in trees that have the injector. Fix: what the finding says.",
  ),
];
