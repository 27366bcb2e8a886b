import {
  COMMON_OPTIONS,
  clientSettings,
  commonProblems,
  engineProcess,
  modelsProbe,
  optArgs,
  optNumber,
  optString,
  optionProblems,
  processName,
} from './common.js';
import type { OptionSpecs } from './common.js';
import type { Deployment, EngineProcess, Launch, Placement, Ports, Probe, WorkerPlacement, WorkerShape } from './types.js';

/**
 * NVIDIA Dynamo around an engine (dynamo-vllm, dynamo-sglang, dynamo-trt), laid out as srt-slurm
 * launches it (NVIDIA/srt-slurm src/srtctl/cli/setup_head.py, cli/mixins/worker_stage.py,
 * frontends/dynamo.py):
 *
 * - on the head: etcd (client port 2379) and nats-server with JetStream (4222), as setup_head
 *   starts them, and the frontend `python3 -m dynamo.frontend --http-port <port>`;
 * - one process per worker per node it spans, with HEAD_NODE_IP, ETCD_ENDPOINTS=http://head:2379,
 *   NATS_SERVER=nats://head:4222 and its own DYN_SYSTEM_PORT (worker_stage.py env_to_set);
 * - prefill and decode workers with `--disaggregation-mode prefill|decode`; an aggregated layout
 *   runs workers without it.
 *
 * Readiness is the frontend's: GET /health lists the registered instances and GET /v1/models the
 * served name. srt-slurm (core/health.py check_dynamo_health) counts `instances[]` with
 * endpoint == "generate" per component ("prefill"; decode reports as "decode", "backend" or
 * "tensorrt_llm") against the expected workers — vLLM DP ranks counting one each. A Probe can
 * only ask for a substring, so the probes here require at least one prefill instance and the
 * model listed (decode and aggregated workers register the model); a full check needs a probe
 * that counts matches in the body.
 */

export const DYNAMO_OPTIONS: OptionSpecs = {
  ...COMMON_OPTIONS,
  'prefill-extra-args': { type: 'string', doc: 'arguments appended to prefill worker commands only' },
  'decode-extra-args': { type: 'string', doc: 'arguments appended to decode worker commands only' },
  'frontend-args': { type: 'string', doc: 'arguments appended to python3 -m dynamo.frontend, e.g. --router-mode kv' },
  'request-plane': { type: 'string', doc: 'workers --request-plane and the frontend DYN_REQUEST_PLANE (tcp, nats, http)' },
  'nats-server': { type: 'string', doc: 'the nats-server binary (default nats-server on PATH)' },
  etcd: { type: 'string', doc: 'the etcd binary (default etcd on PATH)' },
  'nats-port': { type: 'number', doc: 'NATS client port (default 4222)' },
  'etcd-port': { type: 'number', doc: 'etcd client port (default 2379)' },
  'state-dir': {
    type: 'string',
    doc: 'where etcd and NATS JetStream keep state on the head (default dynamo-state, under the working directory)',
  },
};

export function parseDynamoOptions(d: Deployment): void {
  optArgs(d, 'prefill-extra-args');
  optArgs(d, 'decode-extra-args');
  optArgs(d, 'frontend-args');
  optNumber(d, 'nats-port');
  optNumber(d, 'etcd-port');
}

/** What every dynamo adapter checks: its framework, sizes, options, and the engine's own rules. */
export function dynamoProblems(
  d: Deployment,
  frameworks: readonly string[],
  specs: OptionSpecs,
  parse: (d: Deployment) => void,
): string[] {
  return [
    ...commonProblems(d, frameworks),
    ...optionProblems(d, specs, (x) => {
      parse(x);
      parseDynamoOptions(x);
    }),
  ];
}

/** A worker's role in Dynamo terms: its --disaggregation-mode, if any. */
export type DisaggregationMode = 'prefill' | 'decode' | undefined;

export interface WorkerContext {
  d: Deployment;
  shape: WorkerShape;
  worker: WorkerPlacement;
  mode: DisaggregationMode;
  ports: Ports;
  /** HEAD_NODE_IP, ETCD_ENDPOINTS, NATS_SERVER (DYN_SYSTEM_PORT is per process). */
  env: Record<string, string>;
  /** Flags every worker ends with: --request-plane, extra args. */
  tail: string[];
}

/** One process of a worker (on node `rank` of the worker), before the shared parts are added. */
export interface WorkerNode {
  command: string[];
  env?: Record<string, string>;
}

/** An engine under Dynamo: the processes of one worker, node by node. */
export interface DynamoEngine {
  /** The engine's name in messages. */
  name: string;
  /** Speculative decoding's draft tokens per step on a worker of this shape. */
  draftTokens(d: Deployment, shape: WorkerShape): number;
  /** Allocates what the worker shares across its nodes (e.g. a rendezvous port on the leader). */
  prepare?(ctx: WorkerContext): unknown;
  /** The command of node `rank`; DYN_SYSTEM_PORT, GPUs and the shared env are added around it. */
  node(ctx: WorkerContext, rank: number, host: string, shared: unknown): WorkerNode;
}

const DEFAULT_NATS_PORT = 4222;
const DEFAULT_ETCD_PORT = 2379;

/** The shape serving a placed worker. */
function shapeFor(d: Deployment, w: WorkerPlacement): WorkerShape {
  if (d.layout.kind === 'aggregated') return d.layout.worker;
  if (w.role === 'prefill') return d.layout.prefill;
  if (w.role === 'decode') return d.layout.decode;
  throw new Error(`a disaggregated deployment has prefill and decode workers; the placement has an ${w.role} worker`);
}

export function dynamoLaunch(d: Deployment, placement: Placement, ports: Ports, engine: DynamoEngine): Launch {
  const head = placement.head;
  const natsPort = optNumber(d, 'nats-port') ?? DEFAULT_NATS_PORT;
  const etcdPort = optNumber(d, 'etcd-port') ?? DEFAULT_ETCD_PORT;
  const stateDir = optString(d, 'state-dir') ?? 'dynamo-state';
  const requestPlane = optString(d, 'request-plane');
  const discovery = { ETCD_ENDPOINTS: `http://${head}:${etcdPort}`, NATS_SERVER: `nats://${head}:${natsPort}` };

  // The frontend takes the head's first port (srt-slurm's public frontend port is 8000).
  const frontendPort = ports.next(head);

  const infra: EngineProcess[] = [
    {
      name: 'etcd',
      role: 'infra',
      host: head,
      gpus: [],
      // setup_head.py start_etcd: --data-dir, --listen-client-urls http://0.0.0.0:2379,
      // --advertise-client-urls http://<head>:2379.
      command: [
        optString(d, 'etcd') ?? 'etcd',
        '--data-dir',
        `${stateDir}/etcd`,
        '--listen-client-urls',
        `http://0.0.0.0:${etcdPort}`,
        '--advertise-client-urls',
        `http://${head}:${etcdPort}`,
      ],
      env: {},
      port: etcdPort,
      ready: [{ path: '/health' }],
    },
    {
      name: 'nats',
      role: 'infra',
      host: head,
      gpus: [],
      // setup_head.py start_nats: nats-server -js -sd <store dir>.
      command: [optString(d, 'nats-server') ?? 'nats-server', '-js', '-sd', `${stateDir}/nats`, '-p', String(natsPort)],
      env: {},
    },
  ];

  const frontend: EngineProcess = {
    name: 'frontend',
    role: 'frontend',
    host: head,
    gpus: [],
    command: ['python3', '-m', 'dynamo.frontend', '--http-port', String(frontendPort), ...optArgs(d, 'frontend-args')],
    env: { ...discovery, ...(requestPlane === undefined ? {} : { DYN_REQUEST_PLANE: requestPlane }) },
    port: frontendPort,
    ready: [{ path: '/live' }],
  };

  const workers: EngineProcess[] = [];
  for (const worker of placement.workers) {
    const shape = shapeFor(d, worker);
    const mode: DisaggregationMode = worker.role === 'aggregated' ? undefined : worker.role;
    const ctx: WorkerContext = {
      d,
      shape,
      worker,
      mode,
      ports,
      env: { HEAD_NODE_IP: head, ...discovery },
      tail: [
        ...(requestPlane === undefined ? [] : ['--request-plane', requestPlane]),
        ...optArgs(d, 'extra-args'),
        ...(mode === undefined ? [] : optArgs(d, `${mode}-extra-args`)),
      ],
    };
    const shared = engine.prepare?.(ctx);
    const base = `${mode ?? 'server'}-${worker.index}`;
    worker.hosts.forEach((host, rank) => {
      const systemPort = ports.next(host);
      const node = engine.node(ctx, rank, host, shared);
      workers.push(
        engineProcess(d, {
          name: processName(base, rank),
          role: mode ?? 'server',
          host,
          gpus: worker.gpus[rank] ?? [],
          command: node.command,
          // The system status server (DYN_SYSTEM_PORT) serves the worker's /health, /live and /metrics.
          env: { ...ctx.env, DYN_SYSTEM_PORT: String(systemPort), ...node.env },
          port: systemPort,
        }),
      );
    });
  }

  const ready: Probe[] =
    d.layout.kind === 'disaggregated'
      ? [{ path: '/health', contains: '"component":"prefill"' }, modelsProbe(d.servedModelName)]
      : [{ path: '/health', contains: '"endpoint":"generate"' }, modelsProbe(d.servedModelName)];
  return {
    processes: [...infra, frontend, ...workers],
    endpoint: { host: head, port: frontendPort },
    ready,
    metricsPath: '/metrics',
    // The frontend has no /tokenize: the load generator reads the model's tokenizer.json.
    client: clientSettings(d, false, (w) => engine.draftTokens(d, w)),
  };
}
