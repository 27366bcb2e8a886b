/**
 * The simulator's predicted frontier next to the measured series on the inference chart: which
 * `/api/v1/predicted-frontier` requests the series shown call for, the line each answer becomes,
 * and the note for those that cannot be drawn. Pure, so it is tested without a browser.
 */
import type { PredictedFrontierAnswer } from '../../../src/contract/index.js';
import { html, htmlLines } from './html.js';
import type { Html } from './html.js';
import type { Series } from './inference.js';
import type { ViewState } from './url-state.js';

export const PREDICTED_LABEL = 'predicted';

/** The planner predicts tput_per_gpu against median_intvty: the line is drawn on those axes only. */
export const PREDICTED_AXES = { x: 'median_intvty', y: 'tput_per_gpu' } as const;

export const predictedApplies = (view: Pick<ViewState, 'x' | 'y'>): boolean =>
  view.x === PREDICTED_AXES.x && view.y === PREDICTED_AXES.y;

export interface PredictedRequest {
  /** The chart series' id. */
  id: string;
  path: string;
  /** "H200 sglang fp8 predicted": legend and tooltip. */
  name: string;
  /** The colour of the measured series it predicts. */
  color: string;
  hardware: string;
}

/**
 * One request per model × hardware × engine × precision among the official series shown. Series that
 * differ only in spec decoding or disaggregation share one (the simulator models neither choice as
 * an input: the planner's frontier already spans aggregated and disaggregated deployments), and
 * share its colour too. A run's overlay series ask for nothing: the official ones already do.
 */
export function predictedRequests(series: readonly Series[], view: Pick<ViewState, 'x' | 'y'>): PredictedRequest[] {
  if (!predictedApplies(view)) return [];
  const requests = new Map<string, PredictedRequest>();
  for (const s of series) {
    if (s.overlay) continue;
    const row = s.points[0]?.row;
    if (!row) continue;
    const params = new URLSearchParams({
      model: row.model,
      hardware: row.hardware,
      precision: row.precision,
      isl: String(row.isl),
      osl: String(row.osl),
      engine: row.framework,
    });
    const path = `/api/v1/predicted-frontier?${params.toString()}`;
    if (requests.has(path)) continue;
    requests.set(path, {
      id: `predicted:${row.hardware}/${row.framework}/${row.precision}`,
      path,
      name: `${row.hardware.toUpperCase()} ${row.framework} ${row.precision} ${PREDICTED_LABEL}`,
      color: s.color,
      hardware: row.hardware,
    });
  }
  return [...requests.values()];
}

export type PredictedPoint = PredictedFrontierAnswer['points'][number];

/** The answer's points the chart draws, interactivity ascending: x = interactivity, y = tputPerGpu. */
export function predictedPoints(answer: Pick<PredictedFrontierAnswer, 'points'>): PredictedPoint[] {
  return answer.points
    .filter((p) => Number.isFinite(p.interactivity) && Number.isFinite(p.tputPerGpu))
    .sort((a, b) => a.interactivity - b.interactivity);
}

/** A predicted point's tooltip: which deployment at which concurrency the simulator put there. */
export function predictedTooltip(name: string, p: PredictedPoint): Html {
  return htmlLines(
    html`<b>${name}</b> (simulated, not measured)`,
    html`${p.deployment} · conc ${p.conc}`,
    html`interactivity: <b>${p.interactivity.toFixed(1)}</b> tok/s/user`,
    html`throughput: <b>${p.tputPerGpu.toFixed(0)}</b> tok/s/GPU`,
    html`TTFT: ${p.ttftMs.toFixed(0)} ms`,
  );
}

export interface PredictedFailure {
  request: Pick<PredictedRequest, 'name'>;
  /** The API's error message. */
  error: string;
}

/** The short note beside the chart: what is not drawn and why, or nothing. */
export function predictedNote(view: Pick<ViewState, 'predicted' | 'x' | 'y'>, failures: readonly PredictedFailure[]): string {
  if (!view.predicted) return '';
  if (!predictedApplies(view)) return 'The predicted frontier is drawn on throughput per GPU against interactivity only.';
  if (failures.length === 0) return '';
  // The API's 404 goes on to list every model or GPU the simulator knows: the first clause is enough here.
  const each = failures.map((f) => `${f.request.name.replace(` ${PREDICTED_LABEL}`, '')} (${f.error.split(';')[0]!.trim()})`);
  return `No predicted frontier for ${each.join(', ')}.`;
}
