import { textTable } from '../util/text-table.js';
import type { PointRecord, RunManifest } from './run-dir.js';
import type { Reporter } from './run.js';
import { scoresLine } from './evals.js';

/**
 * What `frontier run` prints: a line per launch that follows its concurrencies (rewritten in
 * place on a terminal: requests done, tokens/s, ETA), a line per finished point, and a summary
 * table at the end.
 */

const seconds = (ms: number): string =>
  ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${Math.ceil(ms / 1000)} s`;

export function consoleReporter(write: (s: string) => void, tty: boolean): Reporter {
  let live = false;
  const clear = (): void => {
    if (live) write('\r\x1b[K');
    live = false;
  };
  const line = (s: string): void => {
    clear();
    write(`${s}\n`);
  };
  let pointStarted = 0;
  let pointIndex = 0;
  let durations: number[] = [];
  return {
    launchStart(g, index, total) {
      pointIndex = 0;
      durations = [];
      line(`[${index}/${total}] ${g.label}: conc ${g.points.map((p) => p.conc).join(', ')}`);
    },
    waiting(g, attempt, pending) {
      if (!tty) return;
      clear();
      write(`  waiting for the engine (attempt ${attempt}): ${pending[0] ?? ''}`.slice(0, 160));
      live = true;
    },
    pointStart(g, p) {
      pointIndex = g.points.indexOf(p) + 1;
      pointStarted = Date.now();
      if (!tty) write(`  ${concOf(p.conc, p.repeat?.index)}: running\n`);
    },
    pointProgress(g, p, done, total, tokens, elapsedMs) {
      if (!tty) return;
      const rate = tokens / Math.max(elapsedMs / 1000, 1e-3);
      const pointEta = done > 0 ? ((total - done) * elapsedMs) / done : NaN;
      const perPoint = durations.length > 0 ? durations.reduce((a, b) => a + b, 0) / durations.length : NaN;
      const rest = g.points.length - pointIndex;
      const eta = pointEta + (Number.isFinite(perPoint) ? rest * perPoint : 0);
      clear();
      write(
        `  ${concOf(p.conc, p.repeat?.index)} [${pointIndex}/${g.points.length}] ${done}/${total} requests · ${Math.round(rate).toLocaleString('en-US')} tok/s · ETA ${Number.isFinite(eta) ? seconds(eta) : '…'}`,
      );
      live = true;
    },
    pointDone(g, p, r) {
      if (r.status === 'ok' || r.status === 'invalid') durations.push(Date.now() - pointStarted);
      line(`  ${concOf(p.conc, p.repeat?.index)}: ${describePoint(r)}`);
    },
    launchDone(g, r) {
      if (r.status === 'failed' || r.status === 'deferred') line(`  ${r.status}: ${firstLine(r.reason ?? r.error ?? '')}`);
    },
    note(message) {
      line(message);
    },
  };
}

const firstLine = (s: string): string => s.split('\n')[0]!;

/** A point as progress names it: its concurrency, and which repeat when it is measured more than once. */
const concOf = (conc: number, repeat: number | undefined): string => `conc ${conc}${repeat === undefined ? '' : ` #${repeat}`}`;

function describePoint(r: PointRecord): string {
  if (r.status === 'ok')
    return `ok · ${fmt(r.outputTputPerGpu, 1)} tok/s/GPU · ${fmt(r.interactivity, 1)} tok/s/user · TTFT ${fmt(r.medianTtftMs, 0)} ms`;
  return `${r.status}: ${firstLine(r.error ?? '')}`;
}

const fmt = (x: number | undefined, digits: number): string =>
  x === undefined || !Number.isFinite(x)
    ? '–'
    : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The table printed at the end of a run: one line per point, grouped by launch. */
export function summaryTable(m: RunManifest): string {
  const header = ['launch', 'conc', 'status', 'tok/s/GPU', 'tok/s/user', 'TTFT ms', 'note'];
  const rows: string[][] = [];
  for (const g of m.launches) {
    const points = m.points.filter((p) => p.launch === g.id);
    if (points.length === 0) rows.push([g.label, '', g.status, '', '', '', firstLine(g.reason ?? g.error ?? '').slice(0, 80)]);
    for (const p of points)
      rows.push([
        g.label,
        p.repeat === undefined ? String(p.conc) : `${p.conc} #${p.repeat}`,
        p.status,
        p.status === 'ok' ? fmt(p.outputTputPerGpu, 1) : '',
        p.status === 'ok' ? fmt(p.interactivity, 1) : '',
        p.status === 'ok' ? fmt(p.medianTtftMs, 0) : '',
        firstLine(p.reason ?? p.error ?? '').slice(0, 80),
      ]);
  }
  const ok = m.points.filter((p) => p.status === 'ok').length;
  const deferred = m.points.filter((p) => p.status === 'deferred').length;
  const evals = (m.evals ?? []).map((e) => {
    const label = m.launches.find((g) => g.id === e.launch)?.label ?? e.launch;
    const scores = scoresLine(e.scores ?? []);
    return `eval ${(e.tasks ?? ['gsm8k']).join(', ')} · ${label} · conc ${e.concs.join(', ')}: ${e.status}${scores ? ` (${scores})` : ''}${e.status !== 'passed' && e.error ? ` · ${firstLine(e.error).slice(0, 100)}` : ''}`;
  });
  const passed = (m.evals ?? []).filter((e) => e.status === 'passed').length;
  const tally = `${ok} of ${m.points.length - deferred} points ok${deferred > 0 ? ` · ${deferred} deferred` : ''}${evals.length > 0 ? ` · ${passed} of ${evals.length} evals passed` : ''} · run ${m.status}`;
  const table = textTable([header, ...rows], { align: ['left', 'right', 'left', 'right', 'right', 'right'] });
  return [...table, ...(evals.length > 0 ? ['', ...evals] : []), '', tally].join('\n');
}
