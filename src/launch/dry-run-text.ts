import { commandLine, shellQuote } from '../engines/index.js';
import type { DryRunLaunch, DryRunReport } from './dry-run.js';

/** The text form of a dry run: the same report, for people. */
export function dryRunText(report: DryRunReport): string {
  const lines = [`cluster ${report.cluster} (${report.scheduler}${report.simulate ? ', simulated engines' : ''})`];
  for (const launch of report.launches) {
    lines.push('', `${launch.id}: ${launch.label} · conc ${launch.concs.join(', ')}`);
    lines.push(...launchLines(launch));
  }
  return `${lines.join('\n')}\n`;
}

/** One command as a dry run shows it: its argv, and the environment it adds to what every process gets. */
const shown = (argv: string[], env: Record<string, string>): string =>
  commandLine({ name: '', role: 'server', host: '', gpus: [], command: argv, env });

/** The settings of `env` that the contract does not already give. */
const own = (env: Record<string, string>, contract: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !(k in contract) || contract[k] !== env[k]));

const problemLines = (problem: string | undefined): string[] => (problem ? problem.split('\n').map((l) => `    ! ${l}`) : []);

function launchLines(launch: DryRunLaunch): string[] {
  switch (launch.kind) {
    case 'cannot-run':
      return (launch.reasons ?? []).map((p) => `  cannot run: ${p}`);
    case 'script':
      return scriptLines(launch);
    case 'job-script':
      return jobScriptLines(launch);
    case 'recipe':
    case 'srtctl':
      return recipeLines(launch);
    case 'adapter':
      return adapterLines(launch);
  }
}

function scriptLines(launch: DryRunLaunch): string[] {
  const script = launch.script!;
  const lines = [
    `  ${launch.gpus} GPUs on 1 node; ${script.path} (as runners/launch_${script.launcher}.sh runs it on ${script.runner})`,
  ];
  // Each point runs the script once; what it starts, recorded by running it against stand-ins.
  for (const p of script.points) {
    lines.push(`  conc ${p.conc}:`, ...problemLines(p.problem));
    for (const x of p.processes) lines.push(`    | ${shown(x.argv, own(x.env, p.env))}`);
  }
  return lines;
}

function jobScriptLines(launch: DryRunLaunch): string[] {
  const j = launch.jobScript!;
  const what = j.job === 'printed' ? 'submits its own Slurm job' : 'allocates its nodes and runs its steps itself';
  return [
    `  ${launch.gpus} GPUs on ${launch.nodes} nodes; ${j.path} (as runners/launch_${j.launcher}.sh runs it on ${j.runner}), which ${what}:`,
    ...problemLines(j.problem),
    ...j.jobs.map((x) => `    | ${shown(x.argv, own(x.env, j.env))}`),
    '  (the job starts its processes on its nodes; a run records them in processes.json)',
  ];
}

function recipeLines(launch: DryRunLaunch): string[] {
  const r = launch.recipe!;
  const lines = [
    r.path !== undefined
      ? `  ${launch.gpus} GPUs on ${launch.nodes} node(s); recipe ${r.path}${r.selector ? `:${r.selector}` : ''} (${r.name}), as srtctl renders it`
      : `  ${launch.gpus} GPUs; recipe ${r.configFile}, from srtctl's checkout (not in this one: its processes are srtctl's to render)`,
  ];
  if (r.submit) lines.push(`  submitted by srtctl, in ${r.submitIn}: ${r.submit.join(' ')}`);
  for (const x of r.processes) {
    const spans = `node${x.nodes.length > 1 ? 's' : ''} ${x.nodes.join(',')}${x.gpus.length > 0 ? `, GPUs ${x.gpus.join(',')}` : ''}`;
    lines.push(`  ${x.name} (${x.role}${x.leader ? '' : ', joins its endpoint'}) on ${spans}:`, `    | ${shown(x.argv, x.env)}`);
  }
  return lines;
}

function adapterLines(launch: DryRunLaunch): string[] {
  return [
    `  ${launch.gpus} GPUs on ${launch.nodes} node(s); engine ${launch.deployment!.framework}`,
    ...launch.launchScript!.split('\n').map((l) => `  | ${l}`),
    ...(launch.replays ?? []).map((r) => `  replay at conc ${r.conc}: frontier ${r.argv.map(shellQuote).join(' ')}`),
  ];
}
