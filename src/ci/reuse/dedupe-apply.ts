/** Carry out a deduplication plan on the artifacts folder (the reference edits it in place too). */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { dumps } from '../../pycompat/index.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { DedupePlan } from './dedupe.js';

export function applyDedupePlan(root: string, plan: DedupePlan): void {
  for (const r of plan.rewrite) writeFileAtomic(join(root, r.path), dumps(r.data, r.indent ? { indent: 2 } : {}));
  for (const f of plan.removeFiles) rmSync(join(root, f), { force: true });
  for (const d of plan.removeDirs) rmSync(join(root, d), { recursive: true, force: true });
}
