export { compareTrees, isEmptyChange, touchedSubjects } from './change.js';
export type { TreeChange } from './tree-change.js';
export { firstParentCommits, reviewEach } from './backtest.js';
export type { CommitReview } from './backtest.js';
export {
  formatBacktestLine,
  formatBacktestMarkdown,
  formatBacktestSummary,
  formatLint,
  formatReview,
  formatRules,
} from './format.js';
export type { ReportFormat } from './format.js';
export { subject } from './rule.js';
export type { Finding, Rule, RuleContext, RuleFinding } from './rule.js';
export { RULES } from './rules/index.js';
export { lint, review, runRules } from './run.js';
export type { FindingStatus, LintOptions, LintReport, ReviewOptions, ReviewReport, ReviewedFinding } from './run.js';
export { changeSweep } from './sweep.js';
export type { KeySweep } from './sweep.js';
export { descriptiveSides, loadTree, recipeReferences, resolveRecipe } from './tree.js';
export type { RecipeRef, RecipeReference, Tree, TreeOptions } from './tree.js';
