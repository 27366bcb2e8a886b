/**
 * Are a reused sweep's artifacts consistent with themselves? Every point appears once; the
 * agentic aggregate holds exactly the agentic points, each with its raw artifact; the eval
 * aggregate holds exactly the raw evals; fixed-sequence results come with run stats. The source
 * run's coverage is authoritative (a point that failed is simply absent), so missing matrix rows
 * are reported, never refused (see coverage.ts).
 */
import type { ArtifactSet, JsonFile } from './artifact-set.js';
import type { Identity } from './identity.js';
import { agenticKey, benchmarkKey, evalKey, identityText } from './identity.js';
import { identityRepr as pyRepr } from './py-repr.js';

type Row = Record<string, unknown>;

export const ARTIFACT_PROBLEMS = {
  'duplicate-rows': 'a point appears more than once: remove the extra upload (or re-run the failed job once) and download again',
  'aggregate-mismatch':
    'the aggregate and the per-point artifacts disagree: re-run the collect job of the source run so the aggregate is rebuilt from the points',
  'raw-agentic-missing':
    'an agentic point has no raw agentic_* artifact: re-run that agentic job, or pin a run where it uploaded both',
  'raw-agentic-unexpected': 'a raw agentic_* artifact has no point result: re-run that agentic job, or remove the stray artifact',
  'eval-meta-missing': 'a raw eval artifact lacks meta_env.json: re-run that eval job',
  'eval-meta-invalid': 'a raw eval artifact’s meta_env.json is not a JSON object: re-run that eval job',
  'eval-batch-invalid': 'a batched eval artifact lists eval_concs but no completed_eval_concs list: re-run that eval job',
  'eval-aggregate-missing': 'raw evals exist but eval_results_all does not: re-run the collect-evals job of the source run',
  'eval-aggregate-empty': 'eval_results_all holds no rows: re-run the collect-evals job of the source run',
  'run-stats-missing': 'fixed-sequence results need the run-stats artifact: re-run the calc-success-rate job of the source run',
  'no-result-rows':
    'the artifacts hold no benchmark, agentic or eval row: download the source run’s artifacts (gh run download RUN_ID -D DIR)',
} as const;

export type ArtifactProblemCode = keyof typeof ARTIFACT_PROBLEMS;

export interface ArtifactProblem {
  code: ArtifactProblemCode;
  /** The reference's sentence (utils/validate_reusable_sweep_artifacts.py). */
  message: string;
  /** The rows concerned, first 20, as the reference prints them. */
  details: string[];
  hint: string;
}

const problem = (code: ArtifactProblemCode, message: string, details: string[] = []): ArtifactProblem => ({
  code,
  message,
  details,
  hint: ARTIFACT_PROBLEMS[code],
});

/** Rows of aggregate or point files: a file holds one row or a list of rows. */
export function rowsOf(files: readonly JsonFile[]): Row[] {
  const out: Row[] = [];
  for (const f of files) {
    const rows = Array.isArray(f.data) ? f.data : [f.data];
    for (const r of rows) if (r !== null && typeof r === 'object' && !Array.isArray(r)) out.push(r as Row);
  }
  return out;
}

const isAgentic = (row: Row): boolean => row.scenario_type === 'agentic-coding';

export const fixedRows = (set: ArtifactSet): Identity[] =>
  rowsOf(set.resultsBmk ?? [])
    .filter((r) => !isAgentic(r))
    .map(benchmarkKey);
export const agenticPointRows = (set: ArtifactSet): Identity[] => rowsOf(set.agenticPoints).filter(isAgentic).map(agenticKey);

const byRepr = (a: Identity, b: Identity): number => {
  const x = pyRepr(a);
  const y = pyRepr(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

const uniqueByText = (ids: readonly Identity[]): Map<string, Identity> => new Map(ids.map((id) => [identityText(id), id]));

function listed(prefix: string, ids: Identity[], more: (n: number) => string): string[] {
  const lines = ids
    .sort(byRepr)
    .slice(0, 20)
    .map((id) => `${prefix}${pyRepr(id)}`);
  if (ids.length > 20) lines.push(more(ids.length - 20));
  return lines;
}

/** Exact set comparison: the rows `expected` has that `actual` lacks, and the reverse. */
export function identitySetProblems(
  label: string,
  expected: readonly Identity[],
  actual: readonly Identity[],
): ArtifactProblem[] {
  const e = uniqueByText(expected);
  const a = uniqueByText(actual);
  const missing = [...e].filter(([k]) => !a.has(k)).map(([, v]) => v);
  const extra = [...a].filter(([k]) => !e.has(k)).map(([, v]) => v);
  const out: ArtifactProblem[] = [];
  if (missing.length > 0)
    out.push(
      problem(
        'aggregate-mismatch',
        `${label} artifacts are missing ${missing.length} expected row(s)`,
        listed('missing: ', missing, (n) => `... and ${n} more`),
      ),
    );
  if (extra.length > 0)
    out.push(
      problem(
        'aggregate-mismatch',
        `${label} artifacts contain ${extra.length} unexpected row(s)`,
        listed('unexpected: ', extra, (n) => `... and ${n} more`),
      ),
    );
  return out;
}

/** Rows that appear more than once (a set comparison would hide them). */
export function duplicateProblems(label: string, ids: readonly Identity[]): ArtifactProblem[] {
  const counts = new Map<string, { id: Identity; n: number }>();
  for (const id of ids) {
    const k = identityText(id);
    const c = counts.get(k);
    if (c) c.n += 1;
    else counts.set(k, { id, n: 1 });
  }
  const dups = [...counts.values()].filter((c) => c.n > 1).sort((x, y) => byRepr(x.id, y.id));
  if (dups.length === 0) return [];
  const extra = dups.reduce((s, c) => s + c.n - 1, 0);
  const details = dups.slice(0, 20).map((c) => `duplicate x${c.n}: ${pyRepr(c.id)}`);
  if (dups.length > 20) details.push(`... and ${dups.length - 20} more identities`);
  return [problem('duplicate-rows', `${label} artifacts contain ${extra} duplicate row(s)`, details)];
}

export const fixedProblems = (set: ArtifactSet): ArtifactProblem[] => duplicateProblems('fixed-sequence', fixedRows(set));

export function agenticProblems(set: ArtifactSet): ArtifactProblem[] {
  const points = agenticPointRows(set);
  const out = duplicateProblems('agentic point', points);
  if (set.resultsBmk !== undefined) {
    const aggregate = rowsOf(set.resultsBmk).filter(isAgentic).map(agenticKey);
    out.push(
      ...duplicateProblems('agentic aggregate', aggregate),
      ...identitySetProblems('agentic aggregate', points, aggregate),
    );
  }
  const pointNames = new Set(set.agenticPoints.map((f) => f.path.split('/')[0]!.replace(/^bmk_/, '')));
  const rawNames = new Set(set.rawAgenticDirs);
  for (const name of [...pointNames].filter((n) => !rawNames.has(n)).sort())
    out.push(problem('raw-agentic-missing', `missing raw agentic artifact dir: ${name}`));
  for (const name of [...rawNames].filter((n) => !pointNames.has(n)).sort())
    out.push(problem('raw-agentic-unexpected', `unexpected raw agentic artifact dir: ${name}`));
  return out;
}

/** The eval identities the raw eval artifacts stand for (a batched one: one per completed conc). */
export function rawEvalRows(set: ArtifactSet): { rows: Identity[]; problems: ArtifactProblem[] } {
  const rows: Identity[] = [];
  const problems: ArtifactProblem[] = [];
  for (const dir of set.rawEvals) {
    const name = pyRepr(dir.name);
    if (dir.meta.kind === 'missing') {
      problems.push(problem('eval-meta-missing', `raw eval artifact ${name} is missing meta_env.json`));
      continue;
    }
    if (dir.meta.kind === 'invalid') {
      problems.push(problem('eval-meta-invalid', `raw eval artifact ${name} has invalid meta_env.json: ${dir.meta.error}`));
      continue;
    }
    const meta = dir.meta.value;
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
      problems.push(problem('eval-meta-invalid', `raw eval artifact ${name} has non-object meta_env.json`));
      continue;
    }
    const m = meta as Row;
    if (Array.isArray(m.eval_concs)) {
      if (!Array.isArray(m.completed_eval_concs)) {
        problems.push(problem('eval-batch-invalid', `raw eval artifact ${name} has invalid batched concurrency metadata`));
        continue;
      }
      rows.push(...m.completed_eval_concs.map((conc: unknown) => evalKey({ ...m, conc })));
    } else rows.push(evalKey(m));
  }
  return { rows, problems };
}

export function evalProblems(set: ArtifactSet): ArtifactProblem[] {
  const { rows: raw, problems: out } = rawEvalRows(set);
  out.push(...duplicateProblems('raw eval', raw));
  if (raw.length > 0 || set.evalAggregate !== undefined) {
    const files = set.evalAggregate ?? [];
    if (files.length === 0) out.push(problem('eval-aggregate-missing', 'missing eval_results_all aggregate artifact'));
    else {
      let count = 0;
      const aggregate: Identity[] = [];
      for (const f of files) {
        if (!Array.isArray(f.data)) continue;
        count += f.data.length;
        for (const r of f.data) if (r !== null && typeof r === 'object' && !Array.isArray(r)) aggregate.push(evalKey(r as Row));
      }
      if (count === 0) out.push(problem('eval-aggregate-empty', 'eval_results_all contains no rows'));
      out.push(...duplicateProblems('eval aggregate', aggregate), ...identitySetProblems('eval aggregate', raw, aggregate));
    }
  }
  return out;
}

export const runStatsProblems = (set: ArtifactSet, required: boolean): ArtifactProblem[] =>
  required && set.runStats.length === 0
    ? [problem('run-stats-missing', 'missing run-stats artifact for fixed-sequence benchmarks')]
    : [];

export interface ArtifactValidation {
  ok: boolean;
  problems: ArtifactProblem[];
  /** Distinct rows found, by kind. */
  counts: { fixed: number; agentic: number; eval: number };
}

/** Every check, in the reference's order (run it after dedupeRerunEvals). */
export function validateArtifacts(set: ArtifactSet): ArtifactValidation {
  const fixed = fixedRows(set);
  const agentic = agenticPointRows(set);
  const evals = rawEvalRows(set).rows;
  const problems = [
    ...fixedProblems(set),
    ...agenticProblems(set),
    ...evalProblems(set),
    ...runStatsProblems(set, fixed.length > 0),
  ];
  if (fixed.length === 0 && agentic.length === 0 && evals.length === 0)
    problems.push(problem('no-result-rows', 'no reusable benchmark, agentic, or eval result rows found'));
  return {
    ok: problems.length === 0,
    problems,
    counts: { fixed: uniqueByText(fixed).size, agentic: uniqueByText(agentic).size, eval: uniqueByText(evals).size },
  };
}
