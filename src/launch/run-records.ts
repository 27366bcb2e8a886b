import { isAgenticRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { sampleKey, sampleKeyOf } from '../plan/launches.js';
import type { PlannedEval, PlannedLaunch, PlannedPoint } from '../plan/launches.js';
import { rowEvalTasks } from './evals.js';
import { RunError, sha256 } from './run-dir.js';
import type { EvalRecord, LaunchRecord, PointRecord, RunDir, RunManifest, RunStatus } from './run-dir.js';

/**
 * A run's records: the manifest (run.json) and its point, launch and eval records, kept current
 * and saved after every change, so an interrupted run says where it stopped. A resumed run keeps
 * what its previous manifest finished.
 */

export interface ManifestHead {
  frontier: string;
  matrix: { file: string; text: string; rows: readonly MatrixRow[] };
  cluster: RunManifest['cluster'];
  commit: string | null;
}

export interface Deferral {
  rows: ReadonlySet<MatrixRow>;
  reason: string;
}

const now = (): string => new Date().toISOString();

export class RunRecords {
  readonly manifest: RunManifest;
  private readonly points = new Map<string, PointRecord>();
  private readonly evals = new Map<string, EvalRecord>();
  private readonly previousPoints: Map<string, PointRecord>;

  constructor(
    private readonly dir: RunDir,
    head: ManifestHead,
    private readonly previous: RunManifest | undefined,
    defer: Deferral | undefined,
    launches: readonly PlannedLaunch[],
  ) {
    this.manifest = {
      version: 1,
      frontier: head.frontier,
      matrix: { file: head.matrix.file, sha256: sha256(head.matrix.text), rows: head.matrix.rows.length },
      cluster: head.cluster,
      commit: head.commit,
      started: previous?.started ?? now(),
      ended: null,
      status: 'running',
      launches: [],
      points: [],
      evals: [],
    };
    this.previousPoints = new Map(previous?.points.map((p) => [sampleKey(p.resultFilename, p.repeat), p]));
    const rowIndex = new Map(head.matrix.rows.map((r, i) => [r, i]));
    const duplicates = new Set<string>();
    for (const launch of launches)
      for (const p of launch.points) {
        if (this.points.has(sampleKeyOf(p))) duplicates.add(p.resultFilename);
        const record = this.pointRecord(launch, p, rowIndex.get(p.row)!, defer);
        this.points.set(sampleKeyOf(p), record);
        this.manifest.points.push(record);
      }
    if (duplicates.size > 0)
      throw new RunError(
        `rows that differ only in what RESULT_FILENAME leaves out (model, image…) would overwrite each other's results: ${[...duplicates].join(', ')}; give them distinct exp-names, or run them separately`,
      );
  }

  /** A point's record: the previous run's when it finished ok, else a new one. */
  private pointRecord(launch: PlannedLaunch, p: PlannedPoint, row: number, defer: Deferral | undefined): PointRecord {
    const old = this.previousPoints.get(sampleKeyOf(p));
    const deferred = defer?.rows.has(p.row) === true;
    const record: PointRecord =
      old?.status === 'ok'
        ? old
        : {
            resultFilename: p.resultFilename,
            launch: launch.id,
            conc: p.conc,
            runner: p.row.runner,
            row,
            ...(p.repeat ? { repeat: p.repeat.index } : {}),
            status: deferred ? 'deferred' : 'pending',
            ...(deferred ? { reason: defer!.reason } : {}),
            ...(isAgenticRow(p.row) ? { agentic: true as const } : {}),
          };
    record.launch = launch.id;
    return record;
  }

  /** A launch's record, pending (with the attempts a resumed run's previous manifest made at it). */
  addLaunch(launch: PlannedLaunch): LaunchRecord {
    const record: LaunchRecord = { id: launch.id, label: launch.label, engine: launch.rows[0]!.framework, status: 'pending' };
    const attempts = this.previous?.launches.find((l) => l.id === launch.id)?.attempts;
    if (attempts && attempts.length > 0) record.attempts = attempts;
    this.manifest.launches.push(record);
    return record;
  }

  /** The records of a launch's evals: the previous run's when they passed or failed, else new ones. */
  addEvals(launch: PlannedLaunch): void {
    for (const e of launch.evals) {
      const old = this.previous?.evals?.find((x) => x.dir === e.dir);
      const record: EvalRecord =
        old && (old.status === 'passed' || old.status === 'failed')
          ? old
          : { launch: launch.id, dir: e.dir, concs: e.concs, tasks: rowEvalTasks(e.row), status: 'pending' };
      record.launch = launch.id;
      this.manifest.evals.push(record);
      this.evals.set(e.dir, record);
    }
  }

  point = (p: PlannedPoint): PointRecord => this.points.get(sampleKeyOf(p))!;

  /** The records of every measurement of a repeated point, in repeat order. */
  repeatsOf = (p: PlannedPoint): PointRecord[] =>
    this.manifest.points
      .filter((r) => r.resultFilename === p.resultFilename && r.repeat !== undefined)
      .sort((a, b) => a.repeat! - b.repeat!);
  eval = (e: PlannedEval): EvalRecord => this.evals.get(e.dir)!;

  /** Every point of the launch that has not run fails with `error`. */
  failPending(points: readonly PlannedPoint[], error: string): void {
    for (const p of points) {
      const r = this.point(p);
      if (r.status === 'pending') Object.assign(r, { status: 'failed', error });
    }
  }

  /** Points to run again (a retried launch's unfinished ones): pending, as if they had not run. */
  resetPoints(points: readonly PlannedPoint[]): void {
    for (const p of points) {
      const r = this.point(p);
      r.status = 'pending';
      for (const k of ['error', 'started', 'ended', 'power', 'outputTputPerGpu', 'interactivity', 'medianTtftMs'] as const)
        delete r[k];
    }
  }

  /** The points still to run (not ok, not deferred), and the evals that have not passed or failed. */
  pendingPoints = (points: readonly PlannedPoint[]): PlannedPoint[] =>
    points.filter((p) => !['ok', 'deferred'].includes(this.point(p).status));
  pendingEvals = (evals: readonly PlannedEval[]): PlannedEval[] =>
    evals.filter((e) => this.eval(e).status !== 'passed' && this.eval(e).status !== 'failed');

  save = (): void => this.dir.writeManifest(this.manifest);

  /** The run's status when it ends (`stopped`: why it stopped early, if it did), saved with the results it sums up. */
  finish(stopped: 'failed' | 'interrupted' | undefined): void {
    const m = this.manifest;
    m.ended = now();
    m.status = statusOf(m, stopped);
    this.save();
    this.dir.writeRunResults(m);
  }
}

function statusOf(m: RunManifest, stopped: 'failed' | 'interrupted' | undefined): RunStatus {
  if (stopped === 'interrupted') return 'interrupted';
  const ran = m.points.filter((p) => p.status !== 'deferred');
  const incomplete =
    ran.some((p) => p.status !== 'ok') ||
    m.launches.some((g) => g.status === 'failed') ||
    m.evals.some((e) => e.status !== 'passed');
  if (incomplete) return 'failed';
  return ran.length < m.points.length ? 'partial' : 'completed';
}
