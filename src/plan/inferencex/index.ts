// How a row of an InferenceX checkout runs, planned from the checkout: its launchers (launchers),
// a single-node row's benchmark script (script-plan), a multi-node row's srt-slurm recipe as
// srtctl renders it (recipe-plan) or srtctl's command for it (srtctl-command), and the job scripts
// of frameworks without recipes (job-script-plan). src/launch/inferencex/ runs what is planned here.
export { planScript } from './script-plan.js';
export type { ScriptPlan } from './script-plan.js';
export { TreeError, isInferencexTree, openTree } from './tree.js';
export type { InferencexTree } from './tree.js';
export { leaders, loadRecipeBook, resolveRoles, roleNames } from './recipe-plan.js';
export type { RecipeBook, RecipePlan } from './recipe-plan.js';
export { srtctlApply } from './srtctl-command.js';
export { planJobScript } from './job-script-plan.js';
export type { JobScriptPlan } from './job-script-plan.js';
