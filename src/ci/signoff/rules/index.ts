import type { SignoffRule } from '../rule.js';
import { engineFirstRule, recipeLinkedRule, upstreamImageRule } from './configs.js';
import { simulatedAcceptanceRule } from './acceptance.js';
import { ownerRule } from './owner.js';
import { enginePatchRule, hfOverridesRule, specdecChatTemplateRule } from './patchwork.js';
import { evalsRule, greenSweepRule, reuseCommandRule } from './sweep.js';
import { templateRule } from './template.js';

/** The sign-off rules, in the order of the reference verifier's checks. */
export const SIGNOFF_RULES: readonly SignoffRule[] = [
  ownerRule,
  greenSweepRule,
  evalsRule,
  recipeLinkedRule,
  reuseCommandRule,
  templateRule,
  upstreamImageRule,
  engineFirstRule,
  hfOverridesRule,
  specdecChatTemplateRule,
  enginePatchRule,
  simulatedAcceptanceRule,
];
