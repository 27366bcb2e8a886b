import { describe, expect, it } from 'vitest';
import { scriptAcceptance } from '../../src/specdec/script-pins.js';
import { parseScript, printfArgument, resolveWord, runsInEval } from '../../src/specdec/shell.js';

/** What a script pins, on small scripts written the ways InferenceX's agentic scripts write it. */

const pinsOf = (text: string): [string, string, number[], number, boolean | undefined][] =>
  scriptAcceptance(text).pins.map((p) => [p.knob, p.written, p.draftLengths, p.line, p.inEval]);

describe('shell structure', () => {
  it('tells which arms can run with EVAL_ONLY=true', () => {
    const script = parseScript(
      [
        'if [ "${EVAL_ONLY:-false}" = "true" ]; then',
        '  A=1',
        'elif [ "$CONC" -gt 8 ]; then',
        '  B=1',
        'else',
        '  C=1',
        'fi',
        'if [[ "$EVAL_ONLY" != "true" ]]',
        'then',
        '  D=1',
        'fi',
        '[ "$EVAL_ONLY" = true ] || E=1',
        'F=1',
      ].join('\n'),
    );
    const runs = (name: string): boolean | undefined =>
      runsInEval(script.assignments.find((a) => a.name === name)!.statement.arms);
    expect(['A', 'B', 'C', 'D', 'E', 'F'].map(runs)).toEqual([true, false, false, false, false, undefined]);
  });

  it('resolves a variable to the assignments that can run with the statement, its own arm first', () => {
    const script = parseScript(
      ['N=${N:-2}', 'if [ "$CONC" -le 8 ]; then', '  N=7', '  X="$N"', 'else', '  X="$N"', 'fi'].join('\n'),
    );
    const [inThen, inElse] = script.statements.filter((s) => s.text.startsWith('X='));
    expect(resolveWord(script, '"$N"', inThen!, 2).map((r) => r.value)).toEqual(['7']);
    expect(resolveWord(script, '"$N"', inElse!, 2).map((r) => r.value)).toEqual(['2']);
  });

  it("reads printf's argument for a conversion, across continuation lines", () => {
    const script = parseScript(`S=$(printf \\\n  '{"n":%d,"al":%.2f}' \\\n  "$N" "$AL")`);
    const s = script.statements[0]!;
    expect(printfArgument(s, s.text.indexOf('%.2f'))?.word).toBe('"$AL"');
    expect(s.lineAt(s.text.indexOf('"$AL"'))).toBe(3);
  });
});

describe('scriptAcceptance', () => {
  it('pairs each value with the draft length of its own arm (Kimi-K3: draft length by concurrency)', () => {
    const text = [
      'if [ "$CONC" -le 8 ]; then',
      '    NUM_SPEC_TOKENS=7',
      '    SYNTHETIC_ACCEPT_LEN=3.84',
      'else',
      '    NUM_SPEC_TOKENS=3',
      '    SYNTHETIC_ACCEPT_LEN=3.00',
      'fi',
      'if [ "${EVAL_ONLY:-false}" = "true" ]; then',
      '    SPEC_CONFIG="{\\"num_speculative_tokens\\": $NUM_SPEC_TOKENS}"',
      'else',
      '    SPEC_CONFIG="{\\"num_speculative_tokens\\": $NUM_SPEC_TOKENS, \\"rejection_sample_method\\": \\"synthetic\\", \\"synthetic_acceptance_length\\": $SYNTHETIC_ACCEPT_LEN}"',
      'fi',
    ].join('\n');
    expect(pinsOf(text)).toEqual([
      ['synthetic_acceptance_length', '3.84', [7], 3, false],
      ['synthetic_acceptance_length', '3.00', [3], 6, false],
    ]);
  });

  it("reads each engine's knob and draft flag", () => {
    const sglang = 'SGLANG_CMD=(\n  --speculative-num-steps 3\n)\nexport SGLANG_SIMULATE_ACC_LEN=3.39\n';
    expect(pinsOf(sglang)).toEqual([['SGLANG_SIMULATE_ACC_LEN', '3.39', [3], 4, undefined]]);
    const trt =
      'cat > c.yaml <<EOF\nspeculative_config:\n  max_draft_len: 3\nEOF\nif [ "$EVAL_ONLY" = "true" ]; then\n  unset TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS\nelse\n  export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.78\nfi\n';
    expect(pinsOf(trt)).toEqual([['TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS', '1.78', [3], 8, false]]);
    const atom =
      'NUM_SPEC_TOKENS=3\nAL=2.49\nARGS=(--num-speculative-tokens "$NUM_SPEC_TOKENS")\nARGS+=(--spec-decode-acceptance-length "$AL")\n';
    expect(pinsOf(atom)).toEqual([['--spec-decode-acceptance-length', '2.49', [3], 2, undefined]]);
  });

  it('knows an eval run does not get a knob its EVAL_ONLY arm takes back', () => {
    const text = 'export SGLANG_SIMULATE_ACC_LEN=2.49\nif [ "$EVAL_ONLY" == "true" ]; then unset SGLANG_SIMULATE_ACC_LEN; fi\n';
    expect(pinsOf(text)[0]![4]).toBe(false);
    expect(pinsOf('export SGLANG_SIMULATE_ACC_LEN=2.49\n')[0]![4]).toBeUndefined();
  });

  it('reads the chat-template kwargs a server is started with', () => {
    const text = 'vllm serve m \\\n  --default-chat-template-kwargs \'{"thinking_mode":"enabled"}\'\n';
    expect(scriptAcceptance(text).thinking).toEqual({ kwargs: { thinking_mode: 'enabled' }, line: 1 });
  });
});
