/**
 * Sweeps for external contributors: InferenceX's `trusted-external-sweep.yml` as one pure
 * decision. A fork's pull request never sweeps on its own events (the gate turns it away); a
 * maintainer with write permission approves its exact head commit by adding one sweep label, and
 * the control-plane workflow dispatches the sweep workflow on the default branch with the
 * approved revision as inputs. What the GitHub API said is handed in, recorded (see
 * external-record.ts); every refusal says why in words.
 */
import type { GithubEvent } from './event.js';
import type { RecordedPermission, RecordedPull } from './external-record.js';
import { LABELS, SWEEP_LABELS } from './labels.js';
import type { LabelInfo, LabelName } from './labels.js';

/** The test name (and so the run's title) of a dispatched sweep of an external PR's approved commit, as InferenceX's. */
export const externalTestName = (pr: number, headSha: string): string => `External PR #${pr} @ ${headSha.slice(0, 12)}`;

/** The PR and the approved commit's first 12 hex digits a run title names, when it is an external PR's sweep. */
export function externalSweepOf(title: string): { pr: number; sha12: string } | undefined {
  const m = /\bExternal PR #(\d+) @ ([0-9a-f]{12})\b/.exec(title);
  return m ? { pr: Number(m[1]), sha12: m[2]! } : undefined;
}

/** Collaborator permissions (the API's `permission` field) that may approve external code. */
export const TRUSTED_PERMISSIONS: readonly string[] = ['admin', 'maintain', 'write'];

/** Why an approval was refused, one code per check, in the order they are made. */
export type ExternalRefusal = 'event' | 'internal' | 'label' | 'permission' | 'state' | 'advanced' | 'labels' | 'merge-commit';

/** The dispatch of the sweep workflow: the branch it runs from and its inputs (the API's `dispatches` body). */
export interface ExternalDispatch {
  /** The default branch: the sweep workflow and Frontier's version are the trusted ones there. */
  ref: string;
  inputs: {
    'test-name': string;
    /** The merge commit GitHub made of the approved head and the base: the tree the sweep checks out. */
    ref: string;
    'changelog-base-ref': string;
    /** The approved head: the changelog entries from base to here are the rows. */
    'changelog-head-ref': string;
    'trim-conc': string;
    'all-evals': string;
    'evals-only': string;
    'fail-fast': string;
    'agentx-fast': string;
    'pr-labels-json': string;
  };
}

export interface ExternalDecision {
  approved: boolean;
  /** Why: the approval, or the refusal's reason (what to do about it included). */
  reason: string;
  refusal?: ExternalRefusal;
  pr: number;
  /** The head commit the label was applied to (the event's). */
  headSha: string;
  /** Who applied the label. */
  actor: string;
  label: string;
  /** The labeller's recorded permission, once it was read. */
  permission?: string;
  /** On approval: what to dispatch. */
  dispatch?: ExternalDispatch;
}

export interface ExternalInput {
  event: GithubEvent;
  /** `gh api repos/O/R/collaborators/ACTOR/permission`, for the event's sender. */
  permission: RecordedPermission;
  /** `gh api repos/O/R/pulls/N`, read after the event: the pull request as it stands now. */
  pull: RecordedPull;
}

const code = (labels: readonly string[]): string => labels.map((l) => `\`${l}\``).join(', ');

/** Whether a labeller may approve, and what the approved revision's sweep is. */
export function authorizeExternalSweep({ event, permission, pull }: ExternalInput): ExternalDecision {
  const pr = event.pullRequest;
  const base = { pr: pr?.number ?? 0, headSha: pr?.headSha ?? '', actor: event.sender ?? '', label: event.label ?? '' };
  const refuse = (refusal: ExternalRefusal, reason: string, extra: Partial<ExternalDecision> = {}): ExternalDecision => ({
    ...base,
    ...extra,
    approved: false,
    refusal,
    reason,
  });

  if (event.name !== 'pull_request_target' || event.action !== 'labeled' || !pr)
    return refuse(
      'event',
      `a ${event.name}${event.action ? ` ${event.action}` : ''} event: only a label added to a pull request (pull_request_target labeled) approves an external sweep`,
    );
  if (pr.headRepo === event.repository)
    return refuse(
      'internal',
      `the head branch is in this repository (${event.repository}): its own pull_request events sweep it; the trusted external sweep is only for fork pull requests`,
    );
  const primary: readonly string[] = SWEEP_LABELS;
  if (!primary.includes(base.label))
    return refuse('label', `labeled \`${base.label}\`: not a sweep label (${code(SWEEP_LABELS)}), so it approves nothing`);

  const held = `@${base.actor} has ${permission.permission || 'no'} permission${permission.roleName && permission.roleName !== permission.permission ? ` (role ${permission.roleName})` : ''}`;
  if (!TRUSTED_PERMISSIONS.includes(permission.permission))
    return refuse('permission', `${held}; write, maintain, or admin permission is required to authorize external code`, {
      permission: permission.permission,
    });
  const extra = { permission: permission.permission };

  if (pull.state !== 'open' || pull.draft)
    return refuse(
      'state',
      `the pull request must be open and ready for review: it is ${pull.state !== 'open' ? pull.state || 'not open' : 'a draft'}`,
      extra,
    );
  if (pull.headRepo === event.repository)
    return refuse(
      'internal',
      'the pull request’s head is now in this repository: the trusted external sweep is only for fork pull requests',
      extra,
    );
  if (pull.headSha !== pr.headSha)
    return refuse(
      'advanced',
      `the PR advanced from ${pr.headSha} to ${pull.headSha}; remove and re-add the sweep label to approve the new revision`,
      extra,
    );
  const sweepLabels = pull.labels.filter((l) => primary.includes(l));
  if (sweepLabels.length !== 1 || sweepLabels[0] !== base.label)
    return refuse(
      'labels',
      `expected exactly the newly applied sweep label \`${base.label}\`; found ${sweepLabels.length === 0 ? 'none' : code(sweepLabels)}: keep one sweep label, then remove and re-add it`,
      extra,
    );
  if (!pull.mergeCommitSha)
    return refuse('merge-commit', 'GitHub has not produced a merge commit; resolve conflicts and re-add the label', extra);

  const mode = (LABELS[base.label as LabelName] as LabelInfo).mode!;
  const has = (l: LabelName): string => String(pull.labels.includes(l));
  const testName = externalTestName(pull.number, pull.headSha);
  return {
    ...base,
    ...extra,
    approved: true,
    reason: `${held}: \`${base.label}\` approves ${pull.headSha} (the merge commit ${pull.mergeCommitSha} is swept, its rows the changelog entries from ${pull.baseSha.slice(0, 12)} to ${pull.headSha.slice(0, 12)})`,
    dispatch: {
      ref: event.defaultBranch || 'main',
      inputs: {
        'test-name': testName,
        ref: pull.mergeCommitSha,
        'changelog-base-ref': pull.baseSha,
        'changelog-head-ref': pull.headSha,
        'trim-conc': String(mode.trimConc),
        'all-evals': has('all-evals'),
        'evals-only': has('evals-only'),
        'fail-fast': String(mode.failFast),
        'agentx-fast': has('agentx-fast'),
        'pr-labels-json': JSON.stringify(pull.labels),
      },
    },
  };
}

/** The marker that starts the comment, so a reader (or a later tool) can find it. */
export const EXTERNAL_COMMENT_MARKER = '<!-- frontier-external-sweep -->';

/** The pull-request comment: what was dispatched and what a later push means, or why nothing was. */
export function externalComment(decision: ExternalDecision, workflowUrl: string): string {
  const lines = [EXTERNAL_COMMENT_MARKER];
  const d = decision.dispatch;
  if (decision.approved && d) {
    lines.push(
      `Dispatched the [sweep](${workflowUrl}) \`${d.inputs['test-name']}\` for the approved external revision \`${decision.headSha}\` (\`${decision.label}\`, approved by @${decision.actor}).`,
      '',
      `It sweeps the merge commit \`${d.inputs.ref}\`; its rows are the changelog entries from \`${d.inputs['changelog-base-ref'].slice(0, 12)}\` to \`${d.inputs['changelog-head-ref'].slice(0, 12)}\`. The run is unofficial.`,
      '',
      'New commits are not trusted automatically: remove and re-add the sweep label to approve a new revision.',
    );
  } else {
    lines.push(`No sweep was dispatched for \`${decision.headSha}\`: ${decision.reason}.`);
  }
  return `${lines.join('\n')}\n`;
}
