import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { parse } from 'yaml';
import { flagValue } from '../../util/argv.js';
import { UserError } from '../../util/user-error.js';

/**
 * What llm-d's tools become under the stand-ins (src/launch/inferencex/standins.ts), as
 * InferenceX's llm-d job starts them (benchmarks/multi_node/llm-d/server.sh, on the decode leader):
 *
 * - `epp` (the endpoint picker, llm-d-inference-scheduler, in Kubernetes-free mode): its config's
 *   file-discovery endpoints (`/tmp/endpoints.yaml`, written by server.sh) become `frontier sim
 *   router`'s prefill and decode servers, on the EPP's gRPC port. The real EPP answers Envoy's
 *   ext_proc calls with the endpoints it picks (prefill, then decode) and Envoy sends the request
 *   there; the stand-in picks and sends itself: each request is prefilled on a prefill endpoint,
 *   then decoded on a decode endpoint (the sidecar), the least loaded of each.
 * - `envoy`: a proxy from its listener to the ext_proc cluster (the EPP stand-in, which routes), and
 *   its admin listener's `/ready`.
 * - `pd-sidecar` (llm-d's routing sidecar in front of each decode vLLM): a proxy to its vLLM
 *   (`--vllm-port`), which passes the prefill's `kv_transfer_params` on, as the sidecar does.
 *
 * What the stand-in cannot do as the tool would (another decider, Kubernetes discovery, TLS, an
 * Envoy route that is not the EPP's pick) is refused with the reason, before anything listens.
 */

type Read = (file: string) => string;
const readText: Read = (file) => readFileSync(file, 'utf8');

const refuse = (tool: string, why: string): never => {
  throw new UserError(`stand-in: ${tool}: ${why}`);
};

/** The EPP stand-in: where it listens and the servers it routes to. */
export interface EppStandIn {
  host: string;
  port: string;
  prefill: string[];
  decode: string[];
  /** What the stand-in does differently from the EPP, said in its log. */
  notes: string[];
}

interface Plugin {
  name?: string;
  type?: string;
  parameters?: Record<string, unknown>;
}

/** EPP plugins the stand-in carries out: P/D disaggregation over file-discovered endpoints. */
const EPP_ROUTING = new Set([
  'file-discovery',
  'disagg-headers-handler',
  'always-disagg-pd-decider',
  'disagg-profile-handler',
  'prefill-filter',
  'decode-filter',
]);
/** Scorers and pickers: the sim router's least-loaded choice stands for them. */
const EPP_SCORING = new Set([
  'prefix-cache-scorer',
  'queue-scorer',
  'active-request-scorer',
  'kv-cache-utilization-scorer',
  'load-aware-scorer',
  'max-score-picker',
  'weighted-random-picker',
  'random-picker',
]);

/**
 * `epp --pool-namespace NS --config-file F --grpc-port P --secure-serving=false …`, as the stand-in
 * runs it: the endpoints its config's discovery finds, split by the role filters.
 */
export function eppStandIn(args: readonly string[], read: Read = readText): EppStandIn {
  const tool = 'epp';
  const secure = flagValue(args, '--secure-serving') ?? 'true';
  if (secure !== 'false')
    refuse(tool, `--secure-serving=${secure} serves TLS, and the stand-in (frontier sim router) serves plain HTTP`);
  const file = flagValue(args, '--config-file');
  if (!file)
    refuse(
      tool,
      'no --config-file: the stand-in needs the scheduling config (--config-text and the built-in default are not read)',
    );
  const config = parseYaml(tool, file!, read) as {
    kind?: string;
    plugins?: Plugin[];
    schedulingProfiles?: { name?: string; plugins?: { pluginRef?: string }[] }[];
    dataLayer?: { discovery?: { pluginRef?: string } };
  };
  if (config.kind !== undefined && config.kind !== 'EndpointPickerConfig')
    refuse(tool, `${file} is a ${config.kind}, not an EndpointPickerConfig`);
  const plugins = new Map<string, Plugin>();
  for (const p of config.plugins ?? []) plugins.set(p.name ?? p.type ?? '', p);
  const unknown = [...plugins.values()].map((p) => p.type ?? '').filter((t) => !EPP_ROUTING.has(t) && !EPP_SCORING.has(t));
  if (unknown.length > 0)
    refuse(
      tool,
      `plugin type ${unknown.join(', ')} in ${file} is not one the stand-in carries out (it routes P/D with ${[...EPP_ROUTING].join(', ')}, and stands for ${[...EPP_SCORING].join(', ')} with the least-loaded server)`,
    );
  const typed = (type: string): Plugin[] => [...plugins.values()].filter((p) => p.type === type);

  // Discovery: a file of endpoints (Kubernetes-free mode).
  const ref = config.dataLayer?.discovery?.pluginRef;
  const discovery = ref === undefined ? undefined : plugins.get(ref);
  if (discovery?.type !== 'file-discovery')
    refuse(
      tool,
      `${file} discovers endpoints ${discovery ? `with ${discovery.type}` : 'through Kubernetes (no dataLayer.discovery)'}: the stand-in reads them only from a file (file-discovery)`,
    );
  const params = discovery!.parameters ?? {};
  if (params.watchFile === true)
    refuse(tool, `${file}: watchFile: true reloads the endpoints while serving; the stand-in reads them once`);
  const endpointsFile = typeof params.path === 'string' ? params.path : refuse(tool, `${file}: file-discovery has no path`);

  // Scheduling: every request prefilled, then decoded, each on its role's endpoints.
  const handler = typed('disagg-profile-handler')[0];
  if (!handler) refuse(tool, `${file} has no disagg-profile-handler: the stand-in routes only disaggregated prefill/decode`);
  const deciderName = handler!.parameters?.deciderPluginName;
  const decider = typeof deciderName === 'string' ? plugins.get(deciderName) : undefined;
  if (decider?.type !== 'always-disagg-pd-decider')
    refuse(
      tool,
      `${file}: the disagg-profile-handler's decider is ${decider?.type ?? String(deciderName ?? 'not named')}; the stand-in (frontier sim router) disaggregates every request, as always-disagg-pd-decider does`,
    );
  for (const [profile, filter] of [
    ['prefill', 'prefill-filter'],
    ['decode', 'decode-filter'],
  ] as const) {
    const p = config.schedulingProfiles?.find((s) => s.name === profile);
    const types = (p?.plugins ?? []).map((r) => plugins.get(r.pluginRef ?? '')?.type);
    if (!types.includes(filter)) refuse(tool, `${file}: scheduling profile ${profile} has no ${filter}`);
  }

  const namespace = flagValue(args, '--pool-namespace') ?? 'default';
  const endpoints = readEndpoints(tool, endpointsFile, read).filter((e) => e.namespace === namespace);
  // The role filters: prefill-filter keeps role prefill; decode-filter keeps decode, both, or no role.
  const prefill = endpoints.filter((e) => e.role === 'prefill').map((e) => e.url);
  const decode = endpoints.filter((e) => e.role === undefined || e.role === 'decode' || e.role === 'both').map((e) => e.url);
  if (prefill.length === 0 || decode.length === 0)
    refuse(
      tool,
      `${endpointsFile} has ${prefill.length} prefill and ${decode.length} decode endpoints in namespace ${namespace}: P/D routing needs both`,
    );
  const scoring = [...plugins.values()].map((p) => p.type ?? '').filter((t) => EPP_SCORING.has(t));
  return {
    // The EPP's gRPC server listens on every address.
    host: '0.0.0.0',
    port: flagValue(args, '--grpc-port') ?? '9002',
    prefill,
    decode,
    notes: [
      `stand-in: epp routes each request itself (frontier sim router): prefill on one of ${prefill.join(', ')}, then decode on one of ${decode.join(', ')}`,
      ...(scoring.length > 0
        ? [`stand-in: epp picks the least-loaded endpoint of each role in place of ${scoring.join(', ')}`]
        : []),
    ],
  };
}

interface Endpoint {
  namespace: string;
  url: string;
  role: string | undefined;
}

/** file-discovery's endpoints file, checked as the plugin checks it. */
function readEndpoints(tool: string, file: string, read: Read): Endpoint[] {
  const doc = parseYaml(tool, file, read) as { endpoints?: unknown } | null;
  if (!doc || !Array.isArray(doc.endpoints)) return refuse(tool, `${file} has no endpoints: list`);
  const seen = new Set<string>();
  return (doc.endpoints as Record<string, unknown>[]).map((e, i) => {
    const name = typeof e.name === 'string' ? e.name : refuse(tool, `${file}: endpoint ${i} has no name`);
    const namespace = typeof e.namespace === 'string' ? e.namespace : 'default';
    if (seen.has(`${namespace}/${name}`)) refuse(tool, `${file}: endpoint ${namespace}/${name} is listed twice`);
    seen.add(`${namespace}/${name}`);
    const address = String(e.address ?? '');
    if (!isIPv4(address)) refuse(tool, `${file}: endpoint ${name}'s address ${address || '(none)'} is not an IPv4 address`);
    const port = Number(e.port);
    if (typeof e.port !== 'string' || !Number.isInteger(port) || port < 1 || port > 65535)
      refuse(tool, `${file}: endpoint ${name}'s port ${String(e.port)} is not a string of 1 to 65535`);
    const labels = (e.labels ?? {}) as Record<string, unknown>;
    const role = labels['llm-d.ai/role'];
    return { namespace, url: `http://${address}:${port}`, role: typeof role === 'string' ? role : undefined };
  });
}

/** The Envoy stand-in: its listener, what it forwards to, and its admin listener. */
export interface EnvoyStandIn {
  listen: { host: string; port: number };
  admin?: { host: string; port: number };
  /** The ext_proc cluster's address: the EPP stand-in, which routes the requests. */
  upstream: string;
  notes: string[];
}

interface SocketAddress {
  socket_address?: { address?: string; port_value?: number };
}

/**
 * `envoy -c FILE`, as InferenceX's llm-d envoy.yaml configures it: one listener whose HTTP filters
 * are ext_proc (to the EPP) and the router, its routes to an ORIGINAL_DST cluster that takes the
 * EPP's pick from a header. The stand-in forwards the listener to the ext_proc cluster, where the
 * EPP stand-in routes.
 */
export function envoyStandIn(args: readonly string[], read: Read = readText): EnvoyStandIn {
  const tool = 'envoy';
  const file = flagValue(args, '-c', '--config-path');
  if (!file) refuse(tool, 'no -c/--config-path: the stand-in reads its static config');
  const config = parseYaml(tool, file!, read) as {
    static_resources?: {
      listeners?: { address?: SocketAddress; filter_chains?: { filters?: { typed_config?: Record<string, unknown> }[] }[] }[];
      clusters?: {
        name?: string;
        type?: string;
        original_dst_lb_config?: { use_http_header?: boolean };
        load_assignment?: { endpoints?: { lb_endpoints?: { endpoint?: { address?: SocketAddress } }[] }[] };
      }[];
    };
    admin?: { address?: SocketAddress };
  };
  const listeners = config.static_resources?.listeners ?? [];
  if (listeners.length !== 1) refuse(tool, `${file} has ${listeners.length} listeners; the stand-in runs one`);
  const listen = addressOf(tool, file!, 'the listener', listeners[0]!.address);
  const managers = (listeners[0]!.filter_chains ?? [])
    .flatMap((c) => c.filters ?? [])
    .map((f) => f.typed_config ?? {})
    .filter((t) => String(t['@type'] ?? '').endsWith('HttpConnectionManager'));
  if (managers.length !== 1)
    refuse(tool, `${file}: the listener has ${managers.length} HTTP connection managers; the stand-in runs one`);
  const manager = managers[0] as {
    http_filters?: { name?: string; typed_config?: { grpc_service?: { envoy_grpc?: { cluster_name?: string } } } }[];
    route_config?: { virtual_hosts?: { routes?: { route?: { cluster?: string } }[] }[] };
  };
  const filters = manager.http_filters ?? [];
  const other = filters
    .map((f) => f.name ?? '')
    .filter((n) => n !== 'envoy.filters.http.ext_proc' && n !== 'envoy.filters.http.router');
  if (other.length > 0)
    refuse(tool, `${file}: HTTP filter ${other.join(', ')} is not one the stand-in carries out (ext_proc, router)`);
  const extProc = filters.find((f) => f.name === 'envoy.filters.http.ext_proc');
  const eppCluster = extProc?.typed_config?.grpc_service?.envoy_grpc?.cluster_name;
  if (!eppCluster) refuse(tool, `${file}: no ext_proc filter with an envoy_grpc cluster: the stand-in needs the EPP to route`);
  const clusters = config.static_resources?.clusters ?? [];
  const clusterNamed = (name: string) => clusters.find((c) => c.name === name);
  for (const route of (manager.route_config?.virtual_hosts ?? []).flatMap((v) => v.routes ?? [])) {
    const target = clusterNamed(route.route?.cluster ?? '');
    if (target?.type !== 'ORIGINAL_DST' || target.original_dst_lb_config?.use_http_header !== true)
      refuse(
        tool,
        `${file}: a route goes to cluster ${route.route?.cluster ?? '(none)'}, not to an ORIGINAL_DST cluster that takes the EPP's pick from a header; the stand-in sends every request where the EPP stand-in routes it`,
      );
  }
  const epp = clusterNamed(eppCluster!);
  const eppAddresses = (epp?.load_assignment?.endpoints ?? []).flatMap((e) => e.lb_endpoints ?? []);
  if (eppAddresses.length !== 1)
    refuse(tool, `${file}: cluster ${eppCluster} has ${eppAddresses.length} endpoints; the stand-in forwards to one EPP`);
  const to = addressOf(tool, file!, `cluster ${eppCluster}`, eppAddresses[0]!.endpoint?.address);
  return {
    listen,
    ...(config.admin?.address ? { admin: addressOf(tool, file!, 'admin', config.admin.address) } : {}),
    upstream: `http://${to.host}:${to.port}`,
    notes: [
      `stand-in: envoy forwards ${listen.host}:${listen.port} to the EPP stand-in at ${to.host}:${to.port}, which routes each request`,
    ],
  };
}

function addressOf(tool: string, file: string, what: string, a: SocketAddress | undefined): { host: string; port: number } {
  const s = a?.socket_address;
  if (!s?.address || !Number.isInteger(s.port_value))
    return refuse(tool, `${file}: ${what} has no socket_address with address and port_value`);
  return { host: s.address, port: s.port_value! };
}

/** The P/D sidecar stand-in: a proxy from its port to its node's decode vLLM. */
export interface SidecarStandIn {
  host: string;
  port: string;
  to: string;
  notes: string[];
}

/** Connectors whose kv_transfer_params the sim's decode servers take (vLLM's NIXL ones). */
const SIDECAR_CONNECTORS = new Set(['nixl', 'nixlv2']);

/** `pd-sidecar --port=P --vllm-port=V --kv-connector=C --secure-proxy=false …`. */
export function sidecarStandIn(args: readonly string[], env: NodeJS.ProcessEnv): SidecarStandIn {
  const tool = 'pd-sidecar';
  const secure = flagValue(args, '--secure-proxy') ?? 'true';
  if (secure !== 'false') refuse(tool, `--secure-proxy=${secure} serves TLS; the stand-in serves plain HTTP`);
  for (const tls of ['--prefiller-use-tls', '--decoder-use-tls'])
    if ((flagValue(args, tls) ?? (args.includes(tls) ? 'true' : 'false')) !== 'false')
      refuse(tool, `${tls}: the sim's servers speak plain HTTP`);
  const connector = flagValue(args, '--kv-connector') ?? 'nixlv2';
  if (!SIDECAR_CONNECTORS.has(connector))
    refuse(
      tool,
      `--kv-connector=${connector}: the sim's decode servers take kv_transfer_params as vLLM's NIXL connector gives them (nixl, nixlv2)`,
    );
  const host = env.FRONTIER_NODE_ADDR || '127.0.0.1';
  const port = flagValue(args, '--port') ?? '8000';
  const vllm = flagValue(args, '--vllm-port') ?? '8001';
  return {
    host,
    port,
    to: `http://${host}:${vllm}`,
    notes: [
      `stand-in: pd-sidecar on ${host}:${port} passes each request, with the prefill's kv_transfer_params, to its vLLM at ${host}:${vllm} (the EPP stand-in has prefilled it)`,
    ],
  };
}

function parseYaml(tool: string, file: string, read: Read): unknown {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    return refuse(tool, `cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return parse(text) as unknown;
  } catch (e) {
    return refuse(tool, `${file} is not YAML: ${(e as Error).message}`);
  }
}
