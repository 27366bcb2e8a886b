import type { PredictedFrontierAnswer } from '../contract/index.js';
import { PRECISIONS, plan } from '../planner/index.js';
import type { Precision } from '../planner/index.js';
import { UserError } from '../util/user-error.js';

/**
 * The planner's predicted frontier for the dashboard's "predicted" line: computed on the first
 * request for a (model, hardware, precision, ISL, OSL, engine) and kept in memory. The API runs it
 * in a lighter setting than `frontier plan` (one wave of requests per point, 1P1D-sized
 * disaggregated pairs) because the request waits for it.
 */

export interface PredictedFrontierQuery {
  model: string;
  hardware: string;
  precision: string;
  isl: number;
  osl: number;
  engine?: string | undefined;
}

export interface PredictedFrontier extends PredictedFrontierAnswer {
  precision: Precision;
}

export class PredictedFrontierCache {
  private readonly cache = new Map<string, PredictedFrontier>();

  /** The frontier, or a UserError saying which parameter the simulator does not know. */
  get(q: PredictedFrontierQuery): PredictedFrontier {
    if (!(PRECISIONS as readonly string[]).includes(q.precision)) {
      throw new UserError(`precision ${q.precision}: the simulator knows ${PRECISIONS.join(', ')}`);
    }
    const key = JSON.stringify([q.model, q.hardware, q.precision, q.isl, q.osl, q.engine ?? null]);
    let found = this.cache.get(key);
    if (!found) {
      const precision = q.precision as Precision;
      const result = plan({ ...q, precision, requestsPerConc: 1, maxWorkers: 1 });
      found = {
        model: result.workload.model,
        hardware: result.workload.hardware,
        precision,
        isl: q.isl,
        osl: q.osl,
        engine: q.engine ?? null,
        points: result.frontier.map(({ deployment, conc, tputPerGpu, interactivity, ttftMs }) => ({
          deployment,
          conc,
          tputPerGpu,
          interactivity,
          ttftMs,
        })),
      };
      this.cache.set(key, found);
    }
    return found;
  }
}
