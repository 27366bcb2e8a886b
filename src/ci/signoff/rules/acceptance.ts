import type { ChangedFile } from '../change.js';
import { fail, notApplicable, pass } from '../rule.js';
import type { SignoffRule } from '../rule.js';
import { isSpecDecodeScript } from './patchwork.js';

/** The knobs that pin a simulated acceptance length: SGLang, vLLM, TRT-LLM, ATOM (golden_al_distribution/README.md). */
const SIMULATED =
  /SGLANG_SIMULATE_ACC_LEN|synthetic_acceptance_length|TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS|--spec-decode-acceptance-(?:length|rate)\b/;

/** A single-node benchmark script: one that starts a server and replays or benchmarks against it (not a helper). */
const BENCHMARK_SCRIPT = /\brun_agentic_replay\w*|\brun_benchmark_serving\b/;

const singleNodeScript = (f: ChangedFile, dir: RegExp): boolean =>
  f.status !== 'deleted' && f.head !== undefined && dir.test(f.path) && f.path.endsWith('.sh') && BENCHMARK_SCRIPT.test(f.head);

/**
 * Single-node scripts only: multi-node recipes get their simulated acceptance injected at launch
 * by the runners (runners/synthetic_injectors/), so a recipe file alone cannot show it.
 */
const agenticSpecDecode = (f: ChangedFile): boolean =>
  singleNodeScript(f, /^benchmarks\/single_node\/agentic\//) && isSpecDecodeScript(f);

export const simulatedAcceptanceRule: SignoffRule = {
  id: 'signoff/agentic-simulated-acceptance',
  checkNumber: 11,
  name: 'agentic simulated acceptance',
  severity: 'error',
  description:
    'a single-node agentic spec-decode script the PR changes pins a simulated acceptance length; a fixed-sequence one does not',
  explanation:
    'Agentic replay does not reproduce real token-by-token traffic, so agentic spec-decode configs simulate acceptance at the golden acceptance length: SGLANG_SIMULATE_ACC_LEN (SGLang), synthetic_acceptance_length in --speculative-config (vLLM), TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS (TRT-LLM) or --spec-decode-acceptance-length (ATOM). In fixed-sequence benchmarks the real acceptance is the measurement, so a simulation knob added to one must be declared in the sign-off. Only single-node scripts are checked (multi-node recipes get the knob injected by the runners at launch), and whether the pinned value equals the committed golden curve is not checked here. Fix: pin the golden AL in the agentic config, or remove the knob from the non-agentic one.',
  check(context) {
    const agentic = context.files.filter(agenticSpecDecode);
    const real = agentic.filter((f) => !SIMULATED.test(f.head!));
    const findings = real.map((f) => ({
      message: `${f.path} is an agentic spec-decode benchmark with real (unsimulated) acceptance`,
      file: f.path,
      hint: 'pin the golden acceptance length from golden_al_distribution/ (see its README for the knob of each engine)',
    }));
    for (const f of context.files) {
      if (!singleNodeScript(f, /^benchmarks\/single_node\/fixed_seq_len\//)) continue;
      const hit = f.added.find((a) => !/^\s*#/.test(a.text) && SIMULATED.test(a.text));
      const knob = hit && SIMULATED.exec(hit.text)![0];
      if (hit && !context.declarations.includes(knob!.toLowerCase()))
        findings.push({
          message: `${f.path} simulates acceptance (${knob}) outside an agentic benchmark, where the real acceptance is measured`,
          file: f.path,
          hint: `remove ${knob}, or document the sanctioned exception naming ${knob} in the additional detail section`,
        });
    }
    if (findings.length > 0)
      return fail(findings[0]!.message + (findings.length > 1 ? `; and ${findings.length - 1} more` : ''), findings);
    if (agentic.length === 0) return notApplicable('no agentic speculative-decoding change');
    return pass(
      `${agentic.length} agentic spec-decode benchmark(s) pin a simulated acceptance length (the golden value is not compared)`,
    );
  },
};
