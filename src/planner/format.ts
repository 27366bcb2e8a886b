import { formatSla } from './sla.js';
import type { Plan } from './plan.js';

/** The plan for a terminal: the frontier, the best point under the SLA, and every discarded deployment with its reason. */
export function formatPlan(plan: Plan): string {
  const w = plan.workload;
  const lines: string[] = [
    `Predicted frontier: ${w.model} ${w.precision} on ${w.hardware}${w.engine ? ` (${w.engine})` : ''}, ISL ${w.isl} / OSL ${w.osl}, up to ${w.gpus} GPUs`,
    w.sla.length > 0 ? `SLA: ${formatSla(w.sla)} (✓ meets it)` : 'SLA: none',
    '',
  ];
  const colocated = new Set(plan.deployments.filter((d) => d.colocated).map((d) => d.label));
  const rows = plan.frontier.map((p) => [
    w.sla.length > 0 ? (p.meetsSla ? '✓' : ' ') : '',
    colocated.has(p.deployment) ? `${p.deployment} (colocated)` : p.deployment,
    String(p.conc),
    p.tputPerGpu.toFixed(0),
    p.interactivity.toFixed(1),
    p.ttftMs.toFixed(0),
  ]);
  const header = ['', 'deployment', 'conc', 'tput/GPU', 'intvty', 'TTFT ms'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const render = (r: string[]): string =>
    r
      .map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  lines.push(render(header), ...rows.map(render));
  if (plan.frontier.length === 0) lines.push('(no deployment fits: see below)');
  if (plan.best) {
    const b = plan.best;
    lines.push(
      '',
      `Best under the SLA: ${b.deployment} at conc ${b.conc}: ${b.tputPerGpu.toFixed(0)} tok/s/GPU, ${b.interactivity.toFixed(1)} tok/s/user`,
    );
  } else if (w.sla.length > 0) lines.push('', 'No frontier point meets the SLA.');
  lines.push('', `Discarded (${plan.discarded.length}):`, ...plan.discarded.map((d) => `  ${d.deployment}: ${d.reason}`));
  const s = plan.stats;
  lines.push('', `${s.candidates} candidates, ${s.simulated} simulated points, ${(s.ms / 1000).toFixed(1)} s`);
  return `${lines.join('\n')}\n`;
}
