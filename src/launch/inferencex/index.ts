// Rows of an InferenceX checkout run through its own launch material: single-node rows its
// benchmark scripts (script-plan, point, run-local, slurm-job), multi-node rows their srt-slurm
// recipes (recipe-plan, recipe-run), or srtctl itself (srtctl), or, for frameworks without
// recipes, the job scripts that submit their own Slurm job (job-script); standins.ts drives the sim.
export { planScript, recordPoint } from './script-plan.js';
export type { RecordedScript, ScriptPlan, ScriptProcess } from './script-plan.js';
export { TreeError, isInferencexTree, openTree } from './tree.js';
export type { InferencexTree } from './tree.js';
export { leaders, loadRecipeBook, resolveRoles, roleNames } from './recipe-plan.js';
export type { RecipeBook, RecipePlan } from './recipe-plan.js';
export { srtctlApply } from './srtctl.js';
export { planJobScript, recordJobScript } from './job-script.js';
export type { JobScriptPlan, RecordedJobScript } from './job-script.js';
