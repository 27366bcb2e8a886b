import { sameAl } from './golden.js';
import type { GoldenCurve, GoldenFile, GoldenPoint, ThinkingMode } from './golden.js';

/** The settings that inject synthetic acceptance, per engine (golden_al_distribution/README.md). */
export type Knob =
  | 'SYNTHETIC_ACCEPTANCE_LENGTH'
  | 'synthetic_acceptance_length'
  | 'SGLANG_SIMULATE_ACC_LEN'
  | 'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS'
  | '--spec-decode-acceptance-length'
  | '--spec-decode-acceptance-rate';

/** One value a setting injects, with the draft length it runs with. */
export interface Pin {
  knob: Knob;
  written: string;
  /** The draft lengths it can run with (several when the script's arms leave it open). */
  draftLengths: number[];
}

/** The acceptance length a knob's value means: TRT-LLM counts accepted drafts only (AL − 1), ATOM's rate is (AL − 1) / drafts. */
export function alOf(knob: Knob, value: number, draftLength: number | undefined): number | undefined {
  if (knob === 'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS') return value + 1;
  if (knob === '--spec-decode-acceptance-rate') return draftLength === undefined ? undefined : 1 + value * draftLength;
  return value;
}

/** The value to write in a knob for an AL. */
export function knobValue(knob: Knob, al: number, draftLength: number): string {
  if (knob === 'TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS') return (al - 1).toFixed(2);
  if (knob === '--spec-decode-acceptance-rate') return String(Number(((al - 1) / draftLength).toFixed(4)));
  return al.toFixed(2);
}

export interface Verdict {
  rule: 'specdec/golden-al' | 'specdec/draft-length' | 'specdec/thinking-mode';
  message: string;
  hint: string;
}

/** Where a golden value is written, for messages. */
const at = (curve: GoldenCurve, point: GoldenPoint): string => `${curve.file}:${point.line}`;
const modeName = (curve: GoldenCurve): string => curve.mode ?? 'its only mode';

/**
 * Whether the chat-template kwargs a deployment sets (`{"thinking_mode":"enabled"}`) contradict
 * those a mode was measured with: a key both set, to different values.
 */
function contradicts(set: Record<string, unknown>, measured: Record<string, unknown> | undefined): boolean {
  if (!measured) return false;
  return Object.entries(set).some(([k, v]) => k in measured && JSON.stringify(measured[k]) !== JSON.stringify(v));
}

export interface Deployment {
  /** What the model is called in messages. */
  model: string;
  /** The chat-template kwargs the deployment sets, or the thinking mode it names (THINKING_MODE). */
  thinking?: Record<string, unknown> | ThinkingMode | undefined;
  /** Where the thinking setting is written, for messages. */
  thinkingAt?: string | undefined;
}

/**
 * Judge one pinned value against the golden curves of its model. Undefined when it is the golden
 * value (for one of its possible draft lengths).
 */
export function judge(
  pin: Pin,
  deployment: Deployment,
  curves: GoldenCurve[],
  files: readonly GoldenFile[],
): Verdict | undefined {
  const value = Number(pin.written);
  if (!Number.isFinite(value) || pin.draftLengths.length === 0) return undefined;
  if (curves.length === 0)
    return {
      rule: 'specdec/golden-al',
      message: `${pin.knob} injects synthetic acceptance for ${deployment.model}, which has no committed golden AL curve`,
      hint: 'collect one with speedbench-al.yml and commit it under golden_al_distribution/, or run real acceptance',
    };
  const { thinking } = deployment;
  const kwargsOf = (c: GoldenCurve): Record<string, unknown> | undefined =>
    c.mode ? files.find((f) => f.curves.includes(c))?.chatTemplateKwargs[c.mode] : undefined;
  const allowed = (c: GoldenCurve): boolean =>
    thinking === undefined
      ? true
      : typeof thinking === 'string'
        ? (c.mode ?? thinking) === thinking
        : !contradicts(thinking, kwargsOf(c));
  const verdicts: Verdict[] = [];
  for (const n of pin.draftLengths) {
    const al = alOf(pin.knob, value, n)!;
    const atLength = curves.flatMap((c) => c.points.filter((p) => p.draftLength === n).map((p) => ({ curve: c, point: p })));
    if (atLength.length === 0) {
      const lengths = [...new Set(curves.flatMap((c) => c.points.map((p) => p.draftLength)))].sort((a, b) => a - b);
      verdicts.push({
        rule: 'specdec/draft-length',
        message: `draft length ${n} is not on the golden AL curve of ${deployment.model} (draft lengths ${lengths.join(', ')}), so no acceptance target exists for it`,
        hint: `run a draft length the curve has (${curves[0]!.file}), or collect the curve at ${n} with speedbench-al.yml`,
      });
      continue;
    }
    const fitting = atLength.filter(({ curve }) => allowed(curve));
    if (fitting.some(({ point }) => sameAl(point.al, al))) return undefined;
    if (fitting.length === 0) {
      const measured = [...new Set(atLength.map(({ curve }) => `${modeName(curve)} ${JSON.stringify(kwargsOf(curve) ?? {})}`))];
      verdicts.push({
        rule: 'specdec/thinking-mode',
        message: `${deployment.model} runs with ${describe(thinking)}${deployment.thinkingAt ? ` (${deployment.thinkingAt})` : ''}, but its golden curve was measured with ${measured.join(' / ')}: the pinned AL stands for a mode the deployment does not run`,
        hint: `serve the chat template in the mode the curve was measured in, or collect a curve for this mode`,
      });
      continue;
    }
    const other = atLength.find(({ curve, point }) => !allowed(curve) && sameAl(point.al, al));
    const expected = [...new Map(fitting.map((f) => [f.point.al.toFixed(2), f])).values()];
    const targets = expected
      .map(({ curve, point }) => `${point.al.toFixed(2)} (${modeName(curve)}, ${at(curve, point)})`)
      .join(' or ');
    if (other) {
      verdicts.push({
        rule: 'specdec/thinking-mode',
        message: `${pin.knob}=${pin.written} is the ${modeName(other.curve)} golden AL of ${deployment.model} at draft length ${n}, but the deployment runs with ${describe(thinking)}${deployment.thinkingAt ? ` (${deployment.thinkingAt})` : ''}: its golden AL is ${targets}`,
        hint: `set ${pin.knob} to ${values(pin, expected, n)}, or serve the chat template in the mode the pinned value was measured in`,
      });
      continue;
    }
    verdicts.push({
      rule: 'specdec/golden-al',
      message: `${pin.knob}=${pin.written} (AL ${Number(al.toFixed(4))}) is not the golden AL of ${deployment.model} at draft length ${n}: ${targets}`,
      hint: `set ${pin.knob} to ${values(pin, expected, n)}: a submission may choose its draft length, not its acceptance target`,
    });
  }
  return verdicts[0];
}

/** The knob's value for each expected golden AL, naming the curve file when there are several. */
function values(pin: Pin, expected: { curve: GoldenCurve; point: GoldenPoint }[], n: number): string {
  if (expected.length === 1) return knobValue(pin.knob, expected[0]!.point.al, n);
  return expected
    .map(({ curve, point }) => `${knobValue(pin.knob, point.al, n)} (${curve.file}${curve.mode ? ` ${curve.mode}` : ''})`)
    .join(' or ');
}

function describe(thinking: Deployment['thinking']): string {
  if (thinking === undefined) return 'its default chat template';
  if (typeof thinking === 'string') return thinking;
  return `chat_template_kwargs ${JSON.stringify(thinking)}`;
}
