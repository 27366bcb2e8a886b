import { basename } from 'node:path';
import { studentQuantile } from '../util/stats.js';
import { UserError } from '../util/user-error.js';
import type { ThinkingMode } from './golden.js';

/**
 * The pure half of `frontier al collect`: its inputs (draft lengths, thinking modes, chat-template
 * kwargs, the command and URL templates), a cell's acceptance length with its uncertainty, and
 * the golden file in InferenceX's format (benchmarks/single_node/speedbench/*.sh write it;
 * golden_al_distribution/*.yaml and benchmarks/speedbench-reference-al.yaml are copies of it).
 */

/** The most draft lengths one collection takes (InferenceX collects 1..8). */
export const MAX_DRAFT_LENGTH = 64;

/**
 * `--draft-lengths`: `1..8`, `1,2,4`, InferenceX's space-separated `1 2 3`, or a mix (`1..3,6`);
 * ascending, each once.
 */
export function parseDraftLengths(value: string): number[] {
  const bad = (why: string): never => {
    throw new UserError(`--draft-lengths ${JSON.stringify(value)}: ${why}`, {
      hint: `write a range or a list of positive integers up to ${MAX_DRAFT_LENGTH}: 1..8, or 1,2,4, or "1 2 3"`,
    });
  };
  const out = new Set<number>();
  const items = value.split(/[\s,]+/).filter(Boolean);
  if (items.length === 0) bad('no draft length');
  const int = (s: string): number => {
    if (!/^\d+$/.test(s)) bad(`${s} is not a positive integer`);
    const n = Number(s);
    if (n < 1 || n > MAX_DRAFT_LENGTH) bad(`${n} is not in 1..${MAX_DRAFT_LENGTH}`);
    return n;
  };
  for (const item of items) {
    const range = /^(.*?)(?:\.\.|-)(.*)$/.exec(item);
    if (range) {
      const [from, to] = [int(range[1]!), int(range[2]!)];
      if (from > to) bad(`the range ${item} runs backwards`);
      for (let n = from; n <= to; n++) out.add(n);
    } else out.add(int(item));
  }
  return [...out].sort((a, b) => a - b);
}

/** `--thinking`: `on,off` (or InferenceX's `off on`, or thinking_on/thinking_off); in the order given, each once. */
export function parseThinking(value: string): ThinkingMode[] {
  const out: ThinkingMode[] = [];
  const items = value.split(/[\s,]+/).filter(Boolean);
  for (const item of items) {
    const mode = ({ on: 'thinking_on', off: 'thinking_off', thinking_on: 'thinking_on', thinking_off: 'thinking_off' } as const)[
      item as 'on'
    ];
    if (!mode)
      throw new UserError(`--thinking ${JSON.stringify(value)}: ${item} is not a thinking mode`, {
        hint: 'write on, off, or both: on,off',
      });
    if (!out.includes(mode)) out.push(mode);
  }
  if (out.length === 0) throw new UserError(`--thinking ${JSON.stringify(value)}: no thinking mode`, { hint: 'write on,off' });
  return out;
}

/** A chat_template_kwargs flag's JSON object (its text is kept for the file's header, as InferenceX writes it). */
export function parseKwargs(flag: string, value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    throw new UserError(`${flag} ${value}: not JSON (${(e as Error).message})`, {
      hint: `write the chat_template_kwargs object, e.g. ${flag} '{"thinking": true}'`,
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UserError(`${flag} ${value}: not a JSON object`, {
      hint: `write the chat_template_kwargs object, e.g. ${flag} '{"thinking": true}'`,
    });
  return parsed as Record<string, unknown>;
}

/** InferenceX's MODEL_KEY default: the model's basename, lower-cased (deepseek-ai/DeepSeek-V4-Pro → deepseek-v4-pro). */
export const modelKeyOf = (model: string): string => basename(model.replace(/\/+$/, '')).toLowerCase();

/** What a command or URL template may name, per server start: `{draft}`, `{thinking}` (on/off), `{port}`, `{model}`. */
export interface TemplateValues {
  draft: number;
  thinking: ThinkingMode;
  port?: number | undefined;
  model: string;
}

export const PLACEHOLDERS = ['{draft}', '{thinking}', '{port}', '{model}'] as const;

/** `template` with its placeholders filled; other braces (a JSON speculative config) are left as they are. */
export function fillTemplate(template: string, v: TemplateValues): string {
  return template
    .replaceAll('{draft}', String(v.draft))
    .replaceAll('{thinking}', v.thinking === 'thinking_on' ? 'on' : 'off')
    .replaceAll('{model}', v.model)
    .replaceAll('{port}', v.port === undefined ? '{port}' : String(v.port));
}

/** One request's share of a cell's counters: the accepted draft tokens and the drafts verified while it ran. */
export interface RequestWindow {
  accepted: number;
  drafts: number;
}

export interface AlEstimate {
  /** 1 + Σ accepted / Σ drafts: InferenceX's formula over the cell's whole window. */
  al: number;
  /** The value as the file writes it: two decimals, as InferenceX's awk printf "%.2f" rounds. */
  rounded: string;
  drafts: number;
  accepted: number;
  /** The confidence interval's half-width; undefined with fewer than two requests. */
  half: number | undefined;
  level: number;
}

/**
 * AL = 1 + a/d with two decimals, exactly as the collectors' `awk "BEGIN {printf \"%.2f\", 1 +
 * ($a / $d)}"` writes it: the double 1 + a/d rounded to the nearest hundredth by its exact binary
 * value (what toFixed does too), except that an exact tie goes to the even hundredth, as C's
 * printf rounds (toFixed takes the larger). Only x.125, x.375, x.625 and x.875 are exact ties.
 */
export function roundAl(accepted: number, drafts: number): string {
  const v = 1 + accepted / drafts;
  const eighths = v * 8;
  if (Number.isInteger(eighths) && eighths % 2 === 1) {
    const lower = Math.floor(v * 100);
    return ((lower % 2 === 0 ? lower : lower + 1) / 100).toFixed(2);
  }
  return v.toFixed(2);
}

/**
 * The cell's AL and its confidence interval over its requests. AL is a ratio of sums (accepted
 * over drafts), so its standard error is the ratio estimator's, with each request (prompt) the
 * sampling unit: SE = √(Σ (aᵢ − R·dᵢ)² / (n − 1) / n) / d̄. That counts both the draw-to-draw
 * noise of acceptance and how much prompts differ — what another sample of prompts from the same
 * category would move the value by — and the interval takes Student's t with n − 1 df.
 */
export function estimateAl(windows: readonly RequestWindow[], level = 0.95): AlEstimate | undefined {
  const accepted = windows.reduce((s, w) => s + w.accepted, 0);
  const drafts = windows.reduce((s, w) => s + w.drafts, 0);
  if (drafts <= 0) return undefined;
  const ratio = accepted / drafts;
  const n = windows.length;
  let half: number | undefined;
  if (n >= 2) {
    const residual = windows.reduce((s, w) => s + (w.accepted - ratio * w.drafts) ** 2, 0) / (n - 1);
    const se = Math.sqrt(residual / n) / (drafts / n);
    half = studentQuantile(1 - (1 - level) / 2, n - 1) * se;
  }
  return { al: 1 + ratio, rounded: roundAl(accepted, drafts), drafts, accepted, half, level };
}

/** One cell of the matrix as the file records it. */
export interface CollectedCell {
  mode: ThinkingMode;
  draftLength: number;
  estimate: AlEstimate | undefined;
  requests: number;
  failedRequests: number;
  /** Why the cell has no value (written N/A, as InferenceX's collectors do). */
  error?: string | undefined;
}

export interface GoldenHeader {
  modelKey: string;
  /** What the header says it was measured on, after the key (InferenceX: "B300, vLLM MTP"). */
  measuredOn: string;
  category: string;
  temperature: number;
  topP?: number | undefined;
  outputLen: number;
  /** The chat_template_kwargs text each mode was measured with, as given (undefined: none sent). */
  kwargs: Partial<Record<ThinkingMode, string>>;
  modes: readonly ThinkingMode[];
  draftLengths: readonly number[];
  /** The GitHub Actions run that measured it: the first line InferenceX commits the file with. */
  sourceRun?: string | undefined;
  version: string;
}

/** A number as the header writes it: 1 → 1.0, as InferenceX's TEMPERATURE default reads. */
const headerNumber = (x: number): string => (Number.isInteger(x) ? x.toFixed(1) : String(x));

/** A cell's comment: how sure its value is (ASCII only: the injector opens the file with the locale's encoding). */
function cellComment(c: CollectedCell): string {
  if (c.error !== undefined || !c.estimate) return `  # ${c.error ?? 'no drafts'}`.replace(/[^\x20-\x7e]/g, '?');
  const e = c.estimate;
  const failed = c.failedRequests > 0 ? `, ${c.failedRequests} failed` : '';
  const ci =
    e.half === undefined
      ? 'no interval (one request)'
      : `${Math.round(e.level * 100)}% CI [${(e.al - e.half).toFixed(3)}, ${(e.al + e.half).toFixed(3)}]`;
  return `  # ${e.al.toFixed(4)}, ${ci}, ${c.requests} requests${failed}, ${e.drafts} drafts`;
}

/**
 * The golden file: InferenceX's header, the model key, then `thinking_on:` and `thinking_off:`
 * (that order, as the collectors emit them) with `draft length: AL` per line — N/A for a cell that
 * failed. Each value carries a comment with its unrounded AL, confidence interval, requests and
 * drafts; YAML readers (the injector's yaml.safe_load, `frontier al show`) skip comments.
 */
export function goldenYaml(h: GoldenHeader, cells: readonly CollectedCell[]): string {
  const dataset = [
    `dataset: ${h.category}`,
    `temperature: ${headerNumber(h.temperature)}`,
    ...(h.topP !== undefined ? [`top_p: ${h.topP}`] : []),
    `output_len: ${h.outputLen}`,
  ].join(' | ');
  const lines = [
    ...(h.sourceRun ? [`# Source GitHub Actions run: ${h.sourceRun}`] : []),
    '# Acceptance Length (AL) reference values measured with SPEED-Bench.',
    `# ${dataset}`,
    ...(['thinking_on', 'thinking_off'] as const)
      .filter((m) => h.modes.includes(m) && h.kwargs[m] !== undefined)
      .map((m) => `# ${m} chat_template_kwargs: ${h.kwargs[m]}`),
    `# Measured on ${h.modelKey} (${h.measuredOn}), per num_speculative_tokens.`,
    `# Auto-generated by frontier al collect (Frontier ${h.version}).`,
    '# Each value: AL = 1 + accepted draft tokens / drafts over every prompt, two decimals; its comment',
    '# gives the unrounded AL, its 95% confidence interval over the prompts, the requests and the drafts.',
    '#',
    '# key = num_speculative_tokens (draft length); value = golden AL',
    `${h.modelKey}:`,
  ];
  for (const mode of ['thinking_on', 'thinking_off'] as const) {
    if (!h.modes.includes(mode)) continue;
    lines.push(`  ${mode}:`);
    for (const n of h.draftLengths) {
      const cell = cells.find((c) => c.mode === mode && c.draftLength === n);
      const value = cell?.error === undefined && cell?.estimate ? cell.estimate.rounded : 'N/A';
      lines.push(`    ${n}: ${value}${cell ? cellComment(cell) : '  # not measured'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
