import { startProcesses } from '../local.js';
import { clearEngines, recordEngines } from '../leftovers.js';
import type { LaunchContext } from '../run.js';
import { collectEvalOnly, collectPoint, preparePoint, scriptRuns } from './point.js';
import type { ScriptPlan } from '../../plan/inferencex/script-plan.js';
import { scriptCommand } from './workspace.js';

const LOG_TAIL_BYTES = 3000;

/**
 * The local executor for InferenceX rows: each point's script in its own process group, which is
 * stopped when the script ends (InferenceX's container ends with it, and the engine with that).
 */
export async function runScriptPoints(
  ctx: LaunchContext,
  plan: ScriptPlan,
  frontier: string[],
  freePort: () => Promise<number>,
): Promise<void> {
  const { points, dir, cluster, reporter, signal } = ctx;
  for (const { point: p, evalOnly } of scriptRuns(points, ctx.evals, cluster.name)) {
    if (signal.aborted) return;
    if (!evalOnly) reporter.pointStart?.(ctx.plan.launch, p);
    // The launcher's fixed port could be taken on a shared host: a free one stands in.
    const s = preparePoint(
      p,
      plan,
      {
        dir,
        cluster,
        frontier,
        port: await freePort(),
        variation: ctx.plan.deployment.runVariation,
        agentic: ctx.agentic,
        evals: ctx.evalSettings ? { list: ctx.evals, settings: ctx.evalSettings } : undefined,
      },
      evalOnly,
    );
    const command = scriptCommand(cluster, s.row.image, s.work, plan.script, Object.keys(s.contract));
    const running = startProcesses(
      [{ name: 'script', role: 'server', host: '127.0.0.1', gpus: [], command, env: s.env }],
      s.logDir,
    );
    recordEngines(dir.enginesFile, s.logDir, running.pids);
    const stop = (): void => void running.stop();
    signal.addEventListener('abort', stop);
    const timer = setTimeout(stop, cluster.timeLimitMinutes * 60_000);
    let exit;
    try {
      exit = await running.firstExit;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      await running.stop();
      clearEngines(dir.enginesFile);
    }
    if (signal.aborted) return;
    if (s.evalOnly) collectEvalOnly(s, plan);
    else ctx.finishPoint(p, collectPoint(s, plan, exit.code, running.logTail('script', LOG_TAIL_BYTES).trimEnd()));
  }
}
