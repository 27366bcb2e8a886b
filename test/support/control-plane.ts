/**
 * A static check of a `pull_request_target` (or `issue_comment`: see Trigger) workflow: such a workflow runs with this repository's
 * token (and could read its secrets) on an event any fork can cause, so no step of it may check
 * out, fetch or run the pull request's code, nor hold a secret. Every step of every job is walked:
 * its `uses:` (only the default branch may be checked out; no local actions or workflows; only the
 * actions a control plane needs), its `run:` script (no fetching the PR's commits, no running
 * files of the workspace, no package scripts), and the expressions in its `run:`, `env:` and
 * `with:` (none naming the PR's head). Returns the problems in words, `job › step: …`.
 */
type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/** Checkout refs a control plane may name: the repository's own trusted commits, never the PR's. */
const SAFE_REFS = ['${{ github.event.repository.default_branch }}', '${{ github.sha }}'];
/** Actions a control plane needs (besides a checkout of the default branch). */
const SAFE_ACTIONS = ['actions/setup-node'];

/** Expressions that name the pull request's code (its head commit, branch or repository, or the merge commit of it). */
const PR_CODE = /github\.event\.pull_request\.head\.|github\.head_ref|merge_commit_sha/;
/** Shell that puts commits in the workspace as files. */
const CHECKS_OUT = /\bgit\s+(clone|checkout|switch|worktree|pull)\b|\bgh\s+(pr\s+checkout|repo\s+clone)\b/;
/** Shell that fetches the pull request's commits (as data: a diff reads them). */
const FETCHES = /\bgit\s+fetch\b|refs\/pull\/|\bpull\/\$|\bgh\s+pr\s+diff\b/;
/** Shell that runs a file of the workspace or a package's scripts. */
const RUNS_WORKSPACE =
  /(^|[\s;&|(`])\.\/|\b(npx|yarn|pnpm|make|python3?|pip3?|source|node)\s|\b(bash|sh)\s+[^-\s]|\bnpm\s+(ci|run|test|exec|start|install(?!\s+--global))\b/m;

/**
 * How strict: a `pull_request_target` workflow is a control plane (no secret, no commit of the PR
 * fetched at all); a workflow a comment starts (`issue_comment`) may hold the store's secret and
 * fetch the PR's commits as data (a sign-off diffs them), but never checks out or runs them.
 */
type Trigger = 'pull_request_target' | 'issue_comment';

function stepProblems(where: string, step: Json, trigger: Trigger): string[] {
  const problems: string[] = [];
  const uses = typeof step.uses === 'string' ? step.uses : undefined;
  const withs = obj(step.with);
  if (uses !== undefined) {
    const action = uses.split('@')[0]!;
    if (uses.startsWith('./'))
      problems.push(`${where}: uses ${uses}, a local action or workflow: it is the code of whatever was checked out`);
    else if (action === 'actions/checkout') {
      const ref = withs.ref;
      if (ref !== undefined && !SAFE_REFS.includes(String(ref)))
        problems.push(`${where}: checks out ${String(ref)}: only the default branch may be checked out`);
      if (withs.repository !== undefined && withs.repository !== '${{ github.repository }}')
        problems.push(`${where}: checks out the repository ${String(withs.repository)}`);
    } else if (!SAFE_ACTIONS.includes(action))
      problems.push(`${where}: uses ${uses}: a control plane runs only frontier and gh (actions: checkout, setup-node)`);
  }
  const run = typeof step.run === 'string' ? step.run : '';
  const fetches = trigger === 'pull_request_target' ? FETCHES.exec(run) : null;
  const checksOut = CHECKS_OUT.exec(run) ?? fetches;
  if (checksOut) problems.push(`${where}: its script fetches commits (${checksOut[0].trim()})`);
  if (RUNS_WORKSPACE.test(run))
    problems.push(`${where}: its script runs code of the workspace (${RUNS_WORKSPACE.exec(run)![0].trim()})`);
  const values = [run, ...Object.values(obj(step.env)).map(String), ...Object.values(withs).map(String)];
  const named = values.find((v) => PR_CODE.test(v));
  if (named !== undefined) problems.push(`${where}: names the pull request's code: ${named.match(PR_CODE)![0]}…`);
  return problems;
}

/**
 * The problems of `workflow` (parsed YAML); [] for a workflow that runs on neither
 * pull_request_target nor issue_comment (the events any fork or commenter causes with this
 * repository's token).
 */
export function controlPlaneProblems(workflow: unknown): string[] {
  const wf = obj(workflow);
  const on = obj(wf.on);
  const trigger: Trigger | undefined =
    'pull_request_target' in on ? 'pull_request_target' : 'issue_comment' in on ? 'issue_comment' : undefined;
  if (trigger === undefined) return [];
  const problems: string[] = [];
  const secrets = JSON.stringify(wf).match(/secrets\.(?!GITHUB_TOKEN\b)[A-Za-z_][A-Za-z0-9_]*/g);
  if (secrets && trigger === 'pull_request_target')
    problems.push(`reads ${[...new Set(secrets)].join(', ')}: a control plane holds no secret`);
  for (const [id, job] of Object.entries(obj(wf.jobs))) {
    const spec = obj(job);
    if (typeof spec.uses === 'string') problems.push(`${id}: calls ${spec.uses}, a workflow that runs with this event's token`);
    const jobEnv = Object.values(obj(spec.env))
      .map(String)
      .find((v) => PR_CODE.test(v));
    if (jobEnv !== undefined) problems.push(`${id}: its env names the pull request's code: ${jobEnv}`);
    const steps = Array.isArray(spec.steps) ? spec.steps : [];
    for (const [i, step] of steps.entries()) {
      const s = obj(step);
      problems.push(...stepProblems(`${id} › ${typeof s.name === 'string' ? s.name : `step ${i + 1}`}`, s, trigger));
    }
  }
  return problems;
}
