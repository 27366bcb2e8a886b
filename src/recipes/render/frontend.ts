import { PORTS, host, ip } from './processes.js';
import type { Nodes, Process } from './processes.js';
import type { FloatTest } from '../../pycompat/index.js';
import { RenderError, flagStr } from './python.js';
import { envMap, runtimeEnvironment } from './env.js';
import { modeConfig } from './workers.js';
import type { Job } from './workers.js';

/** The frontend layer: nginx and routers (cli/mixins/frontend_stage.py, frontends/*.py). */

type Obj = Record<string, unknown>;

export interface FrontendProcess {
  role: 'nginx' | 'frontend';
  index: number;
  node: number;
  argv: string[];
  env: Record<string, string>;
}

/** Frontend `args`: keys as written (no `_` → `-`), true → bare flag, false/None dropped. */
function frontendArgs(args: unknown, isFloat: FloatTest): string[] {
  if (!args || typeof args !== 'object') return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(args as Obj)) {
    if (value === true) out.push(`--${key}`);
    else if (value !== false && value !== null && value !== undefined)
      out.push(`--${key}`, flagStr(value, isFloat, ['frontend', 'args', key]));
  }
  return out;
}

export function frontendProcesses(recipe: Obj, job: Job, nodes: Nodes, procs: Process[]): FrontendProcess[] {
  const fe = (recipe.frontend ?? {}) as Obj;
  const multiple = fe.enable_multiple_frontends !== false;
  const out: FrontendProcess[] = [];
  let frontendNodes: number[];
  let port: number;
  if (nodes.worker.length === 1 || !multiple) {
    const placement = fe.orchestrator_placement ?? 'head';
    let node = nodes.head;
    if (placement === 'first_decode' || placement === 'last_decode') {
      const leaders = procs.filter((p) => p.mode === 'decode' && p.nodeRank === 0).sort((a, b) => a.index - b.index);
      const decode = [...new Set(leaders.map((p) => p.node))];
      if (decode.length === 0)
        throw new RenderError(`frontend.orchestrator_placement='${String(placement)}' but no decode workers were found`);
      node = placement === 'first_decode' ? decode[0]! : decode[decode.length - 1]!;
    } else if (placement !== 'head') {
      throw new RenderError(
        `frontend.orchestrator_placement='${String(placement)}' is invalid (expected head|first_decode|last_decode)`,
      );
    }
    frontendNodes = [node];
    port = PORTS.frontendPublic;
  } else {
    const others = nodes.worker.filter((n) => n !== nodes.head);
    const extra = typeof fe.num_additional_frontends === 'number' ? fe.num_additional_frontends : 9;
    frontendNodes = others.slice(0, Math.max(0, Math.min(extra + 1, others.length)));
    port = PORTS.frontendInternal;
    const conf = '/logs/nginx.conf';
    const inner = `${fe.nginx_raise_ulimit === true ? 'ulimit -n 1048576 && ' : ''}nginx -c ${conf} -g 'daemon off;'`;
    out.push({ role: 'nginx', index: 0, node: nodes.head, argv: ['bash', '-c', inner], env: {} });
  }
  const type = fe.type ?? 'dynamo';
  const feEnv = envMap(fe.env, 'frontend.env');
  if (type === 'dynamo') {
    const dynamo = (recipe.dynamo ?? {}) as Obj;
    frontendNodes.forEach((node, index) => {
      const env: Record<string, string> = {
        ETCD_ENDPOINTS: `http://${host(nodes.infra)}:${PORTS.etcd}`,
        NATS_SERVER: `nats://${host(nodes.infra)}:${PORTS.nats}`,
        DYN_REQUEST_PLANE: job.requestPlane,
        DYN_SKIP_SGLANG_LOG_FORMATTING: '1',
      };
      if (typeof dynamo.event_plane === 'string' && dynamo.event_plane) env.DYN_EVENT_PLANE = dynamo.event_plane;
      Object.assign(env, runtimeEnvironment(recipe), feEnv);
      const argv = ['python3', '-m', 'dynamo.frontend', `--http-port=${port}`, ...frontendArgs(fe.args, job.isFloat)];
      out.push({ role: 'frontend', index, node, argv, env });
    });
  } else if (type === 'sglang') {
    frontendNodes.forEach((node, index) =>
      out.push({ role: 'frontend', index, node, argv: sglangRouter(recipe, job, procs, port), env: { ...feEnv } }),
    );
  } else if (type === 'vllm') {
    vllmDirectChecks(recipe, job, out.length > 0 || frontendNodes.length !== 1);
  } else {
    throw new RenderError(`frontend.type: ${String(type)} is not rendered by Frontier yet`);
  }
  return out;
}

function sglangRouter(recipe: Obj, job: Job, procs: Process[], port: number): string[] {
  const r = (recipe.resources ?? {}) as Obj;
  const disagg = Number(r.prefill_workers ?? 0) > 0 || Number(r.decode_workers ?? 0) > 0;
  const grpc = (mode: 'prefill' | 'decode' | 'agg'): string =>
    job.backendType === 'sglang' && modeConfig(job, mode)['grpc-mode'] ? 'grpc://' : 'http://';
  const leaders = procs.filter((p) => p.nodeRank === 0);
  const cmd = ['python', '-m', 'sglang_router.launch_router'];
  if (disagg) {
    cmd.push('--pd-disaggregation');
    for (const p of leaders.filter((l) => l.mode === 'prefill')) {
      cmd.push('--prefill', `${grpc('prefill')}${ip(p.node)}:${p.httpPort}`);
      if (p.bootstrapPort !== null) cmd.push(String(p.bootstrapPort));
    }
    for (const p of leaders.filter((l) => l.mode === 'decode'))
      cmd.push('--decode', `${grpc('decode')}${ip(p.node)}:${p.httpPort}`);
  } else {
    cmd.push('--worker-urls', ...leaders.filter((l) => l.mode === 'agg').map((p) => `${grpc('agg')}${ip(p.node)}:${p.httpPort}`));
  }
  cmd.push('--host', '0.0.0.0', '--port', String(port));
  return [...cmd, ...frontendArgs(((recipe.frontend ?? {}) as Obj).args, job.isFloat)];
}

/** `frontend.type: vllm` starts nothing: the one aggregate `vllm serve` owns the public port. */
function vllmDirectChecks(recipe: Obj, job: Job, fannedOut: boolean): void {
  const r = (recipe.resources ?? {}) as Obj;
  if (job.backendType !== 'vllm')
    throw new RenderError(`frontend.type: vllm requires backend.type: vllm (got '${job.backendType}')`);
  if (fannedOut)
    throw new RenderError(
      'frontend.type: vllm binds vllm serve directly to the public port; set frontend.enable_multiple_frontends: false',
    );
  if (r.prefill_nodes !== undefined || r.decode_nodes !== undefined)
    throw new RenderError('frontend.type: vllm supports aggregate vLLM jobs only');
  if (Number(r.agg_workers ?? 0) !== 1)
    throw new RenderError(`frontend.type: vllm supports exactly one aggregate worker, got ${Number(r.agg_workers ?? 0)}`);
}
