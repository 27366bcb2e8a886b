export { workflowEnv } from './contract.js';
export { LAUNCHERS, launcherOf, scriptFor } from './launchers.js';
export { contractOf, planScript, recordPoint } from './script-plan.js';
export type { RecordedScript, ScriptPlan, ScriptProcess } from './script-plan.js';
export { STANDIN_TOOLS, writeStandins } from './standins.js';
export { TreeError, isInferencexTree, openTree } from './tree.js';
export type { InferencexTree } from './tree.js';
export { WORKSPACE, readCalls, scriptCommand } from './workspace.js';
export type { RecordedCall } from './workspace.js';
export {
  RECIPES_DIR,
  endpointOf,
  leaders,
  loadRecipeBook,
  recipeLocation,
  remapPorts,
  resolveRoles,
  roleNames,
  servedNameOf,
} from './recipe-plan.js';
export type { RecipeBook, RecipePlan } from './recipe-plan.js';
export { collectSrtctlResults, placeRecipe, srtctlApply, srtctlJobId, srtctlRoot } from './srtctl.js';
