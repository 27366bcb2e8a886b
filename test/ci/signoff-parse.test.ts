import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compareChecklist,
  ownersOf,
  parseChecklist,
  parseCodeowners,
  ruleFor,
  templateBlock,
} from '../../src/ci/signoff/index.js';
import { REPO } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/signoff');
const matches = (pattern: string, path: string): boolean => ruleFor(parseCodeowners(`${pattern} @o`), path) !== undefined;

describe('CODEOWNERS patterns (GitHub semantics)', () => {
  it.each([
    // [pattern, path, matches]
    ['*', 'README.md', true],
    ['*', 'a/b/c.txt', true],
    ['*.js', 'app.js', true],
    ['*.js', 'src/deep/app.js', true],
    ['*.js', 'app.jsx', false],
    ['/build/logs/', 'build/logs/x.log', true],
    ['/build/logs/', 'build/logs/deep/x.log', true],
    ['/build/logs/', 'src/build/logs/x.log', false],
    ['/build/logs/', 'build/logs', false],
    ['docs/*', 'docs/getting-started.md', true],
    ['docs/*', 'docs/build-app/troubleshooting.md', false],
    ['docs/*', 'src/docs/x.md', false],
    ['apps/', 'apps/a.ts', true],
    ['apps/', 'src/apps/a.ts', true],
    ['/docs/', 'docs/a/b.md', true],
    ['/docs/', 'x/docs/a.md', false],
    ['docs', 'docs/a.md', true],
    ['docs', 'x/docs/a.md', true],
    ['docs', 'docs', true],
    ['docs', 'docsx/a.md', false],
    ['/scripts/', 'scripts/a.sh', true],
    ['**/logs', 'logs/a', true],
    ['**/logs', 'deep/er/logs/a', true],
    ['**/logs', 'deep/logsx/a', false],
    ['apps/**', 'apps/x/y.ts', true],
    ['apps/**', 'other/apps/x.ts', false],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/x/y/bc', false],
    ['configs/nvidia-master.yaml', 'configs/nvidia-master.yaml', true],
    ['configs/nvidia-master.yaml', 'x/configs/nvidia-master.yaml', false],
    ['experimental/operatorx/', 'experimental/operatorx/k.py', true],
    ['MODELS.md', 'MODELS.md', true],
    ['MODELS.md', 'sub/MODELS.md', true],
    ['MODELS.md', 'MODELSXmd', false],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file/.txt', false],
  ])('%s against %s: %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  it('the last matching line wins, owners do not accumulate, and a line without owners un-owns', () => {
    const co = parseCodeowners(
      [
        '# comment',
        '* @org/core',
        '',
        'configs/ @cfg',
        'configs/nvidia-master.yaml @nv @org/core  # inline',
        'configs/unowned.yaml',
      ].join('\n'),
    );
    expect(ownersOf(co, 'README.md')).toEqual(['@org/core']);
    expect(ownersOf(co, 'configs/amd-master.yaml')).toEqual(['@cfg']);
    expect(ownersOf(co, 'configs/nvidia-master.yaml')).toEqual(['@nv', '@org/core']);
    expect(ownersOf(co, 'configs/unowned.yaml')).toEqual([]);
    expect(ruleFor(co, 'configs/nvidia-master.yaml')?.line).toBe(5);
    expect(co.problems).toEqual([]);
  });

  it('users, teams and emails are owners; negation, ranges, an escaped # and a bad owner are skipped lines', () => {
    const co = parseCodeowners(
      ['*.md docs@example.com @user-1 @org/team.name', '!x.md @a', '[ab].md @a', '\\#x @a', 'y.md not-an-owner'].join('\n'),
    );
    expect(ownersOf(co, 'a.md')).toEqual(['docs@example.com', '@user-1', '@org/team.name']);
    expect(co.problems.map((p) => p.line)).toEqual([2, 3, 4, 5]);
    expect(co.problems[0]!.message).toContain('negation');
  });

  it('reads the real InferenceX CODEOWNERS: a specific line overrides the catch-all', () => {
    const co = parseCodeowners(readFileSync(join(FIXTURES, 'CODEOWNERS'), 'utf8'));
    expect(co.problems).toEqual([]);
    expect(ownersOf(co, 'configs/amd-master.yaml')).toContain('@billishyahao');
    expect(ownersOf(co, 'configs/amd-master.yaml')).not.toContain('@InferenceX/core');
    expect(ownersOf(co, 'benchmarks/single_node/x.sh')).toEqual(['@InferenceX/core']);
    expect(ownersOf(co, 'experimental/operatorx/a/b.py')).toEqual(['@hbarclay']);
  });
});

describe('the sign-off checklist', () => {
  const markdown = readFileSync(join(FIXTURES, 'PR_REVIEW_CHECKLIST.md'), 'utf8');
  const template = parseChecklist(templateBlock(markdown)!);

  it('reads the template block of the real checklist: its items, sub-item, detail placeholder and signature placeholder', () => {
    expect(template.items.length).toBe(15);
    expect(template.items.every((i) => !i.checked)).toBe(true);
    expect(template.items.filter((i) => i.depth === 1)).toHaveLength(1);
    expect(template.details).toEqual([]);
    expect(template.signed).toBe('');
  });

  it('a copy with every box checked matches; a dropped item is missing; an old item is stale; a box left empty is unchecked', () => {
    const block = templateBlock(markdown)!;
    const checked = block.replace(/\[ \]/g, '[x]').replace('FILL_IN_GITHUB_USERNAME', '@me');
    const posted = parseChecklist(checked);
    expect(compareChecklist(template, posted)).toEqual({ missing: [], stale: [], unchecked: [] });
    expect(posted.signed).toBe('@me');

    const lines = checked.split('\n');
    const dropped = lines.filter((l) => !l.includes('append-only')).join('\n');
    const old = `${dropped}\n- [x] Verified an item the template no longer has about something else entirely`;
    const unticked = old.replace('- [x] Verified that the general code quality', '- [ ] Verified that the general code quality');
    const c = compareChecklist(template, parseChecklist(unticked));
    expect(c.missing.map((i) => i.text)).toEqual([expect.stringContaining('append-only')]);
    expect(c.stale.map((i) => i.text)).toEqual([expect.stringContaining('no longer has')]);
    expect(c.unchecked.map((i) => i.text)).toEqual([expect.stringContaining('general code quality')]);
  });

  it('small wording drift and markup do not make an item missing', () => {
    const drifted = templateBlock(markdown)!
      .replace(/\[ \]/g, '[X]')
      .replace('Verified that this PR passes evals.  Please link', 'Verified that this PR passes the evals. Please link')
      .replace(
        '[PR_REVIEW_CHECKLIST.md](https://github.com/SemiAnalysisAI/InferenceX/blob/main/docs/PR_REVIEW_CHECKLIST.md)',
        'PR_REVIEW_CHECKLIST.md',
      );
    expect(compareChecklist(template, parseChecklist(drifted)).missing).toEqual([]);
  });

  it('the additional detail section keeps what the reviewer wrote, not the placeholder', () => {
    const posted = parseChecklist(
      '### Additional detail section:\n- insert any additional info here\n- recipe: https://recipes.vllm.ai/x\n\nSigned: `alice`',
    );
    expect(posted.details).toEqual(['recipe: https://recipes.vllm.ai/x']);
    expect(posted.signed).toBe('alice');
  });
});
