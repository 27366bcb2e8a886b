// A raw result that process_result.py cannot aggregate makes its point invalid, saying why; it does not fail the launch.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunDir } from '../../src/launch/index.js';
import type { PointRecord } from '../../src/launch/run-dir.js';
import { settlePoint } from '../../src/launch/point-settle.js';
import { BUNDLED_INFERENCEX, tempFiles } from '../helpers.js';
import { singleRow } from './fixtures.js';

const RAW = join(BUNDLED_INFERENCEX, 'golden/process-result/01_single_node_tp8/input.json');

describe('settling a measured point', () => {
  it('a raw result whose median TPOT is 0 (no request streamed a second token) is an invalid point with process_result’s reason', () => {
    const raw = { ...(JSON.parse(readFileSync(RAW, 'utf8')) as Record<string, unknown>), median_tpot_ms: 0 };
    const row = singleRow({ conc: 4 });
    const record = { status: 'pending' } as PointRecord;
    const run = { dir: new RunDir(tempFiles({})), node: undefined, requirePower: false } as unknown as Parameters<
      typeof settlePoint
    >[0];
    settlePoint(run, { conc: 4, resultFilename: 'rf', row }, record, { status: 'ok', raw: JSON.stringify(raw), problems: [] });
    expect(record).toMatchObject({
      status: 'invalid',
      error:
        'process_result: ZeroDivisionError: float division by zero (median_tpot_ms is 0: no request produced a second token)',
    });
  });
});
