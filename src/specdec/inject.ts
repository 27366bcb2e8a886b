import { SyntheticAcceptanceError, syntheticAl } from '../engines/index.js';
import type { SyntheticAcceptance } from '../engines/index.js';

/**
 * Synthetic acceptance written into an srt-slurm recipe's text before `srtctl apply`, as
 * InferenceX's runners/inject_synthetic_acceptance.py and its framework backends do it
 * (runners/synthetic_injectors/): the same edits, byte for byte, and the same refusals.
 */

const VLLM_SPEC_CONFIG = /speculative-config:\s*'([^']+)'/g;
const SGLANG_STEPS = /^\s+speculative-num-steps:\s*([0-9]+)\s*$/m;
const SGLANG_ENV_BLOCK = /^( {2}(?:aggregated|prefill|decode)_environment:\s*)$/gm;

/** Python's `f"{x:g}"` for the values AL takes (up to six significant digits). */
const pythonG = (x: number): string => String(Number(x.toPrecision(6)));

/** Python's `json.dumps(v, separators=(",", ":"))`: floats keep their `.0`, non-ASCII is escaped. */
function pythonJson(v: Record<string, unknown>, float: string, value: number): string {
  const marker = '\u0000float\u0000';
  const text = JSON.stringify({ ...v, [float]: marker }).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return text.replace(JSON.stringify(marker), Number.isInteger(value) ? value.toFixed(1) : String(value));
}

export function injectSyntheticAcceptance(text: string, framework: string, s: SyntheticAcceptance, file: string): string {
  if (framework === 'dynamo-vllm') {
    let count = 0;
    const out = text.replace(VLLM_SPEC_CONFIG, (_, body: string) => {
      const spec = JSON.parse(body) as Record<string, unknown>;
      // The injector looks the AL up at the recipe's draft length (2 when it names none).
      const n = Number(spec.num_speculative_tokens ?? 2);
      spec.rejection_sample_method = 'synthetic';
      count++;
      return `speculative-config: '${pythonJson(spec, 'synthetic_acceptance_length', syntheticAl(s, n))}'`;
    });
    if (count === 0)
      throw new SyntheticAcceptanceError(
        `${file}: synthetic acceptance asked for, but the recipe has no speculative-config: '<json>' entry to rewrite`,
      );
    return out;
  }
  if (framework === 'dynamo-sglang') {
    if (text.includes('SGLANG_SIMULATE_ACC_LEN'))
      throw new SyntheticAcceptanceError(`${file}: the recipe already contains SGLANG_SIMULATE_ACC_* variables`);
    const steps = SGLANG_STEPS.exec(text)?.[1];
    const al = syntheticAl(s, steps === undefined ? 2 : Number(steps));
    const variables = `\n    SGLANG_SIMULATE_ACC_LEN: "${pythonG(al)}"\n    SGLANG_SIMULATE_ACC_METHOD: "match-expected"\n    SGLANG_SIMULATE_ACC_TOKEN_MODE: "real-draft-token"`;
    let count = 0;
    const out = text.replace(SGLANG_ENV_BLOCK, (line: string) => {
      count++;
      return line + variables;
    });
    if (count === 0)
      throw new SyntheticAcceptanceError(
        `${file}: synthetic acceptance asked for, but the recipe has no worker environment block to add it to`,
      );
    return out;
  }
  throw new SyntheticAcceptanceError(
    `synthetic acceptance asked for, but there is no injector for framework ${framework} (InferenceX has dynamo-vllm and dynamo-sglang)`,
  );
}
