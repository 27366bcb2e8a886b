/**
 * What every generated workflow shares: how Frontier is installed on a runner, the actions
 * used, and the YAML writer. Workflows are built as objects and written with the YAML library,
 * so expressions stay plain strings and the output is always well-formed.
 */
import { stringify } from 'yaml';

export interface WorkflowOptions {
  /** What `npm install --global` installs: `frontier@<version>`, a tarball URL, `github:owner/repo#tag`. */
  frontierPackage: string;
  /** The Node.js major version the runners use. */
  nodeVersion: string;
  /** The secret holding the store's location (a postgres:// URL). */
  dbSecret: string;
  /** The dashboard's public URL, for links in the PR comment ('' for none). */
  dashboardUrl: string;
  /** The branch official results come from. */
  mainBranch: string;
}

export type Step = Record<string, unknown>;
export type Job = Record<string, unknown>;

export const CHECKOUT = 'actions/checkout@v4';
export const UPLOAD = 'actions/upload-artifact@v4';
export const DOWNLOAD = 'actions/download-artifact@v4';
export const SETUP_NODE = 'actions/setup-node@v4';

/**
 * Check out the repository and install Frontier. With history (the default): the changelog gate,
 * reuse and sign-off read base..head; a benchmark job needs only the tree. With `ref` (an
 * expression; empty means the event's commit), that commit, and no token left in .git/config:
 * it may be an approved external contributor's tree.
 */
export function setupSteps(o: WorkflowOptions, { history = true, ref }: { history?: boolean; ref?: string } = {}): Step[] {
  const pinned = ref === undefined ? {} : { ref, 'persist-credentials': false };
  const checkout = { ...(history ? { 'fetch-depth': 0 } : {}), ...pinned };
  return [
    Object.keys(checkout).length > 0
      ? { name: 'Check out', uses: CHECKOUT, with: checkout }
      : { name: 'Check out', uses: CHECKOUT },
    ...installSteps(o),
  ];
}

/** Node.js and Frontier (the pinned package, from the registry): all a job needs that checks nothing out. */
export function installSteps(o: WorkflowOptions): Step[] {
  return [
    { name: 'Set up Node.js', uses: SETUP_NODE, with: { 'node-version': o.nodeVersion } },
    { name: 'Install Frontier', run: 'npm install --global "$FRONTIER_PACKAGE"' },
  ];
}

/** The workflow-level environment every job reads. */
export const frontierEnv = (o: WorkflowOptions): Record<string, string> => ({ FRONTIER_PACKAGE: o.frontierPackage });

/** A workflow as YAML, under a header saying where it came from. */
export function workflowYaml(header: string, workflow: Record<string, unknown>): string {
  const body = stringify(workflow, { lineWidth: 0, aliasDuplicateObjects: false });
  return `${header
    .split('\n')
    .map((l) => `# ${l}`.trimEnd())
    .join('\n')}\n${body}`;
}
