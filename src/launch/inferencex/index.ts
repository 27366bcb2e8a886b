// Rows of an InferenceX checkout run through its own launch material: single-node rows its
// benchmark scripts (script-plan, point, run-local, slurm-job), multi-node rows their srt-slurm
// recipes (recipe-plan, recipe-run), or srtctl itself (srtctl), or, for frameworks without
// recipes, the job scripts that submit their own Slurm job (job-script); standins.ts drives the sim.
export { planScript } from '../../plan/inferencex/script-plan.js';
export { recordPoint } from './script-record.js';
export type { ScriptPlan } from '../../plan/inferencex/script-plan.js';
export type { RecordedScript, ScriptProcess } from './script-record.js';
export { TreeError, isInferencexTree, openTree } from '../../plan/inferencex/tree.js';
export type { InferencexTree } from '../../plan/inferencex/tree.js';
export { leaders, loadRecipeBook, resolveRoles, roleNames } from '../../plan/inferencex/recipe-plan.js';
export type { RecipeBook, RecipePlan } from '../../plan/inferencex/recipe-plan.js';
export { srtctlApply } from '../../plan/inferencex/srtctl-command.js';
export { planJobScript } from '../../plan/inferencex/job-script-plan.js';
export { recordJobScript } from './job-script.js';
export type { JobScriptPlan } from '../../plan/inferencex/job-script-plan.js';
export type { RecordedJobScript } from './job-script.js';
