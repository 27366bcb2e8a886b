/**
 * A catalog repository for the `frontier ci` tests: main holds the example catalog and one
 * changelog entry; branch `pr` moves the simulated config to a new image and appends its entry.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, git, tempFiles } from '../helpers.js';

const LINK = 'https://github.com/acme/catalog/pull/';
const entry = (key: string, what: string, pr: number): string =>
  `- config-keys:\n    - ${key}\n  description:\n    - "${what}"\n  pr-link: ${LINK}${pr}\n`;

export interface CatalogRepository {
  dir: string;
  base: string;
  head: string;
}

/** The repository, with `message` as the head commit's message. */
export function catalogRepository(message = 'sim: the v2 image'): CatalogRepository {
  const history = entry('qwen3-0.6b-q8-cpu-llamacpp', 'Initial', 1);
  const dir = tempFiles({
    'configs/example-master.yaml': readFileSync(join(REPO, 'examples/configs/example-master.yaml'), 'utf8'),
    'configs/runners.yaml': readFileSync(join(REPO, 'examples/configs/runners.yaml'), 'utf8'),
    'perf-changelog.yaml': history,
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'checkout', '-q', '-b', 'pr');
  const master = join(dir, 'configs/example-master.yaml');
  writeFileSync(master, readFileSync(master, 'utf8').replace('frontier/sim:local', 'frontier/sim:v2'));
  writeFileSync(join(dir, 'perf-changelog.yaml'), `${history}\n${entry('llama3.1-8b-fp8-h100-sim', 'The v2 sim image', 2)}`);
  git(dir, 'commit', '-q', '-am', message);
  return { dir, base: git(dir, 'rev-parse', 'main'), head: git(dir, 'rev-parse', 'pr') };
}

/** A pull_request event payload, as Actions writes it (the fields Frontier reads, and a few it does not). */
export function pullRequestEvent(
  repo: CatalogRepository,
  o: { action?: string; label?: string; labels?: string[]; draft?: boolean; headRepo?: string } = {},
): string {
  return JSON.stringify({
    action: o.action ?? 'synchronize',
    number: 2,
    ...(o.label ? { label: { name: o.label } } : {}),
    repository: { full_name: 'acme/catalog' },
    sender: { login: 'alice' },
    pull_request: {
      number: 2,
      draft: o.draft ?? false,
      title: 'The v2 sim image',
      body: 'Moves the simulated config to v2.',
      user: { login: 'alice' },
      labels: (o.labels ?? []).map((name, i) => ({ id: i + 1, name, color: 'ededed' })),
      head: { sha: repo.head, ref: 'pr', repo: { full_name: o.headRepo ?? 'acme/catalog' } },
      base: { sha: repo.base, ref: 'main', repo: { full_name: 'acme/catalog' } },
    },
  });
}

/** The `ci init` options the workflow tests write workflows with. */
export const WORKFLOW_OPTIONS = {
  frontierPackage: 'frontier@1',
  nodeVersion: '20',
  dbSecret: 'FRONTIER_DB',
  dashboardUrl: '',
  mainBranch: 'main',
};
