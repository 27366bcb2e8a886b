import type { Deployment, EngineAdapter, Placement } from '../engines/index.js';
import type { JobScriptPlan } from './inferencex/job-script-plan.js';
import type { RecipePlan } from './inferencex/recipe-plan.js';
import type { ScriptPlan } from './inferencex/script-plan.js';
import type { PlannedLaunch } from './launches.js';

/**
 * How one launch runs, settled once by `planLaunch` (plan-launch.ts) and carried out by an executor
 * (launch/local-run.ts, launch/slurm-run.ts), which switches on `kind` and derives none of it again:
 *
 * - `adapter`: Frontier's engine adapter renders the processes (the sim's on a simulating cluster);
 * - `script`: a single-node row of an InferenceX checkout runs the checkout's benchmark script;
 * - `recipe`: a multi-node row runs the srt-slurm recipe its CONFIG_FILE names, as srtctl renders it;
 * - `srtctl`: the same, submitted by srtctl itself on a Slurm cluster that has it;
 * - `job-script`: a framework InferenceX runs with a job script that submits its own Slurm job;
 * - `cannot-run`: the reasons it cannot run here.
 */
export type LaunchPlan = AdapterPlan | ScriptLaunchPlan | RecipeLaunchPlan | SrtctlLaunchPlan | JobScriptLaunchPlan | CannotRun;

export type LaunchKind = LaunchPlan['kind'];

/** What every runnable plan settles. */
interface Runnable {
  launch: PlannedLaunch;
  deployment: Deployment;
  /** The GPU its engines run on (the simulated engine's on a simulating cluster): the power step's bounds, the sim's hardware. */
  hardware: string;
  gpus: number;
  nodes: number;
  /** Engines are the simulated engine (or stand-ins that drive it), not the real ones. */
  simulated: boolean;
  /** What runs it, for people: the script, the recipe, srtctl, or the engine. */
  engine: string;
}

export interface AdapterPlan extends Runnable {
  kind: 'adapter';
  adapter: EngineAdapter;
  /** Where its workers go, on nodes named `node0`, `node1`…: an executor binds them to addresses (`onHosts`). */
  placement: Placement;
  /** A recipe row in a Slurm job: the srt-slurm toolchain its cluster routes it to, and the routing's flags. */
  notes?: string[];
}

export interface ScriptLaunchPlan extends Runnable {
  kind: 'script';
  script: ScriptPlan;
}

export interface RecipeLaunchPlan extends Runnable {
  kind: 'recipe';
  recipe: RecipePlan;
  /**
   * Why an executor cannot start it here (a cluster that neither simulates nor has srtctl): its
   * rendering is still the plan, which a dry run shows; the run fails the launch with this.
   */
  unstartable?: string;
}

/**
 * A recipe row on a cluster that runs recipes with srtctl: its CONFIG_FILE, and the recipe when
 * the checkout has it (put into srtctl's checkout, its processes shown by a dry run); otherwise
 * the routed srt-slurm checkout has it, as InferenceX's launchers expect.
 */
export interface SrtctlLaunchPlan extends Runnable {
  kind: 'srtctl';
  configFile: string;
  recipe: RecipePlan | undefined;
  /** The srt-slurm checkout srtctl runs in (its `{commit}` the routed toolchain's), and the command that submits the recipe. */
  root: string;
  submit: string[];
}

export interface JobScriptLaunchPlan extends Runnable {
  kind: 'job-script';
  jobScript: JobScriptPlan;
}

export interface CannotRun {
  kind: 'cannot-run';
  launch: PlannedLaunch;
  reasons: string[];
}

export type RunnablePlan = Exclude<LaunchPlan, CannotRun>;

/** The end of an exhaustive `switch (plan.kind)`: a kind added to LaunchPlan is a compile error until handled. */
export function unhandledKind(plan: never): never {
  throw new Error(`unhandled launch kind ${(plan as { kind: string }).kind}`);
}
