import type { BackendStats } from './backends.js';

/** The router's own counters of generation requests. */
export interface RouterCounters {
  /** Generation requests received, answered with an error, and cancelled by the client. */
  requests: number;
  failed: number;
  cancelled: number;
  /** Prefill answers without `kv_transfer_params` (the decode then prefilled the prompt itself). */
  kvParamsMissing: number;
  inFlight: number;
}

export interface RouterStats extends RouterCounters {
  backends: BackendStats[];
}

/** The router's counters in Prometheus text format. */
export function routerMetrics(stats: RouterStats): string {
  const lines: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, values: [labels: string, value: number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) lines.push(labels ? `${name}{${labels}} ${value}` : `${name} ${value}`);
  };
  const per = (b: BackendStats): string => `role="${b.role}",backend=${JSON.stringify(b.url)}`;
  metric('frontier_router_requests_total', 'counter', 'Generation requests received.', [['', stats.requests]]);
  metric('frontier_router_requests_failed_total', 'counter', 'Generation requests answered with an error.', [['', stats.failed]]);
  metric('frontier_router_requests_cancelled_total', 'counter', 'Generation requests the client went away from.', [
    ['', stats.cancelled],
  ]);
  metric(
    'frontier_router_kv_params_missing_total',
    'counter',
    'Prefill answers without kv_transfer_params (the decode server prefilled the prompt itself).',
    [['', stats.kvParamsMissing]],
  );
  metric('frontier_router_requests_in_flight', 'gauge', 'Generation requests in flight.', [['', stats.inFlight]]);
  metric(
    'frontier_router_backend_in_flight',
    'gauge',
    'Requests in flight per backend.',
    stats.backends.map((b) => [per(b), b.inFlight]),
  );
  metric(
    'frontier_router_backend_requests_total',
    'counter',
    'Requests sent per backend.',
    stats.backends.map((b) => [per(b), b.requests]),
  );
  metric(
    'frontier_router_backend_errors_total',
    'counter',
    'Requests per backend that failed or were answered with an error status.',
    stats.backends.map((b) => [per(b), b.errors]),
  );
  return `${lines.join('\n')}\n`;
}
