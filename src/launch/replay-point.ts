import { join } from 'node:path';
import { replayTraces } from '../bench/index.js';
import type { ReplayReport } from '../bench/index.js';
import { shellQuote } from '../engines/index.js';
import type { Launch } from '../engines/index.js';
import type { PlannedPoint } from '../plan/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { agenticPointOf, replayArgsOf, replayOptionsOf } from './agentic.js';
import type { LaunchContext } from './run.js';

/** Replay a point's traces in this process against the launch's endpoint (local runs), its command beside the artifacts. */
export async function replayPoint(ctx: LaunchContext, p: PlannedPoint, launch: Launch, model: string): Promise<ReplayReport> {
  if (!ctx.agentic) throw new Error('an agentic-coding point needs a trace corpus');
  const rf = p.resultFilename;
  const a = agenticPointOf(p, ctx.agentic, launch, {
    model,
    maxModelLen: ctx.plan.deployment.maxModelLen,
    artifacts: ctx.dir.agenticArtifacts(rf),
  });
  writeFileAtomic(
    join(ctx.dir.agenticDir(rf), 'benchmark_command.txt'),
    `${['frontier', ...replayArgsOf(a, ctx.agentic.tracesFile)].map(shellQuote).join(' ')}\n`,
    { mkdir: true },
  );
  return replayTraces(ctx.agentic.traces, {
    ...replayOptionsOf(a),
    clockAnchorMs: ctx.clockAnchorMs,
    log: (line) => ctx.reporter.note?.(`  ${line}`),
  });
}
