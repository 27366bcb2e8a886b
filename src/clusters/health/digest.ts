/**
 * The fleet's health, decided once: which self-hosted runners are offline, which runner labels of
 * runners.yaml have no online runner left (no job routed to them can start: the headline), and
 * which nodes keep failing their launches (the store's launch attempts, `failingNodes`). The
 * renderers (render.ts) only print this.
 */
import type { NodeRow } from '../../contract/index.js';
import type { GithubRunner } from './listing.js';

/** online: idle and ready; busy: online, running a job; offline: not connected to GitHub. */
export type RunnerState = 'online' | 'busy' | 'offline';

export interface RunnerHealth {
  name: string;
  os: string;
  state: RunnerState;
  /** The runners.yaml labels it serves: those listing its name, and those it carries as a GitHub label. */
  labels: string[];
  /** Its custom GitHub labels (not self-hosted, the OS or the architecture). */
  githubLabels: string[];
}

export interface LabelHealth {
  label: string;
  /** The cluster profiles (clusters/*.yaml) whose `runners` include the label. */
  clusters: string[];
  /** The registered runners that serve it, by name. */
  runners: string[];
  /** Runners serving it that are online (busy ones included), busy, offline. */
  online: number;
  busy: number;
  offline: number;
  /** Runner names runners.yaml lists under it that GitHub does not list at all. */
  unregistered: string[];
  /** No runner serving it is online: jobs for it wait until one comes back. */
  down: boolean;
}

export interface FailingNode extends NodeRow {
  /** The runner labels its cluster serves (from the cluster's profile; none when no profile names it). */
  labels: string[];
}

export interface NodeCheck {
  /** Where the launch attempts were read; undefined when no store was given (the nodes were not checked). */
  store: string | undefined;
  /** Only attempts of the last this many days (undefined: every stored attempt). */
  sinceDays: number | undefined;
  minFailures: number;
  failing: FailingNode[];
}

export interface FleetHealth {
  /** When the digest was made (ISO 8601). */
  at: string;
  repository: string | undefined;
  runUrl: string | undefined;
  /** Something needs a person: a label without an online runner, an offline runner, a node failing repeatedly. */
  attention: boolean;
  /** One line per finding, the most pressing first (labels that are down, then offline runners, then nodes). */
  findings: string[];
  runners: { total: number; online: number; busy: number; offline: number };
  /** Every runners.yaml label: those that are down first, then those with offline runners, then the rest, by name. */
  labels: LabelHealth[];
  offline: RunnerHealth[];
  /** Registered runners that serve no runners.yaml label (neither listed by name nor carrying a label). */
  unknown: RunnerHealth[];
  nodes: NodeCheck;
}

export interface FleetHealthInput {
  runners: readonly GithubRunner[];
  /** runners.yaml's `labels`: label → runner names. */
  labels: Readonly<Record<string, readonly string[]>>;
  /** The cluster profiles, by name, with the runner labels each serves. */
  clusters: readonly { name: string; runners: readonly string[] }[];
  /** Where the failing nodes were read (undefined: no store, not checked), and the nodes (`failingNodes` with the window and threshold below). */
  nodes: { store: string | undefined; failing: readonly NodeRow[] };
  sinceDays: number | undefined;
  minFailures: number;
  at: Date;
  repository?: string | undefined;
  runUrl?: string | undefined;
}

/** GitHub's own labels of a self-hosted runner (not chosen by whoever registered it). */
const DEFAULT_LABELS = new Set(['self-hosted', 'linux', 'windows', 'macos', 'x64', 'arm64', 'arm']);

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

const stateOf = (r: GithubRunner): RunnerState => (r.status === 'offline' ? 'offline' : r.busy ? 'busy' : 'online');

export function fleetHealth(input: FleetHealthInput): FleetHealth {
  const labelNames = Object.keys(input.labels).sort(byName);
  const registered = new Set(input.runners.map((r) => r.name));
  const runners: RunnerHealth[] = [...input.runners]
    .sort((a, b) => byName(a.name, b.name))
    .map((r) => ({
      name: r.name,
      os: r.os,
      state: stateOf(r),
      labels: labelNames.filter((l) => input.labels[l]!.includes(r.name) || r.labels.includes(l)),
      githubLabels: r.labels.filter((l) => !DEFAULT_LABELS.has(l.toLowerCase())),
    }));
  const clustersOf = (label: string): string[] =>
    input.clusters
      .filter((c) => c.runners.includes(label))
      .map((c) => c.name)
      .sort(byName);

  const labels: LabelHealth[] = labelNames.map((label) => {
    const serving = runners.filter((r) => r.labels.includes(label));
    const online = serving.filter((r) => r.state !== 'offline').length;
    return {
      label,
      clusters: clustersOf(label),
      runners: serving.map((r) => r.name),
      online,
      busy: serving.filter((r) => r.state === 'busy').length,
      offline: serving.filter((r) => r.state === 'offline').length,
      unregistered: input.labels[label]!.filter((n) => !registered.has(n)),
      down: online === 0,
    };
  });
  const rank = (l: LabelHealth): number => (l.down ? 0 : l.offline > 0 ? 1 : 2);
  labels.sort((a, b) => rank(a) - rank(b) || byName(a.label, b.label));

  const offline = runners.filter((r) => r.state === 'offline');
  const unknown = runners.filter((r) => r.labels.length === 0);
  const nodes: NodeCheck = {
    store: input.nodes.store,
    sinceDays: input.sinceDays,
    minFailures: input.minFailures,
    failing: input.nodes.failing.map((n) => ({
      ...n,
      labels: input.clusters.find((c) => c.name === n.cluster)?.runners.slice() ?? [],
    })),
  };

  const findings: string[] = [];
  const down = labels.filter((l) => l.down);
  if (down.length > 0)
    findings.push(
      `no online runner for ${down.map((l) => `${l.label} (${l.offline} offline${l.unregistered.length > 0 ? `, ${l.unregistered.length} not registered` : ''})`).join(', ')}`,
    );
  if (offline.length > 0) findings.push(`${offline.length} of ${plural(runners.length, 'self-hosted runner')} offline`);
  if (nodes.failing.length > 0)
    findings.push(
      `${plural(nodes.failing.length, 'node')} failed ${plural(nodes.minFailures, 'launch', 'launches')} or more${windowText(nodes)}`,
    );
  return {
    at: input.at.toISOString(),
    repository: input.repository,
    runUrl: input.runUrl,
    attention: findings.length > 0,
    findings,
    runners: {
      total: runners.length,
      online: runners.filter((r) => r.state !== 'offline').length,
      busy: runners.filter((r) => r.state === 'busy').length,
      offline: offline.length,
    },
    labels,
    offline,
    unknown,
    nodes,
  };
}

/** ` in the last N days`, or '' for the whole history. */
export const windowText = (n: Pick<NodeCheck, 'sinceDays'>): string =>
  n.sinceDays === undefined ? '' : ` in the last ${plural(n.sinceDays, 'day')}`;

/** The digest's one-line verdict: what needs attention, or that nothing does. */
export function headline(h: FleetHealth): string {
  if (h.attention) return h.findings.join('; ');
  const busy = h.runners.busy > 0 ? ` (${h.runners.busy} busy)` : '';
  const runners =
    h.runners.total === 0
      ? 'no self-hosted runner registered'
      : `all ${plural(h.runners.total, 'self-hosted runner')} online${busy}`;
  const nodes =
    h.nodes.store === undefined
      ? 'launch failures not checked (no store)'
      : `no node failed ${plural(h.nodes.minFailures, 'launch', 'launches')} or more${windowText(h.nodes)}`;
  return `${runners}; ${nodes}`;
}
