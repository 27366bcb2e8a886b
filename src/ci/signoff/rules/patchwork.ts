import type { ChangedFile } from '../change.js';
import { MASTER_CONFIG } from '../change.js';
import { waiverFile } from '../input.js';
import { fail, notApplicable, pass } from '../rule.js';
import type { SignoffRule } from '../rule.js';

interface Hit {
  file: string;
  line: number;
  text: string;
  what: string;
}

/** Where a change can alter what the pinned image runs: benchmark scripts, master configs, runner launchers, workflows (not docs). */
export const inBenchmarkArea = (path: string): boolean =>
  /^(?:benchmarks|configs|runners|\.github\/workflows)\//.test(path) && !/\.md$/i.test(path);

const isComment = (text: string): boolean => /^\s*#/.test(text);

/** Paths inside an engine's installed sources or its container workspace. */
const ENGINE_SOURCES = String.raw`(?:site-packages|dist-packages|/sgl-workspace|/vllm-workspace)`;

/** Where a shell command starts: a line start, after `;`, `&&`, `||`, `|`, `$(`, a backtick, `then` or `do`. */
const COMMAND = String.raw`(?:^|[;&|\`]|\$\(|\bthen\b|\bdo\b)\s*`;

/** Patchwork on the engine, each shape with what it is called in the finding. */
const PATCHWORK: [RegExp, string][] = [
  [new RegExp(String.raw`${COMMAND}git\s+(?:-C\s+\S+\s+)?apply\b`), 'git apply'],
  [new RegExp(String.raw`${COMMAND}patch\s+(?:-[a-zA-Z]*p\s*\d|-[a-zA-Z-]+.*<|<)`), 'patch'],
  [new RegExp(String.raw`\bsed\s+(?:-[a-zA-Z]*i|--in-place)\b.*${ENGINE_SOURCES}`), 'sed -i on engine sources'],
  [new RegExp(String.raw`(?:\bcat\s*>|\btee\b|\bcp\b|\bmv\b|>)\s*\S*${ENGINE_SOURCES}`), 'writes into engine sources'],
  [/importlib\.util\.find_spec/, 'resolves an installed package to edit it (importlib.util.find_spec)'],
  [/\bsitecustomize\b/, 'a sitecustomize hook'],
  [/\bpip3?\s+install\b.*(?:git\+|\.whl\b|\s@\s*https?:\/\/)/, 'pip install of a fork or rebuilt wheel'],
];

const isPatchFile = (path: string): boolean => /\.(?:patch|diff)$/.test(path);

function patchworkOf(files: readonly ChangedFile[]): Hit[] {
  const hits: Hit[] = [];
  for (const f of files) {
    if (f.status === 'deleted') continue;
    if (isPatchFile(f.path)) hits.push({ file: f.path, line: 0, text: '', what: 'a patch file' });
    if (!inBenchmarkArea(f.path)) continue;
    for (const a of f.added) {
      if (isComment(a.text)) continue;
      const shape = PATCHWORK.find(([re]) => re.test(a.text));
      if (shape) hits.push({ file: f.path, line: a.line, text: a.text.trim(), what: shape[1] });
    }
  }
  return hits;
}

const where = (h: Hit): string => (h.line > 0 ? `${h.file}:${h.line}` : h.file);

export const enginePatchRule: SignoffRule = {
  id: 'signoff/engine-patch-declared',
  checkNumber: 10,
  name: 'engine patches',
  severity: 'error',
  description: 'patchwork on the engine added by the PR is covered by a waiver the sign-off links',
  explanation:
    'The pinned image must run as shipped. Added patch files, `git apply`/`patch`, `sed -i` or writes into engine sources (site-packages, /sgl-workspace, …), find_spec-driven edits, sitecustomize hooks and pip installs of forks or wheels count as patching. Such a patch is allowed only with the waiver `docs/waiver/<PR>.md` filed in the same PR and linked from the sign-off. Monkey-patching by other means cannot be recognised from the diff and is left to the reviewer. Fix: drop the patch, or file and link the waiver.',
  check(context) {
    const hits = patchworkOf(context.files);
    if (hits.length === 0) return notApplicable('the diff adds no recognisable engine patchwork');
    const waiver = waiverFile(context.pr.number);
    const linked = context.comment.body.includes(waiver);
    if (context.waiverExists && linked) return pass(`${hits.length} patch site(s), covered by ${waiver} (linked)`);
    const missing = !context.waiverExists ? `${waiver} is not in the PR` : `the sign-off does not link ${waiver}`;
    return fail(
      `${where(hits[0]!)} patches the engine (${hits[0]!.what}); ${missing}`,
      hits.map((h) => ({
        message: `${h.what}${h.text ? `: ${h.text.slice(0, 120)}` : ''}; ${missing}`,
        file: h.file,
        line: h.line || undefined,
        hint: `remove the patch, or file ${waiver} (what is patched, why, the upstream link, the removal plan) and link it in the additional detail section`,
      })),
    );
  },
};

const HF_OVERRIDE = /--hf-overrides\b|\bhf_overrides\b|--json-model-override-args\b/;

export const hfOverridesRule: SignoffRule = {
  id: 'signoff/hf-overrides-declared',
  checkNumber: 8,
  name: 'architecture overrides',
  severity: 'error',
  description:
    'model-architecture overrides the PR adds (--hf-overrides, --json-model-override-args) are declared in the sign-off or PR body',
  explanation:
    'An architecture override can cut the FLOPs the model computes (skipping the indexer every N layers, trimming layers or experts), which is a benchmark hack unless the model natively supports it. Whether a given override removes FLOPs is a judgement; this rule makes sure it is not made silently: each override added outside docs must be named (the flag) in the additional detail section or the PR body, with the reason. Fix: remove the override, or declare it and why it does not reduce the architecture FLOPs.',
  check(context) {
    const hits: Hit[] = [];
    for (const f of context.files) {
      if (f.status === 'deleted' || !inBenchmarkArea(f.path)) continue;
      for (const a of f.added) {
        if (isComment(a.text)) continue;
        const m = HF_OVERRIDE.exec(a.text);
        if (m) hits.push({ file: f.path, line: a.line, text: a.text.trim(), what: m[0] });
      }
    }
    if (hits.length === 0) return notApplicable('the diff adds no architecture override');
    const declared = (h: Hit): boolean => context.declarations.includes(h.what.replace(/^--/, '').toLowerCase());
    const silent = hits.filter((h) => !declared(h));
    if (silent.length === 0)
      return pass(`${hits.length} override(s), declared in the sign-off or PR body (FLOPs effect is the reviewer's call)`);
    return fail(
      `${where(silent[0]!)} adds ${silent[0]!.what}, not declared in the sign-off or PR body`,
      silent.map((h) => ({
        message: `adds ${h.what}: ${h.text.slice(0, 120)}`,
        file: h.file,
        line: h.line,
        hint: `name ${h.what} in the additional detail section and say why it does not cut the model's FLOPs`,
      })),
    );
  },
};

const SPEC_NAME = /(?:^|[_.-])(?:mtp\d*|eagle\d*|spec(?:dec)?)(?:[_.-]|$)/i;
const SPEC_FLAGS = /--speculative[-_](?:config|algorithm|model|draft|num)|\bspeculative_config\b|\bnum_speculative_tokens\b/;
const BENCH_CALL = /\b(?:run_benchmark_serving|benchmark_serving(?:\.py)?|vllm\s+bench\s+serve|sglang\.bench_serving)\b/;
/** Flags that make the client send chat-formatted prompts (`--dsv4` implies --use-chat-template in benchmark_lib.sh). */
const CHAT = /--use-chat-template\b|--apply-chat-template\b|--dsv4\b|--backend[ =]+openai-chat\b|\/v1\/chat\/completions/;

/** A benchmark script that enables speculative decoding: by its flags, or mtp/eagle in its name. */
export const isSpecDecodeScript = (f: ChangedFile): boolean =>
  f.head !== undefined && (SPEC_NAME.test(f.path.split('/').pop()!.replace(/\.sh$/, '')) || SPEC_FLAGS.test(f.head));

export const specdecChatTemplateRule: SignoffRule = {
  id: 'signoff/specdec-chat-template',
  checkNumber: 9,
  name: 'spec-decode chat template',
  severity: 'error',
  description: 'a speculative-decoding benchmark script the PR adds or changes drives the client through the chat template',
  explanation:
    'Draft models and MTP heads are trained on chat-formatted text: raw completions give an acceptance length real traffic never sees. A changed script under benchmarks/ that enables speculative decoding (speculative flags, or mtp/eagle in its name) and calls the benchmark client must pass --use-chat-template (or --dsv4, which implies it, or a chat-completions backend). Spec-decode master-config entries whose script the PR does not touch are not resolved to a script here, and the golden-AL collectors under speedbench/ (which measure acceptance, not serving) are left out. Fix: add --use-chat-template to the benchmark call.',
  check(context) {
    const scripts = context.files.filter(
      (f) =>
        f.status !== 'deleted' &&
        f.head !== undefined &&
        /^benchmarks\/.*\.sh$/.test(f.path) &&
        !f.path.includes('/speedbench/') &&
        isSpecDecodeScript(f) &&
        BENCH_CALL.test(f.head),
    );
    const specEntries = context.entries.filter((e) => e.specDecoding.length > 0 && MASTER_CONFIG.test(e.file));
    if (scripts.length === 0)
      return notApplicable(
        specEntries.length > 0
          ? `no spec-decode benchmark script changed (${specEntries.length} spec-decode entr${specEntries.length === 1 ? 'y' : 'ies'} changed; their scripts are untouched)`
          : 'no speculative-decoding change',
      );
    const raw = scripts.filter((f) => !CHAT.test(f.head!));
    if (raw.length === 0) return pass(`${scripts.length} spec-decode script(s) benchmark through the chat template`);
    return fail(
      `${raw.map((f) => f.path).join(', ')}: spec-decode benchmark without the chat template`,
      raw.map((f) => {
        const line = f.head!.split('\n').findIndex((l) => BENCH_CALL.test(l)) + 1;
        return {
          message: `${f.path} enables speculative decoding and benchmarks raw completions (no --use-chat-template)`,
          file: f.path,
          line: line || undefined,
          hint: 'pass --use-chat-template to the benchmark call',
        };
      }),
    );
  },
};
