/**
 * The pull-request labels that steer a sweep, with InferenceX's names and meanings
 * (`.github/workflows/run-sweep.yml`). One table: the gate, the plan's text and docs/ci.md all
 * read it.
 */

export type LabelKind = 'sweep' | 'modifier' | 'policy';

export interface SweepMode {
  /** One concurrency per recipe (the `--trim-conc` matrix). */
  trimConc: boolean;
  /** The canary row runs first; the rest wait for it to pass. */
  canary: boolean;
  /** The first failed job cancels the others of its matrix. */
  failFast: boolean;
}

export interface LabelInfo {
  kind: LabelKind;
  effect: string;
  /** Sweep labels only: the mode they select. */
  mode?: SweepMode;
  /** Sweep labels only: whether a `/reuse-sweep-run` may replace the sweep. */
  reusable?: boolean;
}

export const LABELS = {
  'sweep-enabled': {
    kind: 'sweep',
    effect: 'a trimmed sweep: one concurrency per recipe, no canary',
    mode: { trimConc: true, canary: false, failFast: false },
    reusable: false,
  },
  'full-sweep-enabled': {
    kind: 'sweep',
    effect: 'the full sweep, after a canary',
    mode: { trimConc: false, canary: true, failFast: false },
    reusable: true,
  },
  'non-canary-full-sweep-enabled': {
    kind: 'sweep',
    effect: 'the full sweep, without a canary',
    mode: { trimConc: false, canary: false, failFast: false },
    reusable: true,
  },
  'full-sweep-fail-fast': {
    kind: 'sweep',
    effect: 'the full sweep after a canary; the first failure cancels the rest of its job matrix',
    mode: { trimConc: false, canary: true, failFast: true },
    reusable: true,
  },
  'full-sweep-fail-fast-no-canary': {
    kind: 'sweep',
    effect: 'the full sweep without a canary; the first failure cancels the rest of its job matrix',
    mode: { trimConc: false, canary: false, failFast: true },
    reusable: true,
  },
  'all-evals': { kind: 'modifier', effect: "every entry's eval selection expanded (`changelog matrix --all-evals`)" },
  'evals-only': {
    kind: 'modifier',
    effect: 'evals only, no throughput (`changelog matrix --evals-only`); a reuse cannot replace it',
  },
  'agentx-fast': {
    kind: 'modifier',
    effect: 'agentic throughput jobs run their fast variant; a reuse cannot replace it',
  },
  skip_queue: { kind: 'modifier', effect: "the sweep's jobs skip the priority queue (`ci priority`)" },
  'ci-patchwork': { kind: 'policy', effect: 'the change patches an engine: its jobs queue at priority 0' },
  'engine-patch': { kind: 'policy', effect: 'the same as ci-patchwork' },
  'ci-patchwork-waived': { kind: 'policy', effect: 'a maintainer waives the patchwork priority penalty' },
  'ci-checklist-complete': { kind: 'policy', effect: 'the sign-off checklist is complete: a small priority boost' },
} as const satisfies Record<string, LabelInfo>;

export type LabelName = keyof typeof LABELS;

const names = (kind: LabelKind): LabelName[] => (Object.keys(LABELS) as LabelName[]).filter((n) => LABELS[n].kind === kind);

export const SWEEP_LABELS = names('sweep');
export const MODIFIER_LABELS = names('modifier');
export const POLICY_LABELS = names('policy');
/** A labeled/unlabeled event for one of these re-evaluates the sweep; any other label changes nothing. */
export const RELEVANT_LABELS: readonly string[] = Object.keys(LABELS);
export const REUSE_ELIGIBLE_LABELS = SWEEP_LABELS.filter((n) => (LABELS[n] as LabelInfo).reusable === true);
/** With one of these, a `/reuse-sweep-run` cannot stand in for the sweep: it measures something else. */
export const REUSE_INCOMPATIBLE_LABELS: readonly LabelName[] = ['evals-only', 'agentx-fast'];

/** The commit-message tag that skips a pull request's sweep (push to main ignores it). */
export const SKIP_SWEEP_TAG = '[skip-sweep]';

export const isLabel = (name: string): name is LabelName => Object.hasOwn(LABELS, name);

/** The mode a sweep label selects (undefined for any other label). */
export const sweepModeOf = (name: string): SweepMode | undefined =>
  isLabel(name) ? (LABELS[name] as LabelInfo).mode : undefined;
