import type { Command } from 'commander';
import type { AccuracyReport, Metric } from '../sim/calibration/accuracy.js';
import { METRICS, REQUESTS_PER_CONC, accuracy } from '../sim/calibration/accuracy.js';
import { calibrate } from '../sim/calibration/calibrate.js';
import { DEFAULT_LEVELS, DIMENSIONS, crossValidate, unfitted } from '../sim/calibration/fit.js';
import { targetVerdicts } from '../sim/calibration/targets.js';
import { isStoreLocation } from '../store/location-kind.js';
import type { Dimension } from '../sim/calibration/fit.js';
import type { MeasuredPoint } from '../sim/calibration/points.js';
import { calibrationSet, expressible, pointsFromRows, readPoints } from '../sim/calibration/points.js';
import { readProfile, shippedProfile } from '../sim/profile.js';
import { UserError } from '../util/user-error.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { numberArg, formatOption } from './options.js';
import { pathOption } from './paths.js';

/** `frontier sim calibrate` and `frontier sim accuracy`: fitting the performance model to measurements, and its error. */

/** Measured points from a store (SQLite file or PostgreSQL URL), a points JSON, or a folder of InferenceX results; none: the shipped calibration set. */
async function loadPoints(from: string | undefined): Promise<MeasuredPoint[]> {
  let points: MeasuredPoint[];
  if (from === undefined) points = [...calibrationSet()];
  else if (isStoreLocation(from)) {
    const { openStore, benchmarks } = await import('../store/index.js');
    const store = await openStore(from);
    try {
      points = pointsFromRows(await benchmarks(store, { source: 'all' }));
    } finally {
      await store.close();
    }
    if (points.length === 0) throw new UserError(`--from ${from}: the store has no benchmark points`);
  } else points = readPoints(from);
  const usable = expressible(points);
  for (const { id, reason } of usable.skipped) process.stderr.write(`skipped ${id}: ${reason}\n`);
  if (usable.points.length === 0)
    throw new UserError(
      `--from ${from ?? 'the calibration set'}: none of its ${points.length} points is one the simulator can express (see above)`,
    );
  return usable.points;
}

const levelsArg = (value: string): Dimension[][] => {
  const levels = value.split(';').map((level) =>
    level.split(',').map((d) => {
      const dim = d.trim() as Dimension;
      if (!DIMENSIONS.includes(dim))
        throw new UserError(
          `--fit ${value}: "${d}" is not a dimension; use ${DIMENSIONS.join(', ')} (e.g. --fit hardware,engine)`,
        );
      return dim;
    }),
  );
  return levels;
};

const pct = (v: number): string => `${(v * 100).toFixed(1)}%`.padStart(7);

function reportLines(title: string, report: AccuracyReport): string[] {
  const lines = [title, `  ${'slice'.padEnd(24)}points  tput/GPU  intvty   TTFT`];
  const row = (name: string, n: number, m: Record<Metric, number>): string =>
    `  ${name.padEnd(24)}${String(n).padStart(6)}  ${pct(m.tputPerGpu)} ${pct(m.interactivity)} ${pct(m.ttft)}`;
  lines.push(row('all', report.points.length, report.overall));
  for (const s of report.slices) lines.push(row(s.slice, s.points, s.median));
  return lines;
}

function pointLines(report: AccuracyReport): string[] {
  return [
    `  ${'point'.padEnd(46)}predicted/measured: tput/GPU intvty  TTFT`,
    ...report.points.map(
      (e) =>
        `  ${e.point.id.padEnd(46)}${METRICS.map((m) => e.ratio[m].toFixed(2).padStart(m === 'tputPerGpu' ? 29 : 7)).join('')}`,
    ),
  ];
}

export function addCalibrationCommands(sim: Command): void {
  addCalibrateCommand(sim);
  addAccuracyCommand(sim);
}

function addCalibrateCommand(sim: Command): void {
  sim
    .command('calibrate')
    .description('fit the performance model to measured points; print the fit and held-out error per slice; write the profile')
    .addOption(
      pathOption(
        '--from <store|path>',
        'a store (SQLite file or PostgreSQL URL), a points JSON, or a folder of InferenceX aggregated results (default: the shipped calibration set)',
      ),
    )
    .option(
      '--fit <levels>',
      `the levels fitted, general first, separated by ';', each a comma-separated list of ${DIMENSIONS.join(', ')} (default: ${DEFAULT_LEVELS.map((l) => l.join(',')).join(';')})`,
      levelsArg,
    )
    .option(
      '--holdout <fraction>',
      'share of the points each cross-validation fold holds out (0: none)',
      numberArg({ min: 0, max: 0.5 }),
      0.5,
    )
    .addOption(pathOption('--out <file>', 'write the fitted profile here (for --profile)'))
    .addOption(pathOption('--base <file>', 'start from this profile (its hand-set entries; default: the shipped one)'))
    .addOption(formatOption())
    .action(
      async (flags: {
        from?: string;
        fit?: Dimension[][];
        holdout: number;
        out?: string;
        base?: string;
        format: 'text' | 'json';
      }) => {
        const points = await loadPoints(flags.from);
        const base = unfitted(flags.base ? readProfile(flags.base) : shippedProfile());
        const progress = flags.format === 'text' ? (m: string) => process.stderr.write(`${m}\n`) : undefined;
        const calibrated = calibrate(points, base, {
          levels: flags.fit ?? DEFAULT_LEVELS,
          holdout: flags.holdout,
          from: flags.from,
          progress,
        });
        const { profile: fitted, fit, heldOut } = calibrated;
        if (flags.out) writeFileAtomic(flags.out, `${JSON.stringify(fitted, null, 2)}\n`);
        if (flags.format === 'json') {
          process.stdout.write(
            `${JSON.stringify({ profile: fitted, fit: brief(fit), heldOut: heldOut && brief(heldOut) }, null, 2)}\n`,
          );
          return;
        }
        const lines = reportLines(`fit error (median |predicted/measured − 1|) over ${points.length} points:`, fit);
        if (heldOut)
          lines.push(
            '',
            ...reportLines(
              `held-out error (${Math.round(1 / flags.holdout)}-fold cross-validation, each point predicted by a fit that did not see it):`,
              heldOut,
            ),
          );
        lines.push(
          '',
          flags.out ? `profile written to ${flags.out} (use it with --profile)` : 'profile not written (give --out FILE)',
        );
        process.stdout.write(`${lines.join('\n')}\n`);
      },
    );
}

function addAccuracyCommand(sim: Command): void {
  sim
    .command('accuracy')
    .description('the performance model against measured points: error per point and per slice, and the targets')
    .addOption(pathOption('--from <store|path>', 'measured points (as for calibrate; default: the shipped calibration set)'))
    .addOption(pathOption('--profile <file>', 'the efficiency profile to check (default: the shipped one)'))
    .option('--cross-validate', 'also fit the same code on half the points and predict the other half')
    .addOption(formatOption())
    .action(async (flags: { from?: string; profile?: string; crossValidate?: boolean; format: 'text' | 'json' }) => {
      const points = await loadPoints(flags.from);
      const profile = flags.profile ? readProfile(flags.profile) : shippedProfile();
      const report = accuracy(points, profile);
      const cv = flags.crossValidate ? crossValidate(points, unfitted(profile), DEFAULT_LEVELS, 2) : undefined;
      const verdicts = targetVerdicts(report, cv);
      if (flags.format === 'json') {
        process.stdout.write(
          `${JSON.stringify({ report: brief(report), crossValidation: cv && brief(cv), targets: verdicts }, null, 2)}\n`,
        );
        return;
      }
      const lines = [
        ...reportLines(
          `error (median |predicted/measured − 1|) over ${points.length} points, ${REQUESTS_PER_CONC} × conc requests each:`,
          report,
        ),
        '',
        ...pointLines(report),
      ];
      if (cv) lines.push('', ...reportLines('cross-validation (fitted on half, predicting the other half, both ways):', cv));
      lines.push(
        '',
        'targets:',
        ...verdicts.map(({ target, met, value }) => `  ${met ? 'met ' : 'MISS'}  ${target}: ${pct(value).trim()}`),
      );
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}

/** A report without the points' full records. */
const brief = (r: AccuracyReport) => ({
  overall: r.overall,
  slices: r.slices,
  points: r.points.map((e) => ({ id: e.point.id, predicted: e.predicted, measured: e.point.measured, ratio: e.ratio })),
});
