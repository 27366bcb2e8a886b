/**
 * A small local GitHub Actions runner for tests: it runs a workflow's jobs in dependency order for
 * a recorded event, as separate runners would: each job in its own clone of the repository, `run:`
 * steps with bash, artifacts passed between jobs only through an artifact store. It emulates what
 * Frontier's generated workflows use: actions/checkout and actions/setup-node (the clone is the
 * checkout; the host's Node runs), actions/upload-artifact and actions/download-artifact (v4
 * layout), reusable workflows (`uses: ./.github/workflows/X.yml`, matrix rows included), job
 * outputs, `needs.*.result`, `if:` with status checks, a dispatched workflow's inputs (the event's `inputs`, else the defaults). `frontier` on the PATH runs the built CLI (so
 * the step named "Install Frontier" is skipped), and `gh` is test/support/gh-stand-in.mjs, answering
 * `gh api` from recorded JSON and from the jobs this runner ran, and `gh run download` from other runs' artifacts
 * given to it. `runs-on` is ignored: all runs here.
 */
import { parseGithubOutput } from '../../src/ci/output.js';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { condition, expand, interpolate, toText } from './actions-expressions.js';
import type { Scope, Value } from './actions-expressions.js';

const GH_STAND_IN = fileURLToPath(new URL('./gh-stand-in.mjs', import.meta.url));

export type Conclusion = 'success' | 'failure' | 'skipped' | 'cancelled';

export interface StepRecord {
  name: string;
  conclusion: Conclusion;
  outputs: Record<string, string>;
  /** stdout and stderr of a `run:` step; what an emulated action did. */
  log: string;
}

/** One job as GitHub lists it: a runner job, or a skipped job (a skipped caller of a reusable workflow included). */
export interface JobRecord {
  /** Where it comes from: `plan`, `canary/benchmark`, `sweep[3]/benchmark`. */
  path: string;
  name: string;
  conclusion: Conclusion;
  outputs: Record<string, string>;
  steps: StepRecord[];
}

export interface RunOptions {
  /** The repository (a git work tree); every job runs in a clone of it at `sha`. */
  repo: string;
  sha: string;
  /** The workflow file, relative to the repository. */
  workflow: string;
  eventName: string;
  /** The event payload (JSON text), as GITHUB_EVENT_PATH holds it. */
  event: string;
  /** The built CLI the `frontier` on the PATH runs. */
  frontier: string;
  runId?: number;
  secrets?: Record<string, string>;
  /** Added to every step's environment (the runner machine's own). */
  env?: Record<string, string>;
  /** Recorded `gh api` answers: a path pattern (a regex, relative to repos/OWNER/REPO/) → the JSON answer. */
  api?: Record<string, unknown>;
  /** Steps not run, by name (the runner provides what they install). */
  skipSteps?: readonly string[];
  /** Other runs' artifacts for `gh run download RUN`: run id → a folder holding one folder per artifact. */
  runArtifacts?: Record<string, string>;
}

export interface RunResult {
  /** The jobs in the order they ran (or were skipped). */
  jobs: JobRecord[];
  /** What each workflow-level job (the callers of reusable workflows included) concluded. */
  results: Record<string, Conclusion>;
  artifacts: string[];
  /** The files of an artifact, relative paths → absolute. */
  artifact(name: string): Record<string, string>;
  /** Every `gh` call's argv. */
  gh: string[][];
  /** `gh pr comment` bodies ({ pr, body }) and comment edits ({ edit, body }). */
  comments: { pr?: number; edit?: number; body: string }[];
  /** Everything steps appended to GITHUB_STEP_SUMMARY. */
  summary: string;
}

interface Workflow {
  env?: Record<string, unknown>;
  on?: {
    workflow_call?: { inputs?: Record<string, { type?: string; default?: unknown }> };
    workflow_dispatch?: { inputs?: Record<string, { type?: string; default?: unknown }> };
  };
  jobs: Record<string, JobSpec>;
}

interface JobSpec {
  name?: string;
  needs?: string | string[];
  if?: unknown;
  uses?: string;
  with?: Record<string, unknown>;
  secrets?: unknown;
  strategy?: { matrix?: unknown; 'fail-fast'?: unknown; 'max-parallel'?: unknown };
  env?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  steps?: StepSpec[];
}

interface StepSpec {
  id?: string;
  name?: string;
  if?: unknown;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  'continue-on-error'?: boolean;
}

interface JobResult {
  result: Conclusion;
  outputs: Record<string, string>;
}

/** Everything a workflow's jobs share: the run's contexts and where it keeps things. */
interface Run {
  o: RunOptions;
  root: string;
  bin: string;
  ghDir: string;
  store: string;
  eventPath: string;
  runId: number;
  github: Record<string, Value>;
  jobs: JobRecord[];
  summary: string[];
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A glob as a regex over slash-separated relative paths: `*`, `**`, `?`, `{a,b}`. */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') re += '(?:';
    else if (c === '}') re += ')';
    else if (c === ',' && re.includes('(?:')) re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(dir: string, base = dir): { files: string[]; dirs: string[] } {
  const out = { files: [] as string[], dirs: [] as string[] };
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    const full = join(dir, entry.name);
    const rel = relative(base, full).split(sep).join('/');
    if (entry.isDirectory()) {
      out.dirs.push(rel);
      const sub = walk(full, base);
      out.files.push(...sub.files);
      out.dirs.push(...sub.dirs);
    } else out.files.push(rel);
  }
  return out;
}

const HAS_GLOB = /[*?[{]/;

/**
 * upload-artifact v4's file set: each (multi-line) path is a file, a directory (everything under it)
 * or a glob; files are stored relative to the least common ancestor of the search roots (a glob's
 * root is the part before its first wildcard segment; a file's, its directory). Hidden files are left out.
 */
export function artifactFiles(workdir: string, paths: string): { root: string; files: string[] } {
  const all = walk(workdir);
  const files = new Set<string>();
  const roots: string[] = [];
  for (const line of paths.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('!')) continue;
    const pattern = line.replace(/^\.\//, '').replace(/\/+$/, '');
    const under = (d: string) => all.files.filter((f) => f.startsWith(`${d}/`));
    if (!HAS_GLOB.test(pattern)) {
      const full = join(workdir, pattern);
      if (!existsSync(full)) continue;
      const isDir = statSync(full).isDirectory();
      roots.push(isDir ? pattern : dirname(pattern));
      for (const f of isDir ? under(pattern) : [pattern]) files.add(f);
      continue;
    }
    const segments = pattern.split('/');
    roots.push(
      segments
        .slice(
          0,
          segments.findIndex((s) => HAS_GLOB.test(s)),
        )
        .join('/'),
    );
    const re = globRegExp(pattern);
    for (const f of all.files) if (re.test(f)) files.add(f);
    for (const d of all.dirs) if (re.test(d)) for (const f of under(d)) files.add(f);
  }
  const split = roots.map((r) => (r === '' || r === '.' ? [] : r.split('/')));
  const common: string[] = [];
  for (let i = 0; split.length > 0 && split.every((s) => i < s.length && s[i] === split[0]![i]); i++) common.push(split[0]![i]!);
  const root = common.join('/');
  const visible = [...files].filter(
    (f) =>
      !relative(root, f)
        .split('/')
        .some((s) => s.startsWith('.')),
  );
  return { root, files: visible.sort() };
}

const readOutputFile = (file: string): Record<string, string> =>
  existsSync(file) ? parseGithubOutput(readFileSync(file, 'utf8')) : {};

/** The jobs listing (`GET …/actions/runs/ID/jobs`) as GitHub answers it, from the jobs run so far and the one running. */
function jobsListing(run: Run, running?: { name: string; steps: StepRecord[] }) {
  const now = new Date().toISOString();
  const entry = (j: { name: string; conclusion: Conclusion | null; steps: StepRecord[] }, i: number) => ({
    id: run.runId * 100 + i + 1,
    run_id: run.runId,
    run_attempt: 1,
    workflow_name: 'Frontier sweep',
    head_sha: run.o.sha,
    name: j.name,
    status: j.conclusion === null ? 'in_progress' : 'completed',
    conclusion: j.conclusion,
    started_at: now,
    completed_at: j.conclusion === null ? null : now,
    steps: j.steps.map((s, n) => ({ name: s.name, status: 'completed', conclusion: s.conclusion, number: n + 1 })),
  });
  const jobs = [
    ...run.jobs.map((j, i) => entry(j, i)),
    ...(running ? [entry({ ...running, conclusion: null }, run.jobs.length)] : []),
  ];
  return { total_count: jobs.length, jobs };
}

function writeRoutes(run: Run, running?: { name: string; steps: StepRecord[] }): void {
  const event = JSON.parse(run.o.event) as { pull_request?: Record<string, unknown> };
  const commits = git(run.o.repo, 'log', '--format=%H%x00%s', `${run.o.sha}`, '-n', '20')
    .split('\n')
    .reverse()
    .map((l) => ({ sha: l.split('\0')[0], commit: { message: l.split('\0')[1] } }));
  const defaults: Record<string, unknown> = {
    'commits/[0-9a-f]+/pulls': event.pull_request ? [event.pull_request] : [],
    'pulls/[0-9]+': event.pull_request ?? {},
    'issues/[0-9]+/comments': [],
    'pulls/[0-9]+/commits': commits,
    'actions/workflows/[^/]+/runs': { total_count: 0, workflow_runs: [] },
    'actions/runs/[0-9]+/artifacts': { total_count: 0, artifacts: [] },
    [`actions/runs/${run.runId}/jobs`]: jobsListing(run, running),
  };
  const answers = { ...defaults, ...run.o.api };
  // Recorded answers first: they are the more specific.
  const routes = [...Object.keys(run.o.api ?? {}), ...Object.keys(defaults).filter((k) => !(k in (run.o.api ?? {})))].map(
    (path) => ({ path, answer: answers[path] }),
  );
  writeFileSync(join(run.ghDir, 'routes.json'), JSON.stringify({ routes }));
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The matrix's rows: the product of its keys' lists, then `include` rows, less `exclude` matches. */
function matrixRows(matrix: Value): Record<string, Value>[] {
  if (matrix === null || typeof matrix !== 'object' || Array.isArray(matrix)) throw new Error('strategy.matrix is not a mapping');
  const { include, exclude, ...axes } = matrix;
  let rows: Record<string, Value>[] = [{}];
  for (const [key, values] of Object.entries(axes)) {
    if (!Array.isArray(values)) throw new Error(`strategy.matrix.${key} is not a list`);
    rows = rows.flatMap((r) => values.map((v) => ({ ...r, [key]: v })));
  }
  if (Object.keys(axes).length === 0) rows = [];
  const matches = (r: Record<string, Value>, e: Value) =>
    e !== null && typeof e === 'object' && Object.entries(e).every(([k, v]) => JSON.stringify(r[k]) === JSON.stringify(v));
  if (Array.isArray(exclude)) rows = rows.filter((r) => !exclude.some((e) => matches(r, e)));
  if (Array.isArray(include)) rows.push(...(include as Record<string, Value>[]));
  return rows;
}

function copyTree(from: string, files: string[], to: string): void {
  for (const f of files) {
    mkdirSync(dirname(join(to, f)), { recursive: true });
    copyFileSync(join(from, f), join(to, f));
  }
}

/** An emulated action; returns its log, or throws to fail the step. */
function action(run: Run, uses: string, inputs: Record<string, string>, workdir: string): string {
  const [name] = uses.split('@');
  switch (name) {
    case 'actions/checkout':
      return `the job's clone at ${run.o.sha} is the checkout`;
    case 'actions/setup-node':
      return `node ${process.version} from the host`;
    case 'actions/upload-artifact': {
      const artifact = inputs.name || 'artifact';
      if (!/^[^"<>:|*?\\/\r\n]+$/.test(artifact)) throw new Error(`invalid artifact name "${artifact}"`);
      const { root, files } = artifactFiles(workdir, inputs.path ?? '');
      if (files.length === 0) {
        const onNone = inputs['if-no-files-found'] || 'warn';
        if (onNone === 'error') throw new Error(`no files were found with the provided path: ${inputs.path}`);
        return `no files were found with the provided path: ${inputs.path}. No artifacts will be uploaded. (${onNone})`;
      }
      const target = join(run.store, artifact);
      if (existsSync(target)) throw new Error(`an artifact with the name "${artifact}" already exists in this run`);
      copyTree(
        join(workdir, root),
        files.map((f) => relative(root, f)),
        target,
      );
      return `uploaded ${artifact}: ${files.length} file(s) from ${root || '.'}`;
    }
    case 'actions/download-artifact': {
      const into = join(workdir, inputs.path || '.');
      const stored = existsSync(run.store) ? readdirSync(run.store).sort() : [];
      if (inputs.name) {
        if (!stored.includes(inputs.name)) throw new Error(`Artifact not found for name: ${inputs.name}`);
        cpSync(join(run.store, inputs.name), into, { recursive: true });
        return `downloaded ${inputs.name} into ${inputs.path || '.'}`;
      }
      const re = inputs.pattern ? globRegExp(inputs.pattern) : /.*/;
      const chosen = stored.filter((a) => re.test(a));
      for (const a of chosen)
        cpSync(join(run.store, a), inputs['merge-multiple'] === 'true' ? into : join(into, a), { recursive: true });
      return `downloaded ${chosen.length} artifact(s): ${chosen.join(', ')}`;
    }
    default:
      throw new Error(`the runner does not emulate ${uses}`);
  }
}

interface JobContext {
  /** The job's contexts before steps: github, needs, inputs, secrets, matrix, strategy, env (workflow's). */
  contexts: Record<string, Value>;
  workflowEnv: Record<string, string>;
  name: string;
  path: string;
}

const envStrings = (v: Value): Record<string, string> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toText(x)]))
    : {};

/** Run one job's steps in a fresh clone; record it. */
function runSteps(run: Run, spec: JobSpec, job: JobContext): JobResult {
  const work = mkdtempSync(join(run.root, 'job-'));
  const workdir = join(work, 'repo');
  const temp = join(work, 'tmp');
  mkdirSync(temp);
  git(run.root, 'clone', '-q', '--no-hardlinks', run.o.repo, workdir);
  git(workdir, 'checkout', '-q', '--detach', run.o.sha);

  const steps: StepRecord[] = [];
  const stepsContext: Record<string, Value> = {};
  let failed = false;
  const scopeOf = (env: Record<string, string>): Scope => ({
    contexts: {
      ...job.contexts,
      env,
      steps: stepsContext,
      runner: { os: 'Linux', temp },
      job: { status: failed ? 'failure' : 'success' },
    },
    status: { success: !failed, failure: failed, cancelled: false },
  });
  const jobEnv = { ...job.workflowEnv, ...envStrings(expand(spec.env ?? {}, scopeOf(job.workflowEnv))) };
  const record = { name: job.name, steps };
  for (const [n, step] of (spec.steps ?? []).entries()) {
    const name = interpolate(step.name ?? step.uses ?? `Run ${(step.run ?? '').split('\n')[0]}`, scopeOf(jobEnv));
    const env = { ...jobEnv, ...envStrings(expand(step.env ?? {}, scopeOf(jobEnv))) };
    const scope = scopeOf(env);
    const done = (conclusion: Conclusion, log: string, outputs: Record<string, string> = {}) => {
      steps.push({ name, conclusion, outputs, log });
      if (step.id) stepsContext[step.id] = { outputs, outcome: conclusion, conclusion };
      if (conclusion === 'failure' && !step['continue-on-error']) failed = true;
    };
    if (!condition(step.if, scope)) {
      done('skipped', '');
      continue;
    }
    if ((run.o.skipSteps ?? ['Install Frontier']).includes(name)) {
      done('skipped', 'not run: the runner puts frontier on the PATH');
      continue;
    }
    if (step.uses) {
      try {
        done('success', action(run, step.uses, envStrings(expand(step.with ?? {}, scope)), workdir));
      } catch (e) {
        done('failure', (e as Error).message);
      }
      continue;
    }
    const script = join(temp, `step-${n}.sh`);
    const output = join(temp, `output-${n}`);
    const summary = join(temp, `summary-${n}`);
    writeFileSync(script, interpolate(step.run ?? '', scope));
    writeFileSync(output, '');
    writeFileSync(summary, '');
    writeRoutes(run, record);
    const r = spawnSync('bash', ['--noprofile', '--norc', '-e', script], {
      cwd: workdir,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      env: {
        PATH: `${run.bin}:${process.env.PATH}`,
        HOME: process.env.HOME,
        LANG: 'C.UTF-8',
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: run.o.eventName,
        GITHUB_EVENT_PATH: run.eventPath,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_REPOSITORY: toText(run.github.repository ?? null),
        GITHUB_RUN_ID: String(run.runId),
        GITHUB_RUN_ATTEMPT: '1',
        GITHUB_SHA: run.o.sha,
        GITHUB_REF: toText(run.github.ref ?? null),
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_WORKSPACE: workdir,
        GITHUB_JOB: job.path,
        RUNNER_OS: 'Linux',
        RUNNER_TEMP: temp,
        FAKE_GH_DIR: run.ghDir,
        ...run.o.env,
        ...env,
      },
    });
    run.summary.push(readFileSync(summary, 'utf8'));
    const log = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`;
    done(r.status === 0 ? 'success' : 'failure', log, readOutputFile(output));
  }
  const conclusion: Conclusion = failed ? 'failure' : 'success';
  const outputs = envStrings(expand(spec.outputs ?? {}, scopeOf(jobEnv)));
  run.jobs.push({ path: job.path, name: job.name, conclusion, outputs, steps });
  return { result: conclusion, outputs };
}

function readWorkflow(run: Run, file: string): Workflow {
  return parseYaml(git(run.o.repo, 'show', `${run.o.sha}:${file.replace(/^\.\//, '')}`)) as Workflow;
}

/** Inputs of a reusable workflow: `with:` values, typed as the called workflow declares them, defaults filled in. */
function callInputs(called: Workflow, given: Record<string, Value>): Record<string, Value> {
  const declared = called.on?.workflow_call?.inputs ?? {};
  const out: Record<string, Value> = {};
  for (const [key, d] of Object.entries(declared)) {
    const v = key in given ? given[key]! : ((d.default ?? null) as Value);
    out[key] = d.type === 'boolean' ? v === true || v === 'true' : d.type === 'number' ? Number(v) : toText(v);
  }
  for (const key of Object.keys(given))
    if (!(key in declared)) throw new Error(`input "${key}" is not declared by the called workflow`);
  return out;
}

/** Run a workflow's jobs in dependency order; the names of a called workflow's jobs carry the caller's (`caller / job`). */
function runWorkflow(
  run: Run,
  wf: Workflow,
  inputs: Record<string, Value>,
  prefix: { name: string; path: string },
): Record<string, JobResult> {
  const results: Record<string, JobResult> = {};
  const pending = Object.keys(wf.jobs);
  const ancestors = (id: string): string[] => asList(wf.jobs[id]!.needs).flatMap((n) => [n, ...ancestors(n)]);
  while (pending.length > 0) {
    const id = pending.find((j) => asList(wf.jobs[j]!.needs).every((n) => n in results));
    if (id === undefined) throw new Error(`jobs wait on each other: ${pending.join(', ')}`);
    pending.splice(pending.indexOf(id), 1);
    const spec = wf.jobs[id]!;
    const needs = Object.fromEntries(
      asList(spec.needs).map((n) => [n, { result: results[n]!.result, outputs: results[n]!.outputs }]),
    ) as Record<string, Value>;
    const upstream = [...new Set(ancestors(id))].map((n) => results[n]!.result);
    const workflowEnv = envStrings(
      expand(wf.env ?? {}, {
        contexts: { github: run.github, inputs, secrets: run.o.secrets ?? {} },
        status: { success: true, failure: false, cancelled: false },
      }),
    );
    const contexts: Record<string, Value> = { github: run.github, needs, inputs, secrets: run.o.secrets ?? {}, env: workflowEnv };
    const scope: Scope = {
      contexts,
      status: {
        success: upstream.every((r) => r === 'success'),
        failure: upstream.some((r) => r === 'failure'),
        cancelled: false,
      },
    };
    const path = `${prefix.path}${id}`;
    const baseName = spec.name === undefined ? id : interpolate(spec.name, scope);
    if (!condition(spec.if, scope)) {
      run.jobs.push({ path, name: `${prefix.name}${baseName}`, conclusion: 'skipped', outputs: {}, steps: [] });
      results[id] = { result: 'skipped', outputs: {} };
      continue;
    }
    const rows = spec.strategy?.matrix === undefined ? [null] : matrixRows(expand(spec.strategy.matrix, scope));
    const failFast = spec.strategy === undefined ? true : truthyText(expand(spec.strategy['fail-fast'] ?? true, scope));
    const outcomes: Conclusion[] = [];
    let outputs: Record<string, string> = {};
    for (const [i, row] of rows.entries()) {
      const rowContexts: Record<string, Value> = {
        ...contexts,
        matrix: row ?? {},
        strategy: { 'job-index': i, 'job-total': rows.length, 'fail-fast': failFast, 'max-parallel': rows.length },
      };
      const rowScope: Scope = { ...scope, contexts: rowContexts };
      const label =
        row === null
          ? ''
          : ` (${Object.values(row)
              .map((v) => (typeof v === 'object' ? JSON.stringify(v) : toText(v)))
              .join(', ')})`;
      const name = `${prefix.name}${spec.name === undefined ? id : interpolate(spec.name, rowScope)}${label}`;
      const rowPath = `${path}${row === null ? '' : `[${i}]`}`;
      if (failFast && outcomes.includes('failure')) {
        run.jobs.push({ path: rowPath, name, conclusion: 'cancelled', outputs: {}, steps: [] });
        outcomes.push('cancelled');
        continue;
      }
      if (spec.uses) {
        const called = readWorkflow(run, spec.uses);
        const given = expand(spec.with ?? {}, rowScope) as Record<string, Value>;
        const inner = runWorkflow(run, called, callInputs(called, given), { name: `${name} / `, path: `${rowPath}/` });
        const innerResults = Object.values(inner).map((r) => r.result);
        outcomes.push(
          innerResults.includes('failure') ? 'failure' : innerResults.includes('cancelled') ? 'cancelled' : 'success',
        );
      } else {
        const r = runSteps(run, spec, { contexts: rowContexts, workflowEnv, name, path: rowPath });
        outcomes.push(r.result);
        outputs = { ...outputs, ...r.outputs };
      }
    }
    const result: Conclusion = outcomes.includes('failure')
      ? 'failure'
      : outcomes.includes('cancelled')
        ? 'cancelled'
        : 'success';
    results[id] = { result, outputs };
  }
  return results;
}

const truthyText = (v: Value): boolean => v === true || v === 'true';

/** Run `o.workflow` for the event; every job's clone, the artifact store and the gh log live under one temporary folder. */
export function runWorkflowLocally(o: RunOptions): RunResult {
  const root = mkdtempSync(join(tmpdir(), 'frontier-actions-'));
  const bin = join(root, 'bin');
  const ghDir = join(root, 'gh');
  const store = join(root, 'artifacts');
  for (const d of [bin, ghDir, store]) mkdirSync(d);
  writeFileSync(join(bin, 'frontier'), `#!/bin/sh\nexec "${process.execPath}" "${o.frontier}" "$@"\n`);
  writeFileSync(join(bin, 'gh'), `#!/bin/sh\nexec "${process.execPath}" "${GH_STAND_IN}" "$@"\n`);
  for (const f of ['frontier', 'gh']) chmodSync(join(bin, f), 0o755);
  const eventPath = join(root, 'event.json');
  writeFileSync(eventPath, o.event);
  const payload = JSON.parse(o.event) as Record<string, Value> & {
    repository?: { full_name?: string };
    pull_request?: Record<string, Value>;
  };
  const runId = o.runId ?? 4242;
  const pr = payload.pull_request as { number?: number; head?: { ref?: string }; base?: { ref?: string } } | undefined;
  const github: Record<string, Value> = {
    event_name: o.eventName,
    event: payload,
    sha: o.sha,
    ref: pr ? `refs/pull/${pr.number}/merge` : 'refs/heads/main',
    head_ref: pr?.head?.ref ?? '',
    base_ref: pr?.base?.ref ?? '',
    repository: payload.repository?.full_name ?? 'owner/repo',
    run_id: String(runId),
    run_attempt: '1',
    server_url: 'https://github.com',
    token: 'ghs_stand-in',
    actor: 'frontier-test',
    workflow: o.workflow,
  };
  const run: Run = { o, root, bin, ghDir, store, eventPath, runId, github, jobs: [], summary: [] };
  writeFileSync(join(ghDir, 'calls.jsonl'), '');
  writeFileSync(join(ghDir, 'comments.jsonl'), '');
  writeFileSync(join(ghDir, 'run-artifacts.json'), JSON.stringify(o.runArtifacts ?? {}));
  const wf = parseYaml(readFileSync(join(o.repo, o.workflow), 'utf8')) as Workflow;
  // A dispatched workflow's inputs: the event's, else each declared input's default.
  const dispatched =
    o.eventName === 'workflow_dispatch'
      ? callInputs(
          { on: { workflow_call: wf.on?.workflow_dispatch } } as Workflow,
          (payload.inputs ?? {}) as Record<string, Value>,
        )
      : {};
  const top = runWorkflow(run, wf, dispatched, { name: '', path: '' });
  const lines = (file: string) =>
    readFileSync(join(ghDir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
  return {
    jobs: run.jobs,
    results: Object.fromEntries(Object.entries(top).map(([k, v]) => [k, v.result])),
    artifacts: readdirSync(store).sort(),
    artifact: (name) => Object.fromEntries(walk(join(store, name)).files.map((f) => [f, join(store, name, f)])),
    gh: lines('calls.jsonl') as string[][],
    comments: lines('comments.jsonl') as RunResult['comments'],
    summary: run.summary.join(''),
  };
}
