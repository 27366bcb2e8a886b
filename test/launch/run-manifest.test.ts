import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunDir } from '../../src/launch/index.js';
import { tempFiles } from '../helpers.js';

/** A manifest as `frontier run` wrote it before launches had that name. */
const OLD = {
  version: 1,
  frontier: '0.1.0',
  matrix: { file: 'matrix.json', sha256: 'ab'.repeat(32), rows: 1 },
  cluster: { name: 'local', scheduler: 'local', simulate: true },
  commit: null,
  started: '2026-11-01T00:00:00.000Z',
  ended: '2026-11-01T00:01:00.000Z',
  status: 'completed',
  groups: [{ id: 'g0', label: 'llama3.1-8b fp8 sim TP1 256/32', engine: 'sim', status: 'done' }],
  points: [{ resultFilename: 'rf1', group: 'g0', conc: 1, runner: 'h100', row: 0, status: 'ok' }],
  evals: [{ group: 'g0', dir: 'eval_x_rf1', concs: [1], status: 'passed' }],
};

describe('run.json', () => {
  it('reads a manifest written with the old names (groups, group) as today’s (launches, launch)', () => {
    const dir = tempFiles({});
    writeFileSync(join(dir, 'run.json'), JSON.stringify(OLD));
    const m = new RunDir(dir).readManifest()!;
    expect(m.launches).toEqual(OLD.groups);
    expect(m.points[0]).toMatchObject({ resultFilename: 'rf1', launch: 'g0', status: 'ok' });
    expect(m.points[0]).not.toHaveProperty('group');
    expect(m.evals[0]).toMatchObject({ launch: 'g0', dir: 'eval_x_rf1' });
    expect(m).not.toHaveProperty('groups');
  });

  it('a manifest with neither list is not one, and says so', () => {
    const dir = tempFiles({});
    const { groups: _groups, ...neither } = OLD;
    writeFileSync(join(dir, 'run.json'), JSON.stringify(neither));
    expect(() => new RunDir(dir).readManifest()).toThrow(/is not a run manifest \(no launches list\)/);
  });
});
