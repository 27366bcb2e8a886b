import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubOutputLines, parseGithubOutput, writeGithubOutput } from '../../src/ci/output.js';
import { tempFiles } from '../helpers.js';

describe('GITHUB_OUTPUT', () => {
  it('writes one line per value, the heredoc form for values that span lines, and reads both back', () => {
    const outputs = { run: true, n: 3, none: null, list: ['a', 'b'], text: 'one\ntwo', empty: '' };
    const text = githubOutputLines(outputs);
    expect(text).toMatch(
      /^run=true\nn=3\nnone=null\nlist=\["a","b"\]\ntext<<FRONTIER_[0-9a-f]{16}\none\ntwo\nFRONTIER_[0-9a-f]{16}\nempty=\n$/,
    );
    expect(parseGithubOutput(text)).toEqual({
      run: 'true',
      n: '3',
      none: 'null',
      list: '["a","b"]',
      text: 'one\ntwo',
      empty: '',
    });
  });

  it('appends to the file Actions names, and writes nothing outside Actions', () => {
    const dir = tempFiles({ out: 'before=1\n' });
    expect(writeGithubOutput({ after: 2 }, join(dir, 'out'))).toBe(join(dir, 'out'));
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe('before=1\nafter=2\n');
    expect(writeGithubOutput({ after: 2 }, undefined)).toBeUndefined();
  });

  it('a heredoc without its closing delimiter is an error', () => {
    expect(() => parseGithubOutput('x<<EOF\nvalue\n')).toThrow(/no closing EOF for x/);
  });
});
