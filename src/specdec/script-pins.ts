import type { Knob, Pin } from './judge.js';
import { compatible, parseScript, printfArgument, resolveWord, runsInEval, sameArms, unquote } from './shell.js';
import type { Resolved, Script, Statement } from './shell.js';

/**
 * The synthetic acceptance a benchmark script injects: each knob it sets, the values it can take,
 * the draft lengths it runs with, the chat-template kwargs it serves, and whether an EVAL_ONLY run
 * gets it.
 */

export interface ScriptPin extends Pin {
  /** Where the value is written (a literal, or the assignment of the variable it reads). */
  line: number;
  col: number;
  /** Where the knob is set. */
  knobLine: number;
  /** Whether an EVAL_ONLY=true run gets the knob: true, false, or undefined when the script never tests EVAL_ONLY. */
  inEval: boolean | undefined;
}

export interface ScriptAcceptance {
  pins: ScriptPin[];
  /** `--default-chat-template-kwargs` / `--chat-template-kwargs` (and DeepSeek-V4's reasoning effort), with their line. */
  thinking: { kwargs: Record<string, unknown>; line: number } | undefined;
}

/** Where each knob's value is written in a statement. */
const KNOBS: [Knob, RegExp][] = [
  ['SGLANG_SIMULATE_ACC_LEN', /\bSGLANG_SIMULATE_ACC_LEN=("[^"]*"|'[^']*'|[^\s;]+)/g],
  ['TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS', /\bTLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=("[^"]*"|'[^']*'|[^\s;]+)/g],
  ['synthetic_acceptance_length', /\\?"synthetic_acceptance_length\\?"\s*:\s*([^,}\s]+)/g],
  ['--spec-decode-acceptance-length', /--spec-decode-acceptance-length(?:=|\s+)(\S+)/g],
  ['--spec-decode-acceptance-rate', /--spec-decode-acceptance-rate(?:=|\s+)(\S+)/g],
];

/** Where a draft length is written: vLLM/ATOM JSON, SGLang and ATOM flags, TRT-LLM's YAML. */
const DRAFTS = [
  /\\?"num_speculative_tokens\\?"\s*:\s*([^,}\s]+)/g,
  /--speculative-num-steps(?:=|\s+)(\S+)/g,
  /--num-speculative-tokens(?:=|\s+)(\S+)/g,
  /\bmax_draft_len:\s*(\S+)/g,
  /\bnum_nextn_predict_layers:\s*(\S+)/g,
];

/** The values a word at an offset of a statement can have: printf conversions read their argument. */
function valuesOf(script: Script, statement: Statement, word: string, offset: number): Resolved[] {
  if (/^%/.test(word)) {
    const arg = printfArgument(statement, offset);
    return arg ? valuesOf(script, statement, arg.word, arg.offset) : [];
  }
  return resolveWord(script, word, statement, offset);
}

export function scriptAcceptance(source: string): ScriptAcceptance {
  const script = parseScript(source);
  const drafts: Resolved[] = [];
  const inline = new Map<Statement, Resolved[]>();
  for (const statement of script.statements) {
    for (const re of DRAFTS) {
      for (const m of statement.text.matchAll(re)) {
        const values = valuesOf(script, statement, m[1]!, m.index + m[0].length - m[1]!.length).filter((v) =>
          /^\d+$/.test(v.value),
        );
        drafts.push(...values);
        if (re === DRAFTS[0]) inline.set(statement, [...(inline.get(statement) ?? []), ...values]);
      }
    }
  }

  const pins: ScriptPin[] = [];
  for (const statement of script.statements) {
    if (statement.heredoc) continue;
    for (const [knob, re] of KNOBS) {
      for (const m of statement.text.matchAll(re)) {
        const offset = m.index + m[0].length - m[1]!.length;
        const candidates = inline.get(statement) ?? drafts;
        for (const value of valuesOf(script, statement, unquote(m[1]!), offset)) {
          if (!Number.isFinite(Number(value.value)) || value.value === '') continue;
          // The draft lengths that run with this value: those written in its own arm, else any that can run with it.
          const near = candidates.filter((d) => sameArms(d.statement.arms, value.statement.arms));
          const paired = near.length > 0 ? near : candidates.filter((d) => compatible(d.statement.arms, value.statement.arms));
          const line = value.statement.lineAt(value.offset);
          pins.push({
            knob,
            written: value.value,
            draftLengths: [...new Set(paired.map((d) => Number(d.value)).filter((n) => n > 0))],
            line,
            col: columnOf(source, line, value.value),
            knobLine: statement.lineAt(offset),
            inEval: inEval(script, statement, knob),
          });
        }
      }
    }
  }
  return { pins, thinking: thinkingOf(script) };
}

const columnOf = (source: string, line: number, value: string): number =>
  (source.split(/\r?\n/)[line - 1]?.indexOf(value) ?? -1) + 1 || 1;

/**
 * Whether an EVAL_ONLY run gets the knob set in a statement: not when its arm excludes EVAL_ONLY,
 * nor when an eval arm after it unsets the knob or reassigns the variable that carries it.
 */
function inEval(script: Script, statement: Statement, knob: Knob): boolean | undefined {
  const runs = runsInEval(statement.arms);
  if (runs === false) return false;
  const carrier = /^\s*(?:export\s+)?([A-Za-z_]\w*)\+?=/.exec(statement.text)?.[1];
  const undone = script.statements.some(
    (s) =>
      s.line > statement.line &&
      runsInEval(s.arms) === true &&
      (new RegExp(`^\\s*unset\\s+(?:\\w+\\s+)*${knob}\\b`).test(s.text) ||
        (carrier !== undefined &&
          carrier !== knob &&
          new RegExp(`^\\s*(?:export\\s+)?${carrier}=`).test(s.text) &&
          !s.text.includes(knob))),
  );
  return undone ? false : runs;
}

function thinkingOf(script: Script): ScriptAcceptance['thinking'] {
  for (const s of script.statements) {
    const m = /--(?:default-)?chat-template-kwargs(?:=|\s+)('[^']*'|"(?:\\.|[^"\\])*"|\S+)/.exec(s.text);
    if (!m) continue;
    try {
      const kwargs = JSON.parse(unquote(m[1]!).replace(/\\"/g, '"')) as unknown;
      if (kwargs && typeof kwargs === 'object') return { kwargs: kwargs as Record<string, unknown>, line: s.line };
    } catch {
      // Kwargs built from variables cannot be read; the mode is then unknown.
    }
  }
  const effort = script.assignments.find((a) => a.name === 'SGLANG_DSV4_REASONING_EFFORT');
  return effort ? { kwargs: { reasoning_effort: effort.value }, line: effort.statement.line } : undefined;
}
