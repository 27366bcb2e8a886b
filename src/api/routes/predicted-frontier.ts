import { PredictedFrontierCache } from '../predicted.js';
import type { PredictedFrontierQuery } from '../predicted.js';
import { HttpError } from '../http-error.js';
import { intParam, querySchema, stringParam } from '../schemas.js';
import { UserError } from '../../util/user-error.js';
import { queryRoute } from './route.js';
import type { RouteContext } from './route.js';

/** GET /api/v1/predicted-frontier: the planner's prediction, computed once per question and cached for the server's life. */
export function predictedFrontierRoutes(context: RouteContext): void {
  const predicted = new PredictedFrontierCache();
  queryRoute(
    context,
    '/api/v1/predicted-frontier',
    {
      summary:
        "The planner's predicted frontier (throughput per GPU against interactivity) from the simulator, for a model, GPU, precision and ISL/OSL; computed on first request, then cached",
      querystring: querySchema(
        {
          model: stringParam('model: a simulator id (minimax-m3) or Hugging Face name'),
          hardware: stringParam('GPU or runner label (b300, h200-dgxc)'),
          precision: stringParam('bf16, fp8 or fp4'),
          isl: intParam('input tokens per request'),
          osl: intParam('output tokens per request'),
          engine: stringParam('serving framework as InferenceX names it (vllm, sglang, trt…; default vllm)'),
        },
        ['model', 'hardware', 'precision', 'isl', 'osl'],
      ),
    },
    async (query) => {
      try {
        return predicted.get(query as unknown as PredictedFrontierQuery);
      } catch (error) {
        if (error instanceof UserError) throw new HttpError(404, error.message);
        throw error;
      }
    },
  );
}
