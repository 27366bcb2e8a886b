import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlannedPoint } from '../plan/launches.js';
import { combineRepeats } from '../results/index.js';
import { writeFilesAtomic } from '../util/atomic-write.js';
import type { PointRecord, RunDir } from './run-dir.js';

/**
 * A repeated point, once every repeat has settled: the ok repeats' aggregates combined into the
 * point's own `bmk_<RF>/agg_<RF>.json` (results/repeats.ts), with a power sidecar that agrees with
 * it: the first repeat's when every repeat's power is valid, else the first invalid one's, whose
 * reasons say why. Nothing when no repeat is ok.
 */
export function combineSettledRepeats(dir: RunDir, p: PlannedPoint, repeats: readonly PointRecord[]): void {
  if (!p.repeat || repeats.some((r) => r.status === 'pending')) return;
  const ok = repeats.filter((r) => r.status === 'ok');
  if (ok.length === 0) return;
  const rf = p.resultFilename;
  const sidecarName = `power_validation_${rf}.json`;
  const sidecarOf = ok.find((r) => r.power?.valid === false) ?? ok[0]!;
  const aggs = ok.map((r) => readFileSync(dir.aggFile(rf, r.repeat), 'utf8'));
  writeFilesAtomic(
    [
      [dir.aggFile(rf), combineRepeats(aggs, p.repeat.scope)],
      [join(dir.bmkDir(rf), sidecarName), readFileSync(join(dir.bmkDir(rf, sidecarOf.repeat), sidecarName), 'utf8')],
    ],
    { mkdir: true },
  );
}
