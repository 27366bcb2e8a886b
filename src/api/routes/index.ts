/** One module per resource of the API, each registering its routes on the context it is given. */
export { agenticRoutes } from './agentic.js';
export { compareRoutes } from './compare.js';
export { AUDIT_PAGE, correctionRoutes } from './corrections.js';
export { healthRoutes } from './health.js';
export { ingestRoutes } from './ingest.js';
export type { UploadSettings } from './ingest.js';
export { NODES_PAGE, nodeRoutes } from './nodes.js';
export { POINTS_PAGE, pointRoutes } from './points.js';
export { predictedFrontierRoutes } from './predicted-frontier.js';
export type { RouteContext } from './route.js';
export { RUNS_PAGE, runRoutes } from './runs.js';
export { VARIATION_METRICS, variationRoutes } from './variation.js';
