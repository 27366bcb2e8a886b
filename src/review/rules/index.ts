import type { Rule } from '../rule.js';
import {
  changelogEntry,
  changelogFile,
  changelogHistory,
  changelogLayout,
  changelogNoSweep,
  changelogPairing,
  changelogPrLink,
  changelogSeparator,
  changelogSweep,
} from './changelog.js';
import { configRunnerLabel, configValid } from './config.js';
import { clusterValid } from './cluster-valid.js';
import { danglingReference } from './dangling-reference.js';
import { dynamoImageUnknown, dynamoInstallDisabled } from './dynamo-install.js';
import { engineTuningRemove } from './engine-tuning.js';
import { launcherDeadBranch, launcherUnpinnedToolchain, launcherUnroutedRow } from './launcher.js';
import {
  concurrencyMismatch,
  dynamoVersionMismatch,
  imageMismatch,
  parallelismMismatch,
  precisionMismatch,
  seqLenMismatch,
  workerCountMismatch,
} from './recipe-consistency.js';
import { colocationDoesNotFit, engineGpusMismatch, gpuOverlap, workerDoesNotTileNode, workersDoNotFit } from './recipe-plan.js';
import { configFileMissing, configFileUnverifiable } from './recipe-references.js';
import { POWER_RULES } from './power.js';
import { recipeSchema } from './recipe-schema.js';
import { recipeUnrouted } from './recipe-unrouted.js';
import { ruleShadowed } from './rule-shadowed.js';
import { SPECDEC_RULES } from './specdec.js';
import { shortTimeLimitWithoutHealthCheck } from './time-limit.js';
import { rerunsUntouchedScenario } from './untouched-scenario.js';
import { unpinnedToolchain } from './unpinned-toolchain.js';

/** Every rule, in the order reports list them. */
export const RULES: readonly Rule[] = [
  configValid,
  configRunnerLabel,
  engineTuningRemove,
  changelogFile,
  changelogEntry,
  changelogHistory,
  changelogSeparator,
  changelogLayout,
  changelogPrLink,
  changelogSweep,
  changelogPairing,
  changelogNoSweep,
  rerunsUntouchedScenario,
  recipeSchema,
  configFileMissing,
  configFileUnverifiable,
  danglingReference,
  concurrencyMismatch,
  workerCountMismatch,
  parallelismMismatch,
  imageMismatch,
  seqLenMismatch,
  precisionMismatch,
  dynamoVersionMismatch,
  colocationDoesNotFit,
  workersDoNotFit,
  gpuOverlap,
  engineGpusMismatch,
  workerDoesNotTileNode,
  dynamoInstallDisabled,
  dynamoImageUnknown,
  shortTimeLimitWithoutHealthCheck,
  clusterValid,
  unpinnedToolchain,
  recipeUnrouted,
  ruleShadowed,
  launcherUnpinnedToolchain,
  launcherUnroutedRow,
  launcherDeadBranch,
  ...POWER_RULES,
  ...SPECDEC_RULES,
];
