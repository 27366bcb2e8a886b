import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, formatCond, readCloneRoutes } from '../../src/clusters/index.js';
import type { Cond, CloneRoute } from '../../src/clusters/index.js';
import { BUNDLED_INFERENCEX } from '../helpers.js';

const RUNNERS = join(BUNDLED_INFERENCEX, 'tree/runners');
const launcher = (name: string): string => readFileSync(join(RUNNERS, name), 'utf8');

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

/** Routes of a snippet that must read without problems. */
function routes(text: string): CloneRoute[] {
  const read = readCloneRoutes(text);
  expect(read.problems).toEqual([]);
  return read.routes;
}

const only = (text: string): CloneRoute => {
  const all = routes(text);
  expect(all).toHaveLength(1);
  return all[0]!;
};

/** The condition of the one route of `if <cond>; then git clone …; fi`. */
const condOf = (test: string): Cond => only(`if ${test}; then\n  git clone https://x/r.git\nfi\n`).condition;

/** The first route (in order) whose condition is true for env, as its clone line. */
const firstTrue = (all: CloneRoute[], env: Record<string, string>): number | undefined =>
  all.find((r) => evaluate(r.condition, env) === true)?.line;

const t = (variable: string, pattern: string, op: '==' | '!=' = '=='): Cond => ({
  kind: 'test',
  variable,
  op,
  pattern,
  glob: false,
});

describe('readCloneRoutes: clones and refs', () => {
  it('an unconditional clone: default ref, the clone line as its arm, condition true', () => {
    const r = only('#!/usr/bin/bash\nset -x\ngit clone https://github.com/NVIDIA/srt-slurm.git srt-slurm\ncd srt-slurm\n');
    expect(r).toMatchObject({
      line: 3,
      arm: { line: 3, endLine: 3 },
      armText: '',
      repo: 'https://github.com/NVIDIA/srt-slurm.git',
    });
    expect(r.ref).toEqual({ kind: 'default', line: 3 });
    expect(r.condition).toEqual({ kind: 'true' });
  });

  it.each([
    [`git checkout ${SHA_A}`, { kind: 'commit', value: SHA_A, commit: SHA_A, line: 3 }],
    ['git checkout v1.0.29', { kind: 'tag', value: 'v1.0.29', line: 3 }],
    ['git checkout 1.2.3', { kind: 'tag', value: '1.2.3', line: 3 }],
    ['git checkout 217f9438 || exit 1', { kind: 'short-sha', value: '217f9438', line: 3 }],
    ['git checkout sa-submission-q2-2026', { kind: 'branch', value: 'sa-submission-q2-2026', line: 3 }],
    ['git -C "$DIR" checkout main', { kind: 'branch', value: 'main', line: 3 }],
    ['git checkout -q aflowers/x', { kind: 'branch', value: 'aflowers/x', line: 3 }],
    ['git checkout "$PIN"', { kind: 'unknown', value: '$PIN', line: 3 }],
    ['git checkout -- some/file', { kind: 'default', line: 2 }],
  ])('after "%s" the ref is %j', (checkout, ref) => {
    expect(only(`DIR=srt\ngit clone https://x/srt-slurm.git "$DIR"\n${checkout}\n`).ref).toEqual(ref);
  });

  it('--branch without a checkout is the branch or tag; a later checkout decides', () => {
    expect(only('git clone --branch v1.0.53 --single-branch https://x/r.git d').ref).toEqual({
      kind: 'tag',
      value: 'v1.0.53',
      line: 1,
    });
    expect(only('git clone -b main https://x/r.git').ref).toEqual({ kind: 'branch', value: 'main', line: 1 });
    expect(only('git clone --depth 1 --branch=dev https://x/r.git').ref).toEqual({ kind: 'branch', value: 'dev', line: 1 });
    const pinned = only(
      `git clone --branch main --single-branch https://x/r.git d || exit 1\ncd d || exit 1\ngit checkout ${SHA_A} || exit 1\n`,
    );
    expect(pinned.ref).toEqual({ kind: 'commit', value: SHA_A, commit: SHA_A, line: 3 });
  });

  it('a tag verified against a full sha is verified; a sha checkout stays a commit', () => {
    const verified = only(
      [
        'git clone --branch v1.0.50 --single-branch https://x/r.git "$D"',
        'cd "$D"',
        `test "$(git rev-parse HEAD)" = "${SHA_B}" || {`,
        '    echo "unexpected commit" >&2',
        '    exit 1',
        '}',
      ].join('\n'),
    );
    expect(verified.ref).toEqual({ kind: 'verified', value: 'v1.0.50', commit: SHA_B, line: 3 });
    const bracket = only(`git clone https://x/r.git\ngit checkout v2\n[ "$(git rev-parse HEAD)" == ${SHA_B} ] || exit 1\n`);
    expect(bracket.ref).toEqual({ kind: 'verified', value: 'v2', commit: SHA_B, line: 3 });
    const commit = only(
      `PIN=${SHA_A}\ngit clone https://x/r.git\ngit checkout "$PIN"\ntest "$(git rev-parse HEAD)" = "$PIN" || exit 1\n`,
    );
    expect(commit.ref).toEqual({ kind: 'commit', value: SHA_A, commit: SHA_A, line: 3 });
    // A checkout after the verification moves away from what was verified.
    const moved = only(`git clone -b v1 https://x/r.git\ntest "$(git rev-parse HEAD)" = ${SHA_B}\ngit checkout dev\n`);
    expect(moved.ref).toEqual({ kind: 'branch', value: 'dev', line: 3 });
  });

  it('the URL and refs take literal assignments (VAR=, export, ${VAR}, built from literals); others stay as written', () => {
    const text = [
      'BASE="https://github.com"',
      'export URL="${BASE}/edwingao28/srt-slurm.git"',
      `PIN='${SHA_A}'`,
      'git clone "$URL" srt',
      'git checkout "${PIN}"',
      'git clone "$ELSEWHERE/r.git"',
      'git checkout "$MAYBE"',
    ].join('\n');
    const [first, second] = routes(text);
    expect(first!.repo).toBe('https://github.com/edwingao28/srt-slurm.git');
    expect(first!.ref).toMatchObject({ kind: 'commit', commit: SHA_A });
    expect(second!.repo).toBe('$ELSEWHERE/r.git');
    expect(second!.ref).toEqual({ kind: 'unknown', value: '$MAYBE', line: 7 });
  });

  it('a variable assigned conditionally, non-literally, in a sibling arm or in a function is not literal', () => {
    const text = [
      'REF=v1',
      'if [[ $A == 1 ]]; then REF=v2; fi',
      'NOW=$(date)',
      'f() { LOCAL_REF=v3; }',
      'if [[ $B == 1 ]]; then',
      '  SIBLING=v4',
      'else',
      '  git clone https://x/r.git',
      '  git checkout "$REF"',
      '  git clone https://x/r.git',
      '  git checkout "$NOW"',
      '  git clone https://x/r.git',
      '  git checkout "$LOCAL_REF"',
      '  git clone https://x/r.git',
      '  git checkout "$SIBLING"',
      'fi',
    ].join('\n');
    expect(routes(text).map((r) => r.ref.kind)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    expect(readCloneRoutes(text).assignments).toEqual({});
  });

  it('a variable assigned literally in the arm itself resolves there', () => {
    const text = 'if [[ $X == 1 ]]; then\n  R=v1.0.1\n  git clone https://x/r.git\n  git checkout $R\nfi\n';
    expect(only(text).ref).toEqual({ kind: 'tag', value: 'v1.0.1', line: 4 });
  });

  it('assignments: variables literal at the end of the script on every path', () => {
    const read = readCloneRoutes('A=1\nexport B="two"\nC=3\nif x; then C=4; fi\nD=$(pwd)\nE=x\nE+=y\n');
    expect(read.assignments).toEqual({ A: '1', B: 'two', E: 'xy' });
  });

  it('an if after the clone that checks out in its arms forks the route, one per arm (an implicit else keeps the ref)', () => {
    const text = [
      'git clone https://x/r.git d',
      'cd d',
      'if [[ "${SPEC_DECODING:-}" == "mtp" ]]; then',
      '    git checkout v1.0.38',
      'elif [[ $P == fp8 ]]; then',
      '    git checkout sa-submission-q2-2026',
      'fi',
      'git clone https://x/other.git',
    ].join('\n');
    const [mtp, fp8, neither, other] = routes(text);
    expect([mtp, fp8, neither].map((r) => [r!.line, r!.ref.kind, r!.ref.value])).toEqual([
      [1, 'tag', 'v1.0.38'],
      [1, 'branch', 'sa-submission-q2-2026'],
      [1, 'default', undefined],
    ]);
    expect(formatCond(mtp!.condition)).toBe('SPEC_DECODING == mtp');
    expect(formatCond(fp8!.condition)).toBe('!(SPEC_DECODING == mtp) && P == fp8');
    expect(formatCond(neither!.condition)).toBe('!(SPEC_DECODING == mtp) && !(P == fp8)');
    expect(new Set([mtp, fp8, neither].map((r) => r!.signature)).size).toBe(3);
    expect(other!.ref.kind).toBe('default');
  });

  it('git clone without a repository is a problem, not a route', () => {
    const read = readCloneRoutes('git clone --depth 1\n');
    expect(read.routes).toEqual([]);
    expect(read.problems).toEqual([{ line: 1, message: 'git clone without a repository' }]);
  });
});

describe('readCloneRoutes: conditions', () => {
  const chain = [
    'if [[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "dsv4" ]]; then',
    '    git clone https://x/a.git',
    '# a comment between arms',
    'elif [ "$FRAMEWORK" = dynamo-trt ]',
    'then',
    '    git clone https://x/b.git',
    '    echo done',
    'else',
    '    git clone https://x/c.git',
    'fi',
  ].join('\n');

  it('each arm needs its own condition and the negations of the earlier arms', () => {
    const [a, b, c] = routes(chain);
    expect(a).toMatchObject({
      line: 2,
      arm: { line: 1, endLine: 2 },
      armText: '[[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "dsv4" ]]',
    });
    expect(b).toMatchObject({ line: 6, arm: { line: 4, endLine: 7 }, armText: '[ "$FRAMEWORK" = dynamo-trt ]' });
    expect(c).toMatchObject({ line: 9, arm: { line: 8, endLine: 9 }, armText: 'else' });
    expect(a!.condition).toEqual({ kind: 'and', items: [t('FRAMEWORK', 'dynamo-vllm'), t('MODEL_PREFIX', 'dsv4')] });
    expect(formatCond(b!.condition)).toBe('!(FRAMEWORK == dynamo-vllm && MODEL_PREFIX == dsv4) && FRAMEWORK == dynamo-trt');
    expect(formatCond(c!.condition)).toBe('!(FRAMEWORK == dynamo-vllm && MODEL_PREFIX == dsv4) && !(FRAMEWORK == dynamo-trt)');
    const all = [a!, b!, c!];
    expect(firstTrue(all, { FRAMEWORK: 'dynamo-vllm', MODEL_PREFIX: 'dsv4' })).toBe(2);
    expect(firstTrue(all, { FRAMEWORK: 'dynamo-trt', MODEL_PREFIX: 'dsv4' })).toBe(6);
    expect(firstTrue(all, { FRAMEWORK: 'dynamo-vllm', MODEL_PREFIX: 'dsr1' })).toBe(9);
    expect(evaluate(c!.condition, { FRAMEWORK: 'dynamo-vllm' })).toBe('unknown');
  });

  it('nested ifs: the enclosing arms and their earlier siblings count', () => {
    const text = [
      'if [[ $A == 1 ]]; then',
      '  : nothing',
      'elif [[ $B == 1 ]]; then',
      '  if [[ $C == 1 ]]; then',
      '    if [[ $D == 1 ]]; then git clone https://x/d.git; fi',
      '  fi',
      'fi',
    ].join('\n');
    expect(formatCond(only(text).condition)).toBe('!(A == 1) && B == 1 && C == 1 && D == 1');
    expect(only(text).arm).toEqual({ line: 5, endLine: 5 });
  });

  it.each([
    ['[[ "$X" == "a" ]]', t('X', 'a')],
    ['[[ $X == a ]]', t('X', 'a')],
    ['[[ ${X} = a ]]', t('X', 'a')],
    ['[[ "${X:-}" == "a" ]]', t('X', 'a')],
    ['[[ ${X:-none} != a ]]', t('X', 'a', '!=')],
    ['[ "$X" == a ]', t('X', 'a')],
    ['test "$X" != "a"', t('X', 'a', '!=')],
    ['[[ -n "${MODEL_PATH:-}" ]]', { kind: 'test', variable: 'MODEL_PATH', op: 'set', pattern: '', glob: false }],
    ['[ -z "$X" ]', { kind: 'test', variable: 'X', op: 'empty', pattern: '', glob: false }],
    ['[[ $X ]]', { kind: 'test', variable: 'X', op: 'set', pattern: '', glob: false }],
    ['[[ "$X" == "" ]]', t('X', '')],
    ['[[ $F == recipes/vllm/*.yaml ]]', { kind: 'test', variable: 'F', op: '==', pattern: 'recipes/vllm/*.yaml', glob: true }],
    ['[[ $F == "recipes/*" ]]', t('F', 'recipes/*')],
    ['[[ $F == *"a*b"? ]]', { kind: 'test', variable: 'F', op: '==', pattern: '*a\\*b?', glob: true }],
    ['[ "$F" = recipes/* ]', t('F', 'recipes/*')],
    ['[[ -d "$D" ]]', { kind: 'unknown', text: '-d "$D"' }],
    ['[[ $X == "$Y" ]]', { kind: 'unknown', text: '$X == "$Y"' }],
    ['[[ $X -eq 1 ]]', { kind: 'unknown', text: '$X -eq 1' }],
    ['[[ $X =~ ^(a|b)$ ]]', { kind: 'unknown', text: '$X =~ ^(a|b)$' }],
    ['(( N > 2 ))', { kind: 'unknown', text: '(( N > 2 ))' }],
    ['uses_shared_fs', { kind: 'unknown', text: 'uses_shared_fs' }],
    ['true', { kind: 'true' }],
  ])('%s', (test, cond) => {
    expect(condOf(test)).toEqual(cond);
  });

  it('!, && and || inside [[ ]], ( ) groups, and between commands (left to right, as bash)', () => {
    expect(formatCond(condOf('[[ "$I" == "1" && (( "$M" == "q" && "$P" == "fp4" ) || ( "$M" == "d" )) ]]'))).toBe(
      'I == 1 && ((M == q && P == fp4) || M == d)',
    );
    expect(formatCond(condOf('[[ ! $A == 1 || $B == 1 && $C == 1 ]]'))).toBe('!(A == 1) || (B == 1 && C == 1)');
    expect(formatCond(condOf('[[ $A == 1 ]] || [[ $B == 1 ]] && [[ $C == 1 ]]'))).toBe('(A == 1 || B == 1) && C == 1');
    expect(formatCond(condOf('! command -v srtctl &> /dev/null'))).toBe('!(`command -v srtctl &> /dev/null`)');
    expect(formatCond(condOf('[ -n "$A" -a "$B" = x -o ! "$C" = y ]'))).toBe('(-n A && B == x) || !(C == y)');
    expect(formatCond(condOf('[[ $A == 1 ]] &&\n   [[ $B == 2 ||\n      $C == 3 ]]'))).toBe('A == 1 && (B == 2 || C == 3)');
  });

  it('a multi-command condition counts its last command', () => {
    expect(condOf('echo checking; [[ $A == 1 ]]')).toEqual(t('A', '1'));
  });

  it('tests on variables the script sets literally are decided', () => {
    const [dead, live] = routes(
      'MODE=fast\nif [[ $MODE == slow ]]; then git clone https://x/a.git; else git clone https://x/b.git; fi\n',
    );
    expect(formatCond(dead!.condition)).toBe('false');
    expect(live!.condition).toEqual({ kind: 'true' });
  });
});

describe('readCloneRoutes: guards', () => {
  it('an earlier if whose arm ends in exit adds the negation of its condition to what follows', () => {
    const text = [
      'if [[ "$FRAMEWORK" == "llmd-vllm" ]]; then',
      '    echo llm-d',
      '    exit 0',
      'fi',
      'if [[ $FRAMEWORK != "a" && $FRAMEWORK != "b" ]]; then echo unsupported; exit 1; fi',
      'if [[ -z "$CONFIG_FILE" ]]; then',
      '    cd x || exit 1',
      'fi',
      'git clone https://x/r.git',
    ].join('\n');
    const r = only(text);
    expect(formatCond(r.condition)).toBe('!(FRAMEWORK == llmd-vllm) && !(FRAMEWORK != a && FRAMEWORK != b)');
    expect(evaluate(r.condition, { FRAMEWORK: 'a' })).toBe(true);
    expect(evaluate(r.condition, { FRAMEWORK: 'c' })).toBe(false);
    expect(evaluate(r.condition, { FRAMEWORK: 'llmd-vllm' })).toBe(false);
  });

  it('exec ends an arm; exec with only redirections does not', () => {
    expect(formatCond(only('if [[ $F == t ]]; then\n  exec bash t.sh\nfi\ngit clone https://x/r.git\n').condition)).toBe(
      '!(F == t)',
    );
    expect(only('if [[ $F == t ]]; then\n  exec 9>lock\nfi\ngit clone https://x/r.git\n').condition).toEqual({ kind: 'true' });
  });

  it('an exiting else leaves "one of the other arms held"', () => {
    const text = [
      'if [[ $M == a ]]; then',
      '  P=1',
      'elif [[ $M == b ]]; then',
      '  P=2',
      'else',
      '  echo unsupported; exit 1',
      'fi',
      'git clone https://x/r.git',
    ].join('\n');
    expect(formatCond(only(text).condition)).toBe('M == a || M == b');
  });

  it('an exiting elif after a going-on arm: taken only when the earlier arm did not hold', () => {
    const text = 'if [[ $A == 1 ]]; then\n  :\nelif [[ $B == 1 ]]; then\n  exit 1\nfi\ngit clone https://x/r.git\n';
    const r = only(text);
    expect(formatCond(r.condition)).toBe('!(!(A == 1) && B == 1)');
    expect(evaluate(r.condition, { A: '1', B: '1' })).toBe(true);
    expect(evaluate(r.condition, { A: '0', B: '1' })).toBe(false);
  });

  it('a nested if guards only when every arm, an else included, exits', () => {
    const all = 'if [[ $A == 1 ]]; then\n  if [[ $B == 1 ]]; then exit 1; else exit 2; fi\nfi\ngit clone https://x/r.git\n';
    expect(formatCond(only(all).condition)).toBe('!(A == 1)');
    const some = 'if [[ $A == 1 ]]; then\n  if [[ $B == 1 ]]; then exit 1; fi\nfi\ngit clone https://x/r.git\n';
    expect(only(some).condition).toEqual({ kind: 'true' });
  });

  it('statements like `[[ -f x ]] || { exit 1; }` and `cmd || exit 1` are not guards', () => {
    expect(only('[[ -f x ]] || { echo no; exit 1; }\ncd d || exit 1\ngit clone https://x/r.git\n').condition).toEqual({
      kind: 'true',
    });
  });

  it('a guard inside an arm holds for the rest of that arm only', () => {
    const text = [
      'if [[ $MULTI == true ]]; then',
      '    if [[ $F == tilert ]]; then exec bash t.sh; exit 1; fi',
      '    git clone https://x/a.git',
      'else',
      '    git clone https://x/b.git',
      'fi',
      'git clone https://x/c.git',
    ].join('\n');
    const [a, b, c] = routes(text);
    expect(formatCond(a!.condition)).toBe('MULTI == true && !(F == tilert)');
    expect(formatCond(b!.condition)).toBe('!(MULTI == true)');
    expect(c!.condition).toEqual({ kind: 'true' });
  });
});

describe('readCloneRoutes: bash syntax', () => {
  it('comments (outside quotes), line continuations and ; separators', () => {
    const text = [
      '# git clone https://x/commented.git',
      'echo "# not a comment"; X=1 # trailing comment',
      'if [[ $A == "#1" ]]; then git clone \\',
      '    --branch v1.2 \\',
      '    https://x/r.git d; cd d; fi # done',
    ].join('\n');
    const r = only(text);
    expect(r).toMatchObject({ line: 3, repo: 'https://x/r.git', ref: { kind: 'tag', value: 'v1.2' } });
    expect(r.condition).toEqual(t('A', '#1'));
  });

  it("heredoc bodies are skipped (<<EOF, <<'EOF', <<-EOF), here-strings are not heredocs", () => {
    const text = [
      'cat > job.py <<EOF',
      'if x:',
      "    print('git clone https://x/in-heredoc.git')",
      'for a in b: "unbalanced',
      'EOF',
      "python3 - <<'PY' | tee log",
      'fi done esac }',
      'PY',
      'cat <<-END',
      '\tgit clone https://x/tabbed.git',
      '\tEND',
      'grep -q x <<< "if then"',
      'git clone https://x/real.git',
    ].join('\n');
    expect(routes(text).map((r) => [r.line, r.repo])).toEqual([[13, 'https://x/real.git']]);
  });

  it('an unterminated heredoc is a problem', () => {
    expect(readCloneRoutes('cat <<EOF\nbody\n').problems).toEqual([
      { line: 1, message: 'heredoc <<EOF has no closing EOF line' },
    ]);
  });

  it('function bodies are not on the main path: no clones, no guards, no assignments from them', () => {
    const text = [
      'setup() {',
      '  git clone https://x/in-function.git',
      '  if [[ $A == 1 ]]; then exit 1; fi',
      '}',
      'function other {',
      '  R=v9',
      '}',
      'git clone https://x/r.git',
      'git checkout "$R"',
    ].join('\n');
    const r = only(text);
    expect(r.repo).toBe('https://x/r.git');
    expect(r.condition).toEqual({ kind: 'true' });
    expect(r.ref.kind).toBe('unknown');
  });

  it('case arms are conditions on the subject; loop bodies are entered under an unknown condition', () => {
    const text = [
      'case "$MODEL_PREFIX" in',
      '  kimik3|minimax*) git clone https://x/a.git ;;',
      '  (dsv4)',
      '    git clone https://x/b.git',
      '    ;;',
      '  *) echo other ;;',
      'esac',
      'for f in a b; do',
      '  git clone https://x/c.git',
      'done',
      'while ! ls x &>/dev/null; do sleep 1; done',
    ].join('\n');
    const [a, b, c] = routes(text);
    expect(a!.condition).toEqual({
      kind: 'or',
      items: [t('MODEL_PREFIX', 'kimik3'), { kind: 'test', variable: 'MODEL_PREFIX', op: '==', pattern: 'minimax*', glob: true }],
    });
    expect(a!.armText).toBe('kimik3|minimax*)');
    expect(evaluate(a!.condition, { MODEL_PREFIX: 'minimaxm3' })).toBe(true);
    expect(evaluate(b!.condition, { MODEL_PREFIX: 'dsv4' })).toBe(true);
    expect(evaluate(b!.condition, { MODEL_PREFIX: 'kimik3' })).toBe(false);
    expect(c!.condition).toEqual({ kind: 'unknown', text: 'for f in a b' });
  });

  it('subshells, brace groups, arrays with comments, arithmetic, process substitution and redirections', () => {
    const text = [
      'ARGS=(',
      '    --no-preflight  # a comment inside an array (with parens)',
      '    -f "$CONFIG_FILE"',
      ')',
      'ARGS+=(--x)',
      'PORT=$(( 40000 + (JOB_ID % 10000) ))',
      'N=$(echo "$IMAGE" | sed \'s/[\\/:@#]/_/g\')',
      '(',
      '    exec 9>"$lock"',
      '    flock -w 600 9 || { echo "no lock" >&2; exit 1; }',
      ') 9>"$lock_file"',
      'while IFS= read -r -d \'\' f; do echo "$f"; done < <(find . -name "*.json" -print0 2>/dev/null)',
      'if (( N >= 2 )); then echo big; fi',
      'echo `date` 2>&1 | tee x >> y',
      'git clone https://x/r.git',
    ].join('\n');
    expect(only(text).line).toBe(15);
  });

  it('quotes span lines and hide keywords', () => {
    const text = [
      'if [[ -n "$CONFIG_FILE" ]] && awk \'',
      '    /^telemetry:/ { t = 1; next }',
      '    END { exit !(p && e) }',
      '\' "$SRC"; then',
      '    POWER=1',
      'fi',
      'echo "fi',
      'done"',
      'git clone https://x/r.git',
    ].join('\n');
    expect(only(text).line).toBe(9);
  });

  it.each([
    ['if [[ $A == 1 ]]; then\n  git clone https://x/r.git\n', 'expected "fi" for the "if" on line 1, found the end of the file'],
    ['fi\ngit clone https://x/r.git\n', 'unexpected "fi"'],
    ['if [[ $A == 1 ]]\n  echo\nfi\n', 'expected "then" for the "if" on line 1, found "fi"'],
    ['echo "unterminated\n', 'unterminated double quote'],
    ['for x in a; do echo\n', 'expected "done" for the "for" on line 1, found the end of the file'],
  ])('problems are reported, never thrown: %j', (text, message) => {
    const read = readCloneRoutes(text);
    expect(read.problems.map((p) => p.message)).toContain(message);
  });
});

describe('readCloneRoutes: overlays', () => {
  it('cp of srt-slurm-recipes after the clone: its arm, nested arms, and after the nested if; not other arms', () => {
    const text = [
      'if [[ $F == sglang ]]; then',
      '    if [[ $POWER == 1 ]]; then',
      '        git clone "$POWER_URL" "$D"',
      '    else',
      '        git clone https://x/r.git "$D"',
      '        cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/else-only" recipes/else-only',
      '    fi',
      '    DEST=recipes/sglang/deepseek-v4',
      '    mkdir -p $DEST',
      '    cp -rT "${GITHUB_WORKSPACE}/benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4" \\',
      '        "$DEST"',
      '    if [[ $P == fp4 ]]; then',
      '        cp "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/x.yaml" recipes/sglang/',
      '    fi',
      '    cp "$GITHUB_WORKSPACE/exporter.sha256" out/',
      'else',
      '    git clone https://x/other.git',
      '    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/other" recipes/other',
      'fi',
    ].join('\n');
    const [power, plain, other] = routes(text);
    expect(power!.overlays).toEqual([
      { from: 'sglang/deepseek-v4', to: 'recipes/sglang/deepseek-v4', line: 10 },
      { from: 'sglang/x.yaml', to: 'recipes/sglang/', line: 13 },
    ]);
    expect(plain!.overlays.map((o) => o.from)).toEqual(['sglang/else-only', 'sglang/deepseek-v4', 'sglang/x.yaml']);
    expect(other!.overlays).toEqual([{ from: 'other', to: 'recipes/other', line: 18 }]);
  });

  it('overlays stop at the next clone and skip arms that can never run', () => {
    const text = [
      'SETUP=""',
      'git clone https://x/a.git',
      'if [[ -n "$SETUP" ]]; then cp "$W/benchmarks/multi_node/srt-slurm-recipes/configs/$SETUP" configs/; fi',
      'git clone https://x/b.git',
      'cp -rT "$W/benchmarks/multi_node/srt-slurm-recipes/b" recipes/b',
    ].join('\n');
    const [a, b] = routes(text);
    expect(a!.overlays).toEqual([]);
    expect(b!.overlays).toEqual([{ from: 'b', to: 'recipes/b', line: 5 }]);
  });
});

describe('evaluate and formatCond', () => {
  const unknownCond: Cond = { kind: 'unknown', text: '-d x' };

  it('Kleene logic: false decides and, true decides or, otherwise unknown propagates', () => {
    const yes = t('A', '1');
    const no = t('A', '2');
    const env = { A: '1' };
    expect(evaluate({ kind: 'and', items: [unknownCond, no] }, env)).toBe(false);
    expect(evaluate({ kind: 'and', items: [unknownCond, yes] }, env)).toBe('unknown');
    expect(evaluate({ kind: 'or', items: [unknownCond, yes] }, env)).toBe(true);
    expect(evaluate({ kind: 'or', items: [unknownCond, no] }, env)).toBe('unknown');
    expect(evaluate({ kind: 'not', item: unknownCond }, env)).toBe('unknown');
    expect(evaluate({ kind: 'and', items: [] }, env)).toBe(true);
    expect(evaluate({ kind: 'or', items: [] }, env)).toBe(false);
    expect(evaluate(t('B', '1'), env)).toBe('unknown');
    expect(evaluate(t('B', '1'), { B: undefined })).toBe('unknown');
    expect(evaluate(t('toString', 'x'), {})).toBe('unknown');
  });

  it('set / empty, literal equality, and != as the negation', () => {
    const set: Cond = { kind: 'test', variable: 'X', op: 'set', pattern: '', glob: false };
    const empty: Cond = { kind: 'test', variable: 'X', op: 'empty', pattern: '', glob: false };
    expect([evaluate(set, { X: '' }), evaluate(set, { X: 'a' }), evaluate(empty, { X: '' })]).toEqual([false, true, true]);
    expect(evaluate(t('X', 'a*'), { X: 'abc' })).toBe(false);
    expect(evaluate(t('X', 'a*'), { X: 'a*' })).toBe(true);
    expect(evaluate(t('X', 'a', '!='), { X: 'b' })).toBe(true);
  });

  it.each([
    ['recipes/vllm/minimax-m3/b300-fp4/8k1k/mtp/*.yaml', 'recipes/vllm/minimax-m3/b300-fp4/8k1k/mtp/a.yaml', true],
    ['recipes/vllm/minimax-m3/b300-fp4/8k1k/*-tp1-*.yaml', 'recipes/vllm/minimax-m3/b300-fp4/8k1k/x/agg-tp1-y.yaml', true],
    ['recipes/*', 'recipes/a/b/c.yaml', true],
    ['*NVFP4-V2', 'nvidia/Qwen3.5-NVFP4-V2', true],
    ['*NVFP4-V2', 'nvidia/Qwen3.5-NVFP4', false],
    ['fp?', 'fp8', true],
    ['fp?', 'fp16', false],
    ['fp[48]', 'fp4', true],
    ['fp[!48]', 'fp4', false],
    ['[a-c]x', 'bx', true],
    ['[[:digit:]]x', '7x', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['a.b', 'axb', false],
    ['[unclosed', '[unclosed', true],
  ])('glob %s matches %s: %s', (pattern, value, expected) => {
    expect(evaluate({ kind: 'test', variable: 'V', op: '==', pattern, glob: true }, { V: value })).toBe(expected);
  });

  it('formatCond writes conditions short', () => {
    const cond: Cond = {
      kind: 'and',
      items: [
        t('FRAMEWORK', 'dynamo-vllm'),
        t('MODEL_PREFIX', 'dsv4'),
        { kind: 'not', item: t('IS_AGENTIC', '1') },
        { kind: 'or', items: [t('P', 'a b'), t('P', '')] },
        { kind: 'test', variable: 'C', op: 'empty', pattern: '', glob: false },
        unknownCond,
      ],
    };
    expect(formatCond(cond)).toBe(
      'FRAMEWORK == dynamo-vllm && MODEL_PREFIX == dsv4 && !(IS_AGENTIC == 1) && (P == "a b" || P == "") && -z C && `-d x`',
    );
    expect(formatCond({ kind: 'not', item: { kind: 'true' } })).toBe('false');
  });
});

describe('signatures', () => {
  const base = 'if [[ $F == "a" ]]; then\n  git clone https://x/r.git d\n  git checkout v1\nfi\n';

  it('are stable across quoting, spacing, comments and line shifts', () => {
    const same =
      '# moved down\n\nif [[ "$F" == a ]]\nthen\n    git clone  https://x/r.git   d   # srt\n    git checkout "v1"\nfi\n';
    expect(only(same).signature).toBe(only(base).signature);
  });

  it('change with the branch’s own condition, the repo or the ref', () => {
    const sig = only(base).signature;
    expect(only(base.replace('"a"', '"b"')).signature).not.toBe(sig);
    expect(only(base.replace('x/r.git', 'y/r.git')).signature).not.toBe(sig);
    expect(only(base.replace('v1', 'v2')).signature).not.toBe(sig);
    // A guard before the branch changes which rows reach it, not the branch's own text.
    expect(only(`if [[ $G == 1 ]]; then exit 1; fi\n${base}`).signature).toBe(sig);
  });
});

describe('the real launchers', () => {
  const files = readdirSync(RUNNERS).filter((f) => f.endsWith('.sh'));

  // Routes per launcher. Each real `git clone` line is one route, except in launch_gb300-nv.sh,
  // where two clones are followed by an `if` that picks the checkout (qwen3.5: fp8 → v1.0.25,
  // else sa-submission-q2-2026; minimaxm3: mtp → v1.0.38, else sa-submission-q2-2026), so those
  // two clones give two routes each: 20 clones, 22 routes. launch_b200-dgxc-slurm.sh is a link
  // stored as the text "launch_b200-dgxc.sh".
  const ROUTES: Record<string, number> = {
    'launch_b200-dgxc.sh': 8,
    'launch_b200-nscale-slurm.sh': 4,
    'launch_b300-nv.sh': 7,
    'launch_gb200-nv.sh': 18,
    'launch_gb300-nv.sh': 22,
    'launch_h100-dgxc-slurm.sh': 2,
    'launch_h200-dgxc-slurm.sh': 5,
  };
  const FORKED: Record<string, number> = { 'launch_gb300-nv.sh': 2 };

  it.each(files)('%s reads without problems, one route per `git clone` line (plus forks)', (file) => {
    const text = launcher(file);
    const read = readCloneRoutes(text);
    expect(read.problems).toEqual([]);
    const cloneLines = text.split('\n').filter((l) => l.includes('git clone')).length;
    expect(read.routes).toHaveLength(ROUTES[file] ?? 0);
    expect(read.routes.length).toBe(cloneLines + (FORKED[file] ?? 0));
    expect(new Set(read.routes.map((r) => r.signature)).size).toBe(read.routes.length);
  });

  describe('launch_b200-dgxc.sh', () => {
    const all = readCloneRoutes(launcher('launch_b200-dgxc.sh')).routes;
    const at = (line: number): CloneRoute => all.find((r) => r.line === line)!;
    const row = { IS_MULTINODE: 'true', FRAMEWORK: 'dynamo-vllm', MODEL_PREFIX: 'minimaxm3', PRECISION: 'fp4', IS_AGENTIC: '0' };

    it('has its 8 routes with their refs', () => {
      expect(all.map((r) => r.line)).toEqual([172, 179, 185, 191, 198, 202, 213, 219]);
      expect(at(172).ref).toEqual({
        kind: 'commit',
        value: 'df5baa93f4caf5169dea2a4236ad2cc742fe40e7',
        commit: 'df5baa93f4caf5169dea2a4236ad2cc742fe40e7',
        line: 174,
      });
      expect(at(172).repo).toBe('https://github.com/functionstackx/srt-slurm-nv.git');
      expect(at(179).ref).toEqual({ kind: 'branch', value: 'aflowers/vllm-gb200-v0.20.0', line: 181 });
      expect(at(185).ref).toMatchObject({ kind: 'commit', commit: 'c180328b98c3793ca84a1e24a030f90545eb7d5d' });
      expect(at(191).ref).toEqual({ kind: 'default', line: 191 });
      expect(at(198).ref).toEqual({ kind: 'branch', value: 'main', line: 200 });
      expect(at(202).ref).toEqual({
        kind: 'commit',
        value: 'a98738de9b2233459b5456e9ed71af09ce893f92',
        commit: 'a98738de9b2233459b5456e9ed71af09ce893f92',
        line: 209,
      });
      expect(at(213).ref).toEqual({ kind: 'tag', value: 'v1.0.29', line: 215 });
      expect(at(219)).toMatchObject({
        armText: 'else',
        arm: { line: 218, endLine: 221 },
        ref: { kind: 'branch', value: 'sa-submission-q2-2026' },
      });
    });

    it('arms, arm text and overlays', () => {
      expect(at(179)).toMatchObject({
        arm: { line: 178, endLine: 183 },
        armText: '[[ $FRAMEWORK == "dynamo-vllm" && $MODEL_PREFIX == "dsv4" ]]',
      });
      expect(at(179).overlays).toEqual([{ from: 'vllm/deepseek-v4', to: 'recipes/vllm/deepseek-v4', line: 183 }]);
      expect(at(191).overlays).toEqual([{ from: 'vllm/minimax-m3/b200-fp4', to: 'recipes/vllm/minimax-m3/b200-fp4', line: 194 }]);
      expect(at(213).overlays).toEqual([
        { from: 'trtllm/kimi-k2.5/disagg/trtllm_dynamo/b200-fp4', to: 'recipes/trtllm/kimi-k25-nvfp4/b200-fp4', line: 217 },
      ]);
      expect(at(219).overlays).toEqual([]);
    });

    it('a minimax-m3 fp4 row reaches exactly the minimax route', () => {
      expect(all.filter((r) => evaluate(r.condition, row) === true).map((r) => r.line)).toEqual([191]);
      expect(firstTrue(all, row)).toBe(191);
    });

    it('the model guard, the tilert exit and the framework check come first', () => {
      expect(firstTrue(all, { ...row, FRAMEWORK: 'tilert' })).toBeUndefined();
      expect(all.every((r) => evaluate(r.condition, { ...row, FRAMEWORK: 'tilert' }) === false)).toBe(true);
      expect(all.every((r) => evaluate(r.condition, { ...row, MODEL_PREFIX: 'llama' }) === false)).toBe(true);
      expect(all.every((r) => evaluate(r.condition, { ...row, FRAMEWORK: 'sglang' }) === false)).toBe(true);
      expect(all.every((r) => evaluate(r.condition, { ...row, IS_MULTINODE: 'false' }) === false)).toBe(true);
      expect(firstTrue(all, { ...row, FRAMEWORK: 'dynamo-sglang', MODEL_PREFIX: 'dsr1' })).toBe(202);
      expect(firstTrue(all, { ...row, MODEL_PREFIX: 'kimik3', IS_AGENTIC: '1' })).toBe(172);
      expect(firstTrue(all, { ...row, FRAMEWORK: 'dynamo-trt', MODEL_PREFIX: 'dsr1', PRECISION: 'fp8' })).toBe(219);
    });
  });

  describe('launch_gb200-nv.sh', () => {
    const read = readCloneRoutes(launcher('launch_gb200-nv.sh'));
    const all = read.routes;
    const at = (line: number): CloneRoute => all.find((r) => r.line === line)!;
    const row = {
      FRAMEWORK: 'dynamo-sglang',
      MODEL_PREFIX: 'glm5.1',
      PRECISION: 'fp8',
      IS_AGENTIC: '0',
      CONFIG_FILE: 'recipes/x.yaml',
      USES_DCGM_POWER: '0',
    };

    it('v1.0.50 clones are verified against their commit; v1.0.45 too; v1.0.53 is a plain tag', () => {
      for (const line of [404, 414]) {
        expect(at(line).ref).toEqual({
          kind: 'verified',
          value: 'v1.0.50',
          commit: 'e4019633c9e2bc25f38c44b81edf52bb0504d937',
          line: line + 2,
        });
      }
      expect(at(426).ref).toEqual({
        kind: 'verified',
        value: 'v1.0.45',
        commit: '9d8d92b20c350a5d42f0709f5a0b64e30eb37d33',
        line: 428,
      });
      expect(at(443).ref).toEqual({ kind: 'tag', value: 'v1.0.53', line: 443 });
      expect(at(549)).toMatchObject({
        repo: 'https://github.com/cquil11/srt-slurm-nv.git',
        ref: { kind: 'branch', value: 'cam/sa-submission-q2-2026' },
      });
    });

    it('power lanes resolve POWER_SRT_SLURM_URL and POWER_SRT_SLURM_PIN from the file', () => {
      for (const line of [482, 506]) {
        expect(at(line).repo).toBe('https://github.com/edwingao28/srt-slurm.git');
        expect(at(line).ref).toEqual({
          kind: 'commit',
          value: '6fc1bed01a0b82dae0088a105c03ce0cfb353443',
          commit: '6fc1bed01a0b82dae0088a105c03ce0cfb353443',
          line: line + 2,
        });
        expect(at(line).armText).toBe('[[ "$USES_DCGM_POWER" == "1" ]]');
      }
      expect(read.assignments).toMatchObject({ POWER_SRT_SLURM_PIN: '6fc1bed01a0b82dae0088a105c03ce0cfb353443' });
      // USES_DCGM_POWER is set to 0, then to 1 inside an if: a test, left to the row.
      expect(evaluate(at(482).condition, { ...row, MODEL_PREFIX: 'dsv4', USES_DCGM_POWER: '1' })).toBe(true);
      expect(evaluate(at(482).condition, { ...row, MODEL_PREFIX: 'dsv4', USES_DCGM_POWER: undefined })).toBe('unknown');
      expect(firstTrue(all, { ...row, MODEL_PREFIX: 'dsv4' })).toBe(491);
    });

    it('the [[ && ( || ) ]] arm, and overlays from nested arms and after the nested if', () => {
      expect(formatCond(at(426).condition)).toMatch(
        /IS_AGENTIC == 1 && \(\(MODEL_PREFIX == qwen3\.5 && PRECISION == fp4 && FRAMEWORK == dynamo-sglang\) \|\| \(MODEL_PREFIX == dsv4 && PRECISION == fp4 && FRAMEWORK == dynamo-vllm\)\)$/,
      );
      expect(at(426).overlays.map((o) => o.from)).toEqual(['sglang/qwen3.5/gb200-fp4/agentic', 'vllm/deepseek-v4/agentic']);
      expect(at(482).overlays).toEqual([{ from: 'sglang/deepseek-v4', to: 'recipes/sglang/deepseek-v4', line: 495 }]);
      expect(at(491).overlays).toEqual(at(482).overlays);
      expect(firstTrue(all, { ...row, IS_AGENTIC: '1', MODEL_PREFIX: 'dsv4', PRECISION: 'fp4', FRAMEWORK: 'dynamo-vllm' })).toBe(
        426,
      );
    });

    it('the second dynamo-sglang && glm5.1 arm is shadowed by the first', () => {
      const first = at(497);
      const shadowed = at(518);
      expect(first.armText).toBe(shadowed.armText);
      expect(firstTrue(all, row)).toBe(497);
      // Wherever its own arm holds, the earlier one does too: never true, whatever else the row sets.
      for (const env of [
        row,
        { ...row, PRECISION: 'fp4' },
        { ...row, IS_AGENTIC: '1' },
        { ...row, USES_DCGM_POWER: '1' },
        { FRAMEWORK: 'dynamo-sglang', MODEL_PREFIX: 'glm5.1' },
      ]) {
        expect(evaluate(shadowed.condition, env)).toBe(false);
      }
    });

    it('guards: the llmd-vllm branch exits, so do the legacy path and an unset CONFIG_FILE', () => {
      for (const env of [
        { ...row, FRAMEWORK: 'llmd-vllm' },
        { ...row, CONFIG_FILE: '' },
        { ...row, FRAMEWORK: 'dynamo-trt', USES_DCGM_POWER: '1' },
      ]) {
        expect(all.every((r) => evaluate(r.condition, env) === false)).toBe(true);
      }
      expect(all.every((r) => evaluate(r.condition, { ...row, CONFIG_FILE: undefined }) !== true)).toBe(true);
    });

    it('reads past the heredoc whose python has `for … in` and `if`', () => {
      expect(read.problems).toEqual([]);
      expect(all[0]!.line).toBe(404);
      // The legacy arm holding the heredoc still ends in its `exit 0`, so it guards the clones.
      expect(formatCond(all[0]!.condition)).toContain('!(FRAMEWORK == dynamo-sglang && -z CONFIG_FILE)');
    });
  });

  it('launch_gb300-nv.sh: a checkout picked by a nested if forks the route', () => {
    const all = readCloneRoutes(launcher('launch_gb300-nv.sh')).routes;
    const qwen = all.filter((r) => r.line === 378);
    expect(qwen.map((r) => [r.ref.kind, r.ref.value, r.ref.line])).toEqual([
      ['tag', 'v1.0.25', 381],
      ['branch', 'sa-submission-q2-2026', 383],
    ]);
    const row = { FRAMEWORK: 'dynamo-sglang', MODEL_PREFIX: 'qwen3.5', PRECISION: 'fp8', IS_AGENTIC: '0', USES_DCGM_POWER: '0' };
    expect(all.filter((r) => evaluate(r.condition, row) === true).map((r) => r.ref.value)).toEqual(['v1.0.25']);
    expect(all.filter((r) => evaluate(r.condition, { ...row, PRECISION: 'fp4' }) === true).map((r) => r.ref.value)).toEqual([
      'sa-submission-q2-2026',
    ]);
    const minimax = all.filter((r) => r.line === 389);
    expect(minimax.map((r) => formatCond(r.condition).split(' && ').at(-1))).toEqual([
      'SPEC_DECODING == mtp',
      '!(SPEC_DECODING == mtp)',
    ]);
    // TRTLLM_RECIPES_DIR is assigned in the arm just before its use.
    expect(all.find((r) => r.line === 222)!.overlays).toEqual([
      { from: 'trtllm/glm5.2', to: 'benchmarks/multi_node/srt-slurm-recipes/trtllm/glm5.2', line: 227 },
    ]);
  });

  it('launch_b300-nv.sh: CONFIG_FILE glob arms', () => {
    const all = readCloneRoutes(launcher('launch_b300-nv.sh')).routes;
    const row = { IS_MULTINODE: 'true', FRAMEWORK: 'dynamo-vllm', MODEL_PREFIX: 'minimaxm3', PRECISION: 'fp4', IS_AGENTIC: '0' };
    const commitFor = (config: string): string | undefined =>
      all.find((r) => evaluate(r.condition, { ...row, CONFIG_FILE: config }) === true)?.ref.commit;
    expect(commitFor('recipes/vllm/minimax-m3/b300-fp4/8k1k/mtp/disagg-x.yaml')).toBe('c1b6b5c97f323baefad577d70c4e8392b6f537d9');
    expect(commitFor('recipes/vllm/minimax-m3/b300-fp4/8k1k/agg-tp1-y.yaml')).toBe('c1fb6989fc5aca803b4ca0f2d17d8be85fad9732');
    expect(firstTrue(all, { ...row, CONFIG_FILE: 'recipes/vllm/minimax-m3/b300-fp4/1k1k/x.yaml' })).toBe(101);
    expect(evaluate(all.find((r) => r.line === 89)!.condition, row)).toBe('unknown');
    // The setup-script copy sits under `if [[ -n "$SRTCTL_SETUP_SCRIPT" ]]`, which the file's SRTCTL_SETUP_SCRIPT="" rules out.
    expect(all.find((r) => r.line === 101)!.overlays.map((o) => o.from)).toEqual(['vllm/minimax-m3']);
  });

  it('launch_b200-nscale-slurm.sh: a top-level chain after top-level guards', () => {
    const all = readCloneRoutes(launcher('launch_b200-nscale-slurm.sh')).routes;
    expect(all.map((r) => [r.line, r.ref.kind, r.ref.value])).toEqual([
      [70, 'short-sha', '217f9438'],
      [77, 'commit', '04e87fcc505d6d851451781a5499ca19a02ec2b4'],
      [84, 'branch', 'aflowers/vllm-gb200-v0.20.0'],
      [90, 'commit', 'c180328b98c3793ca84a1e24a030f90545eb7d5d'],
    ]);
    const row = { IS_MULTINODE: 'true', MODEL_PREFIX: 'dsv4', PRECISION: 'fp4', FRAMEWORK: 'dynamo-sglang', IS_AGENTIC: '0' };
    expect(firstTrue(all, { ...row, SPEC_DECODING: 'mtp' })).toBe(77);
    expect(all.every((r) => evaluate(r.condition, { ...row, SPEC_DECODING: 'none' }) === false)).toBe(true);
    expect(all.every((r) => evaluate(r.condition, { ...row, IS_MULTINODE: 'false' }) === false)).toBe(true);
  });

  it('launch_h100-dgxc-slurm.sh and launch_h200-dgxc-slurm.sh: nested chains with exiting else arms', () => {
    const h100 = readCloneRoutes(launcher('launch_h100-dgxc-slurm.sh')).routes;
    expect(formatCond(h100[1]!.condition)).toBe(
      'IS_MULTINODE == true && (FRAMEWORK == dynamo-sglang || FRAMEWORK == dynamo-trt) && !(IS_AGENTIC == 1)',
    );
    const h200 = readCloneRoutes(launcher('launch_h200-dgxc-slurm.sh')).routes;
    const kimi = {
      IS_MULTINODE: 'true',
      CONFIG_FILE: 'recipes/x.yaml',
      FRAMEWORK: 'vllm',
      MODEL_PREFIX: 'kimik3',
      IS_AGENTIC: '1',
    };
    expect(firstTrue(h200, kimi)).toBe(83);
    expect(h200.find((r) => r.line === 96)!.overlays).toEqual([
      { from: 'sglang/deepseek-v4/agentic/agg-h200-tp8-mtp-kvoffload.yaml', to: 'recipes/sglang/deepseek-v4/agentic/', line: 99 },
    ]);
  });
});
