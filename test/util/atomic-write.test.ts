import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFilesAtomic } from '../../src/util/atomic-write.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'frontier-atomic-'));
  dirs.push(d);
  return d;
};

describe('writeFileAtomic', () => {
  it('replaces the content whole, a longer file by a shorter one, and leaves no temporary file', () => {
    const dir = scratch();
    const file = join(dir, 'out.json');
    writeFileSync(file, 'x'.repeat(10_000));
    writeFileAtomic(file, '{"a": 1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a": 1}\n');
    writeFileAtomic(file, Buffer.from([0, 1, 2]));
    expect([...readFileSync(file)]).toEqual([0, 1, 2]);
    expect(readdirSync(dir)).toEqual(['out.json']);
  });

  it('makes the folder only when asked', () => {
    const dir = scratch();
    expect(() => writeFileAtomic(join(dir, 'a', 'b', 'f.txt'), 'text')).toThrow(/ENOENT/);
    writeFileAtomic(join(dir, 'a', 'b', 'f.txt'), 'text', { mkdir: true });
    expect(readFileSync(join(dir, 'a', 'b', 'f.txt'), 'utf8')).toBe('text');
  });

  it('removes its temporary file when the rename fails, and the target stays as it was', () => {
    const dir = scratch();
    // A non-empty directory cannot be replaced by a file.
    const target = join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(join(target, 'inside'), 'kept');
    expect(() => writeFileAtomic(target, 'new')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
    expect(readFileSync(join(target, 'inside'), 'utf8')).toBe('kept');
  });
});

describe('writeFilesAtomic', () => {
  it('writes all the files, or, when one cannot be written, none of them', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'a.json'), 'old a');
    expect(() =>
      writeFilesAtomic([
        [join(dir, 'a.json'), 'new a'],
        [join(dir, 'missing', 'b.json'), 'new b'],
      ]),
    ).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(['a.json']);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('old a');

    writeFilesAtomic(
      [
        [join(dir, 'a.json'), 'new a'],
        [join(dir, 'sub', 'b.json'), 'new b'],
      ],
      { mkdir: true },
    );
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('new a');
    expect(readFileSync(join(dir, 'sub', 'b.json'), 'utf8')).toBe('new b');
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'sub']);
  });
});
