import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedEntries } from '../../src/ci/signoff/index.js';
import { syntheticSpecOf } from '../../src/engines/synthetic-knobs.js';
import { parseThresholds } from '../../src/evals/index.js';
import { openTree } from '../../src/plan/index.js';
import { UserError } from '../../src/util/user-error.js';
import { MAX_YAML_EXPANDED_NODES, parseYamlInput } from '../../src/util/yaml-input.js';
import { tempFiles } from '../helpers.js';

/** A billion laughs: nine levels, each ten aliases of the one before (10⁹ values from 10 lines). */
const BOMB = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]']
  .concat(Array.from({ length: 8 }, (_, i) => `l${i + 1}: &l${i + 1} [${Array(10).fill(`*l${i}`).join(', ')}]`))
  .join('\n');
const SELF = 'a: &a\n  b: *a\n';
const TOO_MANY = `with its aliases expanded the YAML stands for more than ${MAX_YAML_EXPANDED_NODES.toLocaleString('en-US')} values (*l4 and the aliases before it)`;

/** The UserError `f` throws, as the CLI prints it (message | hint). */
function userError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return `${(e as UserError).message} | ${(e as UserError).hint}`;
  }
  throw new Error('no error');
}

describe('YAML from input', () => {
  it('an alias bomb is a UserError at the alias that passes the limit (the yaml package threw a bare ReferenceError)', () => {
    expect(userError(() => parseYamlInput(BOMB, 'x.yaml'))).toBe(
      `x.yaml:6: ${TOO_MANY} | write the values out or alias fewer, larger nodes; no input file needs that many`,
    );
  });

  it('an alias inside its own anchor is a UserError, not a value that contains itself', () => {
    expect(userError(() => parseYamlInput(SELF, 'x.yaml'))).toBe(
      'x.yaml:2: *a is inside the node its anchor names (a structure that contains itself) | write the values out instead of aliasing an enclosing node',
    );
  });

  it('a syntax error names the file and line', () => {
    expect(userError(() => parseYamlInput('a: [1, 2\nb: 3\n', 'x.yaml'))).toMatch(/^x\.yaml:\d+: not YAML \(/);
  });

  it('anchors and aliases within the limit read as the yaml package reads them', () => {
    expect(parseYamlInput('a: &a {x: 1}\nb: *a\nc: [*a, *a]\n', 'x.yaml')).toEqual({
      a: { x: 1 },
      b: { x: 1 },
      c: [{ x: 1 }, { x: 1 }],
    });
  });

  it('is what every reader of input YAML uses: thresholds, runners.yaml of a checkout, TensorRT-LLM options, sign-off', () => {
    expect(userError(() => parseThresholds(BOMB, 't.yaml'))).toMatch(`t.yaml:6: ${TOO_MANY}`);
    expect(userError(() => parseThresholds('default:\n  a: &a\n    b: *a\n', 't.yaml'))).toMatch(
      't.yaml:3: *a is inside the node its anchor names',
    );

    const tree = tempFiles({ 'benchmarks/benchmark_lib.sh': '', 'configs/runners.yaml': BOMB });
    mkdirSync(join(tree, 'runners'));
    expect(userError(() => openTree(tree))).toMatch(`${join(tree, 'configs/runners.yaml')}:6: ${TOO_MANY}`);

    const options = join(tempFiles({}), 'ser.yaml');
    writeFileSync(options, BOMB);
    const trt = ['serve', 'MiniMaxAI/MiniMax-M3', '--config', options];
    expect(userError(() => syntheticSpecOf(trt, { TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: '1' }))).toMatch(
      `${options}:6: ${TOO_MANY}`,
    );

    // Sign-off reads a master config that does not parse as having no entries (the catalog reports it).
    expect(changedEntries('configs/x-master.yaml', '', `k: &k\n  scenarios: {x: *k}\n`)).toEqual([]);
  });
});
