/**
 * The sweep gate against the intended behaviour, case by case and over the whole label cross
 * product. The named cases and the independent specification (`intended` below) are InferenceX's
 * `utils/changelog_gate_tests/test_run_sweep_gating.py` (see test/fixtures/SOURCES.md), restated.
 */
import { describe, expect, it } from 'vitest';
import { gate } from '../../src/ci/gate.js';
import type { GateInput } from '../../src/ci/gate.js';

const SWEEP = [
  'sweep-enabled',
  'full-sweep-enabled',
  'non-canary-full-sweep-enabled',
  'full-sweep-fail-fast',
  'full-sweep-fail-fast-no-canary',
];
const MODIFIER = ['all-evals', 'evals-only', 'agentx-fast', 'skip_queue'];
const POLICY = ['ci-patchwork', 'engine-patch', 'ci-patchwork-waived', 'ci-checklist-complete'];
const RELEVANT = new Set([...SWEEP, ...MODIFIER, ...POLICY]);
const REUSE_ELIGIBLE = SWEEP.filter((l) => l !== 'sweep-enabled');
const REUSE_INCOMPATIBLE = ['evals-only', 'agentx-fast'];

interface Scenario {
  event: 'pull_request' | 'push';
  action?: string;
  draft?: boolean;
  labels?: string[];
  labelName?: string | null;
  reuseAuth?: boolean;
  check?: 'success' | 'failure';
  msg?: string;
  headRepo?: string;
}
type Outcome = [check: string, reuse: string, setup: 'RUN' | 'SKIP'];

function decide(sc: Scenario): Outcome {
  const input: GateInput = {
    event: sc.event,
    action: sc.action,
    draft: sc.draft ?? false,
    internal: (sc.headRepo ?? 'SemiAnalysisAI/InferenceX') === 'SemiAnalysisAI/InferenceX',
    labels: sc.labels ?? [],
    label: sc.labelName ?? undefined,
    headMessage: sc.msg ?? '',
    changelog: sc.check ?? 'success',
    reuseAuthorized: sc.reuseAuth ?? false,
  };
  const d = gate(input);
  return [d.check, d.reuseGate, d.run ? 'RUN' : 'SKIP'];
}

/** The intended gating, written from the reference's specification, independently of src/ci/gate.ts. */
function intended(sc: Scenario): Outcome {
  const labels = new Set(sc.labels ?? []);
  const draft = sc.draft ?? false;
  const isPr = sc.event === 'pull_request';
  const internal = (sc.headRepo ?? 'SemiAnalysisAI/InferenceX') === 'SemiAnalysisAI/InferenceX';
  const labelOk = (sc.action !== 'labeled' && sc.action !== 'unlabeled') || RELEVANT.has(sc.labelName ?? '');
  const checkRuns = isPr && !draft && labelOk;
  const check = !checkRuns ? 'skipped' : SWEEP.filter((l) => labels.has(l)).length > 1 ? 'failure' : (sc.check ?? 'success');
  const gateRuns =
    check === 'success' &&
    isPr &&
    sc.action === 'synchronize' &&
    !draft &&
    REUSE_ELIGIBLE.some((l) => labels.has(l)) &&
    !REUSE_INCOMPATIBLE.some((l) => labels.has(l));
  const reuse = gateRuns ? 'success' : 'skipped';
  const reuseClause = reuse === 'skipped' || !(gateRuns && (sc.reuseAuth ?? false));
  const eventOk = isPr
    ? !draft && internal && SWEEP.some((l) => labels.has(l)) && labelOk && !(sc.msg ?? '').includes('[skip-sweep]')
    : true;
  const runs = (check === 'success' || check === 'skipped') && reuseClause && eventOk;
  return [check, reuse, runs ? 'RUN' : 'SKIP'];
}

const PR: Scenario = { event: 'pull_request', draft: false };
const CASES: [string, Scenario, Outcome][] = [
  [
    'PR-sync-full-noreuse',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled'], reuseAuth: false },
    ['success', 'success', 'RUN'],
  ],
  [
    'PR-sync-full-reuse-authorized',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled'], reuseAuth: true },
    ['success', 'success', 'SKIP'],
  ],
  [
    'PR-sync-conflicting-labels-reuse-authorized',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled', 'full-sweep-fail-fast'], reuseAuth: true },
    ['failure', 'skipped', 'SKIP'],
  ],
  [
    'PR-sync-full-changelog-failure',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled'], check: 'failure' },
    ['failure', 'skipped', 'SKIP'],
  ],
  ['PR-sync-trim-sweep-enabled', { ...PR, action: 'synchronize', labels: ['sweep-enabled'] }, ['success', 'skipped', 'RUN']],
  [
    'PR-sync-all-evals-without-sweep-label',
    { ...PR, action: 'synchronize', labels: ['all-evals'] },
    ['success', 'skipped', 'SKIP'],
  ],
  [
    'PR-sync-evals-only-without-sweep-label',
    { ...PR, action: 'synchronize', labels: ['evals-only'] },
    ['success', 'skipped', 'SKIP'],
  ],
  [
    'PR-sync-agentx-fast-without-sweep-label',
    { ...PR, action: 'synchronize', labels: ['agentx-fast'] },
    ['success', 'skipped', 'SKIP'],
  ],
  [
    'PR-sync-full-with-all-evals-uses-reuse',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled', 'all-evals'], reuseAuth: true },
    ['success', 'success', 'SKIP'],
  ],
  [
    'PR-sync-full-with-evals-only-ignores-reuse',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled', 'evals-only'], reuseAuth: true },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-sync-full-with-agentx-fast-ignores-reuse',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled', 'agentx-fast'], reuseAuth: true },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-sync-full-with-both-modifiers-ignores-reuse',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled', 'all-evals', 'evals-only'], reuseAuth: true },
    ['success', 'skipped', 'RUN'],
  ],
  ['PR-sync-no-sweep-label', { ...PR, action: 'synchronize', labels: [] }, ['success', 'skipped', 'SKIP']],
  [
    'PR-sync-external-fork-defers-to-trusted-dispatch',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled'], headRepo: 'external/InferenceX' },
    ['success', 'success', 'SKIP'],
  ],
  [
    'PR-labeled-with-sweep-label',
    { ...PR, action: 'labeled', labelName: 'full-sweep-enabled', labels: ['full-sweep-enabled'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-labeled-with-all-evals-without-sweep-label',
    { ...PR, action: 'labeled', labelName: 'all-evals', labels: ['all-evals'] },
    ['success', 'skipped', 'SKIP'],
  ],
  [
    'PR-labeled-with-evals-only-without-sweep-label',
    { ...PR, action: 'labeled', labelName: 'evals-only', labels: ['evals-only'] },
    ['success', 'skipped', 'SKIP'],
  ],
  [
    'PR-labeled-with-agentx-fast-without-sweep-label',
    { ...PR, action: 'labeled', labelName: 'agentx-fast', labels: ['agentx-fast'] },
    ['success', 'skipped', 'SKIP'],
  ],
  [
    'PR-labeled-all-evals-modifies-full-sweep',
    { ...PR, action: 'labeled', labelName: 'all-evals', labels: ['full-sweep-enabled', 'all-evals'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-labeled-evals-only-modifies-full-sweep',
    { ...PR, action: 'labeled', labelName: 'evals-only', labels: ['full-sweep-enabled', 'evals-only'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-labeled-agentx-fast-modifies-full-sweep',
    { ...PR, action: 'labeled', labelName: 'agentx-fast', labels: ['full-sweep-enabled', 'agentx-fast'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-labeled-skip-queue-restarts-full-sweep',
    { ...PR, action: 'labeled', labelName: 'skip_queue', labels: ['full-sweep-enabled', 'skip_queue'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-unlabeled-skip-queue-restarts-numeric-sweep',
    { ...PR, action: 'unlabeled', labelName: 'skip_queue', labels: ['full-sweep-enabled'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-labeled-patchwork-restarts-full-sweep',
    { ...PR, action: 'labeled', labelName: 'ci-patchwork', labels: ['full-sweep-enabled', 'ci-patchwork'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-unlabeled-patchwork-restarts-full-sweep',
    { ...PR, action: 'unlabeled', labelName: 'ci-patchwork', labels: ['full-sweep-enabled'] },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-labeled-with-unrelated-label',
    { ...PR, action: 'labeled', labelName: 'documentation', labels: ['full-sweep-enabled'] },
    ['skipped', 'skipped', 'SKIP'],
  ],
  [
    'PR-unlabeled-removed-sweep-label',
    { ...PR, action: 'unlabeled', labelName: 'full-sweep-enabled', labels: [] },
    ['success', 'skipped', 'SKIP'],
  ],
  ['PR-draft', { ...PR, action: 'synchronize', draft: true, labels: ['full-sweep-enabled'] }, ['skipped', 'skipped', 'SKIP']],
  [
    'PR-ready-for-review',
    { ...PR, action: 'ready_for_review', labels: ['full-sweep-enabled'], reuseAuth: false },
    ['success', 'skipped', 'RUN'],
  ],
  [
    'PR-sync-skip-sweep-tag',
    { ...PR, action: 'synchronize', labels: ['full-sweep-enabled'], msg: 'fix: docs [skip-sweep]' },
    ['success', 'success', 'SKIP'],
  ],
  ['push-additions-no-skip', { event: 'push', msg: 'feat: add model' }, ['skipped', 'skipped', 'RUN']],
  ['push-skip-sweep-tag-ignored', { event: 'push', msg: 'fix: x [skip-sweep]' }, ['skipped', 'skipped', 'RUN']],
];

function allScenarios(): Scenario[] {
  const labelConfigs = [
    [],
    ['sweep-enabled'],
    ['full-sweep-enabled'],
    ['non-canary-full-sweep-enabled'],
    ['full-sweep-fail-fast'],
    ['full-sweep-fail-fast-no-canary'],
    ['all-evals'],
    ['evals-only'],
    ['agentx-fast'],
    ['all-evals', 'evals-only'],
    ['documentation'],
    ['sweep-enabled', 'full-sweep-enabled'],
    ['full-sweep-enabled', 'full-sweep-fail-fast'],
    ['sweep-enabled', 'all-evals'],
    ['full-sweep-enabled', 'all-evals'],
    ['sweep-enabled', 'evals-only'],
    ['full-sweep-enabled', 'evals-only'],
    ['sweep-enabled', 'agentx-fast'],
    ['full-sweep-enabled', 'agentx-fast'],
    ['sweep-enabled', 'all-evals', 'evals-only'],
    ['full-sweep-enabled', 'all-evals', 'evals-only'],
    ['skip_queue'],
    ['full-sweep-enabled', 'skip_queue'],
  ];
  const labelNames = [...['full-sweep-enabled', 'sweep-enabled'], ...MODIFIER, ...POLICY, 'documentation', null];
  const out: Scenario[] = [];
  for (const action of ['ready_for_review', 'synchronize', 'labeled', 'unlabeled'])
    for (const draft of [false, true])
      for (const labels of labelConfigs)
        for (const labelName of labelNames)
          for (const reuseAuth of [false, true])
            for (const check of ['success', 'failure'] as const)
              for (const msg of ['feat: add model', 'fix: thing [skip-sweep]'])
                out.push({ event: 'pull_request', action, draft, labels, labelName, reuseAuth, check, msg });
  for (const msg of ['feat: add model', 'fix: thing [skip-sweep]']) out.push({ event: 'push', msg });
  return out;
}

describe('the sweep gate', () => {
  it.each(CASES)('%s', (_id, scenario, expected) => {
    expect(decide(scenario)).toEqual(expected);
  });

  it('the named cases agree with the intended specification', () => {
    for (const [id, scenario, expected] of CASES) expect([id, intended(scenario)]).toEqual([id, expected]);
  });

  it('agrees with the intended specification over the whole cross product (17,666 cases)', () => {
    const scenarios = allScenarios();
    expect(scenarios).toHaveLength(17_666);
    const mismatches = scenarios.filter((sc) => JSON.stringify(decide(sc)) !== JSON.stringify(intended(sc)));
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('the fork check: an external head repository never sweeps here', () => {
    const fork = gate({ event: 'pull_request', action: 'synchronize', labels: ['sweep-enabled'], internal: false });
    expect(fork.run).toBe(false);
    expect(fork.reasons[0]).toMatch(/fork/);
    // It names the way a fork's change is swept: a maintainer's label, through the trusted external sweep.
    expect(fork.reasons[0]).toContain('a maintainer with write permission approves its head commit by adding the sweep label');
    expect(fork.reasons[0]).toContain('frontier-external-sweep.yml');
  });

  it('says why, and which labels change nothing', () => {
    const conflict = gate({ event: 'pull_request', action: 'synchronize', labels: ['sweep-enabled', 'full-sweep-enabled'] });
    expect(conflict.conflict).toEqual(['sweep-enabled', 'full-sweep-enabled']);
    expect(conflict.reasons[0]).toBe('conflicting sweep labels `sweep-enabled`, `full-sweep-enabled`: pick exactly one');

    const lone = gate({ event: 'pull_request', action: 'labeled', label: 'all-evals', labels: ['all-evals'] });
    expect(lone.run).toBe(false);
    expect(lone.notes).toEqual([expect.stringMatching(/^`all-evals` changes nothing without a sweep label/)]);

    const unrelated = gate({ event: 'pull_request', action: 'labeled', label: 'documentation', labels: ['full-sweep-enabled'] });
    expect(unrelated.reasons[0]).toMatch(/labeled `documentation`: not a sweep, modifier or policy label, so it changes nothing/);

    const ignoredReuse = gate({
      event: 'pull_request',
      action: 'synchronize',
      labels: ['full-sweep-enabled', 'evals-only'],
      reuseAuthorized: true,
    });
    expect(ignoredReuse.run).toBe(true);
    expect(ignoredReuse.notes[0]).toMatch(/reuse-sweep-run authorization is ignored: `evals-only`/);

    const push = gate({ event: 'push', headMessage: 'x [skip-sweep]' });
    expect(push.notes[0]).toMatch(/ignored on a push to main/);
    expect(gate({ event: 'push', ref: 'refs/heads/dev' }).run).toBe(false);
    expect(gate({ event: 'pull_request', action: 'opened', labels: ['full-sweep-enabled'] }).reasons[0]).toMatch(
      /opened does not start a sweep/,
    );
    expect(gate({ event: 'issue_comment' }).reasons[0]).toBe('issue_comment events do not start a sweep');
  });
});
