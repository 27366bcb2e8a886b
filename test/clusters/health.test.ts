// frontier clusters health: the recorded runners listing, the digest (fleetHealth) over runners.yaml,
// the cluster profiles and a real SQLite store's failing nodes, its renderings, and the command.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fleetHealth, healthMarkdown, healthSlack, healthText, parseRunnersListing } from '../../src/clusters/index.js';
import type { FleetHealthInput, GithubRunner } from '../../src/clusters/index.js';
import { daysBefore, failingNodes, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import type { AttemptInput } from '../../src/store/index.js';
import { UserError } from '../../src/util/user-error.js';
import { REPO, runCli } from '../helpers.js';
import { ARTIFACTS } from '../store/helpers.js';

const FIXTURE = join(REPO, 'test/fixtures/clusters/health');
const LISTING = readFileSync(join(FIXTURE, 'runners.json'), 'utf8');
const AT = new Date('2026-12-07T12:00:00.000Z');

const runner = (name: string, status: 'online' | 'offline', busy: boolean, labels: string[] = []): GithubRunner => ({
  id: 0,
  name,
  os: 'Linux',
  status,
  busy,
  labels: ['self-hosted', 'Linux', 'X64', ...labels],
});

const LABELS = {
  h100: ['h100-cw_00', 'h100-cw_01'],
  b300: ['b300-nv_0', 'b300-nv_1'],
};
const CLUSTERS = [
  { name: 'b300-nv', runners: ['b300'] },
  { name: 'h100-cw', runners: ['h100'] },
];

const digest = (over: Partial<FleetHealthInput>) =>
  fleetHealth({
    runners: [],
    labels: LABELS,
    clusters: CLUSTERS,
    nodes: { store: 'frontier.db', failing: [] },
    sinceDays: 7,
    minFailures: 2,
    at: AT,
    ...over,
  });

describe('the recorded runners listing', () => {
  it('reads every shape gh writes: --slurp pages, pages back to back, one page, an array of runners', () => {
    const slurped = parseRunnersListing(LISTING, 'runners.json');
    expect(slurped.map((r) => `${r.name}:${r.status}${r.busy ? '+busy' : ''}`)).toEqual([
      'b300-nv_0:offline',
      'b300-nv_1:offline',
      'cpu-builder:online+busy',
      'h100-cw_00:online+busy',
      'h100-cw_01:online',
      'h100-dgxc_00:online',
    ]);
    expect(slurped[3]!.labels).toEqual(['self-hosted', 'Linux', 'X64', 'h100', 'cluster:h100-cw']);
    const pages = JSON.parse(LISTING) as { runners: unknown[] }[];
    // `gh api --paginate` without --slurp: each page's object, one after the other.
    expect(parseRunnersListing(pages.map((p) => JSON.stringify(p)).join('\n'), 'x.json')).toEqual(slurped);
    expect(parseRunnersListing(JSON.stringify({ total_count: 6, runners: pages.flatMap((p) => p.runners) }), 'x')).toEqual(
      slurped,
    );
    expect(parseRunnersListing(JSON.stringify(pages.flatMap((p) => p.runners)), 'x')).toEqual(slurped);
    expect(parseRunnersListing('[]', 'x')).toEqual([]);
  });

  it('refuses what is not one, naming the file, the runner and the key', () => {
    const bad = LISTING.replace('"status": "offline"', '"status": "idle"');
    expect(() => parseRunnersListing(bad, 'runners.json')).toThrow(UserError);
    expect(() => parseRunnersListing(bad, 'runners.json')).toThrow(
      'runners.json: [0], runners[0].status: expected "online" or "offline", got "idle"',
    );
    expect(() => parseRunnersListing('{"message":"Bad credentials"}', 'r.json')).toThrow(
      'r.json: not a runners listing: expected { "total_count", "runners": [...] }',
    );
    expect(() => parseRunnersListing('{"runners": [', 'r.json')).toThrow('r.json: not JSON: it ends inside a value');
    expect(() => parseRunnersListing('', 'r.json')).toThrow('r.json: not JSON: it is empty');
    const twice = JSON.stringify(
      [runner('a', 'online', false), runner('a', 'offline', false)].map((r) => ({ ...r, labels: [] })),
    );
    expect(() => parseRunnersListing(twice, 'r.json')).toThrow('r.json: [1]: runner "a" is listed twice (also at [0])');
  });
});

describe('the digest', () => {
  it('all online: healthy, busy runners counted as online, nothing to post', () => {
    const h = digest({
      runners: [
        runner('h100-cw_00', 'online', true, ['h100']),
        runner('h100-cw_01', 'online', false),
        runner('b300-nv_0', 'online', true),
        runner('b300-nv_1', 'online', true),
      ],
    });
    expect(h.attention).toBe(false);
    expect(h.findings).toEqual([]);
    expect(h.runners).toEqual({ total: 4, online: 4, busy: 3, offline: 0 });
    expect(h.labels.map((l) => [l.label, l.online, l.busy, l.offline, l.down, l.clusters])).toEqual([
      ['b300', 2, 2, 0, false, ['b300-nv']],
      ['h100', 2, 1, 0, false, ['h100-cw']],
    ]);
    const md = healthMarkdown(h);
    expect(md).toContain('## :white_check_mark: Fleet health: healthy');
    expect(md).toContain('all 4 self-hosted runners online (3 busy); no node failed 2 launches or more in the last 7 days');
    // Every runner of b300 is busy: said, but not something to act on.
    expect(md).toContain('| b300 | 2 | 2 | 0 | 0 | b300-nv | all busy |');
    expect(healthSlack(h).text).toBe(
      ':white_check_mark: Fleet health: healthy: all 4 self-hosted runners online (3 busy); no node failed 2 launches or more in the last 7 days',
    );
  });

  it('one hardware fully offline is the headline; its label comes first; a label listing no registered runner is down too', () => {
    const h = digest({
      runners: parseRunnersListing(LISTING, 'runners.json'),
      labels: {
        ...LABELS,
        b300: ['b300-nv_0', 'b300-nv_1', 'b300-nv_2'],
        gb300: ['gb300-nv_0'],
        'h100-multinode': ['h100-dgxc_00'],
      },
    });
    expect(h.attention).toBe(true);
    expect(h.findings).toEqual([
      'no online runner for b300 (2 offline, 1 not registered), gb300 (0 offline, 1 not registered)',
      '2 of 6 self-hosted runners offline',
    ]);
    expect(h.labels.map((l) => `${l.label}:${l.down ? 'down' : 'up'}`)).toEqual([
      'b300:down',
      'gb300:down',
      'h100:up',
      'h100-multinode:up',
    ]);
    expect(h.labels[0]!.unregistered).toEqual(['b300-nv_2']);
    // h100-dgxc_00 serves h100 by its GitHub label though runners.yaml does not list it there.
    expect(h.labels.find((l) => l.label === 'h100')!.runners).toEqual(['h100-cw_00', 'h100-cw_01', 'h100-dgxc_00']);
    expect(h.offline.map((r) => [r.name, r.labels, r.githubLabels])).toEqual([
      ['b300-nv_0', ['b300'], ['b300', 'cluster:b300-nv']],
      ['b300-nv_1', ['b300'], ['b300', 'cluster:b300-nv']],
    ]);
    const md = healthMarkdown(h);
    expect(md).toContain('## :warning: Fleet health: needs attention');
    expect(md).toContain('- **no online runner for b300 (2 offline, 1 not registered), gb300');
    expect(md).toContain('| **b300** | 0 | 0 | 2 | 1 | b300-nv | **no online runner** |');
    expect(md).toContain('| **gb300** | 0 | 0 | 0 | 1 | — | **no runner registered** |');
    expect(md).toContain('| `b300-nv_0` | Linux | b300 | b300, cluster:b300-nv |');
    expect(md).toContain('| b300 | `b300-nv_2` |');
    const text = healthText(h);
    expect(text.split('\n')[0]).toBe(`Fleet health: needs attention: ${h.findings.join('; ')}`);
    expect(text).toMatch(/^b300\s+0\s+0\s+2\s+1\s+b300-nv\s+no online runner$/m);
    const slack = healthSlack(h);
    expect(slack.text.startsWith(':warning: Fleet health: needs attention: no online runner for b300')).toBe(true);
    expect(slack.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Fleet health: needs attention' } });
    const sections = slack.blocks.map((b) => (b as { text?: { text: string } }).text?.text ?? '');
    expect(sections).toContain(
      '*Labels with no online runner*\n• `b300` (b300-nv): no online runner\n• `gb300`: no runner registered',
    );
    expect(sections).toContain('*Offline runners*\n• `b300-nv_0` (Linux): b300\n• `b300-nv_1` (Linux): b300');
  });

  it('lists registered runners no runners.yaml label names as unknown (offline ones count as offline)', () => {
    const h = digest({
      runners: [
        runner('h100-cw_00', 'online', false),
        runner('b300-nv_0', 'online', false),
        runner('cpu-builder', 'online', true, ['cpu']),
        runner('old-box', 'offline', false),
      ],
    });
    expect(h.unknown.map((r) => [r.name, r.state, r.githubLabels])).toEqual([
      ['cpu-builder', 'busy', ['cpu']],
      ['old-box', 'offline', []],
    ]);
    expect(h.findings).toEqual(['1 of 4 self-hosted runners offline']);
    expect(h.labels.every((l) => !l.down)).toBe(true);
    expect(healthMarkdown(h)).toContain('### Runners no label of runners.yaml names (2)\n\n| runner | state | GitHub labels |');
    expect(healthMarkdown(h)).toContain('| `cpu-builder` | busy | cpu |');
    expect(healthSlack(h).blocks.map((b) => (b as { text?: { text: string } }).text?.text ?? '')).toContain(
      '*Runners no label of runners.yaml names*\n• `cpu-builder` (Linux): cpu\n• `old-box` (Linux): —',
    );
  });

  it('keeps every webhook section under Slack’s 3000 characters, counting what is left out, and escapes mrkdwn', () => {
    const many = Array.from({ length: 300 }, (_, i) => runner(`b300-nv_${i}`, 'offline', false, ['b300']));
    const h = digest({ runners: many, repository: 'acme/<catalog>&co' });
    const slack = healthSlack(h);
    const offline = slack.blocks
      .map((b) => (b as { text?: { text: string } }).text?.text ?? '')
      .find((t) => t.startsWith('*Offline'))!;
    expect(offline.length).toBeLessThanOrEqual(3000);
    const shown = offline.split('\n').filter((l) => l.startsWith('• ')).length;
    expect(offline).toMatch(new RegExp(`… and ${300 - shown} more \\(see the step summary\\)$`));
    expect(shown).toBeGreaterThan(10);
    expect(slack.text).toContain('(acme/&lt;catalog&gt;&amp;co)');
    expect(JSON.stringify(slack.blocks.at(-1))).toContain('acme/&lt;catalog&gt;&amp;co');
  });
});

/** A SQLite store holding two runs of the InferenceX artifact fixture with these launch attempts each. */
async function seededStore(runs: { runId: string; attempts: Omit<AttemptInput, 'launch' | 'label' | 'job' | 'started_at'>[] }[]) {
  const db = join(mkdtempSync(join(tmpdir(), 'frontier-health-')), 'frontier.db');
  const store = await openStore(db);
  for (const r of runs) {
    const batch = readArtifacts(ARTIFACTS, { runId: r.runId, official: true, date: '2026-12-01' });
    batch.attempts = r.attempts.map((a, i) => ({
      ...a,
      launch: `g${i}`,
      label: `g${i}`,
      job: String(i),
      started_at: a.ended_at,
    }));
    await ingestBatch(store, batch);
  }
  return { db, store };
}

const failure = (cluster: string, nodes: string[], ended: string, reason = 'engine failed to start') => ({
  cluster,
  attempt: 1,
  nodes,
  outcome: 'infrastructure',
  reason,
  ended_at: ended,
});

describe('nodes with repeated launch failures (a seeded SQLite store)', () => {
  it('are named with their cluster’s labels; failures older than the window are left out', async () => {
    const { store } = await seededStore([
      {
        runId: 'r1',
        attempts: [
          failure('b300-nv', ['b300-005'], '2026-12-05T10:00:00.000Z'),
          { ...failure('b300-nv', ['b300-006'], '2026-12-05T10:10:00.000Z'), attempt: 2, outcome: 'ok', reason: '' },
          failure('h100-cw', ['h100-01'], '2026-11-01T10:00:00.000Z', 'NODE_FAIL'),
        ],
      },
      {
        runId: 'r2',
        attempts: [
          failure('b300-nv', ['b300-005'], '2026-12-06T10:00:00.000Z', 'CUDA error: uncorrectable ECC | node drained'),
          failure('h100-cw', ['h100-01'], '2026-11-02T10:00:00.000Z', 'NODE_FAIL'),
        ],
      },
    ]);
    try {
      const failing = await failingNodes(store, { minFailures: 2, since: daysBefore(AT, 7) });
      // h100-01 failed twice too, but a month ago.
      expect(failing.map((n) => `${n.cluster}/${n.node}:${n.failures}/${n.attempts}`)).toEqual(['b300-nv/b300-005:2/2']);
      expect((await failingNodes(store, { minFailures: 2 })).map((n) => n.node)).toEqual(['b300-005', 'h100-01']);
      const h = digest({
        runners: [runner('h100-cw_00', 'online', false), runner('b300-nv_0', 'online', false)],
        nodes: { store: store.location, failing },
      });
      expect(h.attention).toBe(true);
      expect(h.findings).toEqual(['1 node failed 2 launches or more in the last 7 days']);
      expect(h.nodes.failing.map((n) => [n.node, n.labels, n.last_failure_run])).toEqual([['b300-005', ['b300'], 'r2']]);
      const md = healthMarkdown(h);
      expect(md).toContain('### Nodes whose launches keep failing (2 failures or more in the last 7 days)');
      expect(md).toContain(
        '| b300-nv | b300-005 | 2 | 2 | 2026-12-06 10:00 | r2 | CUDA error: uncorrectable ECC \\| node drained |',
      );
      expect(healthSlack(h).blocks.map((b) => (b as { text?: { text: string } }).text?.text ?? '')).toContain(
        '*Nodes whose launches keep failing (2 failures or more in the last 7 days)*\n• `b300-nv/b300-005`: 2 failures in 2 attempts, last 2026-12-06 10:00: CUDA error: uncorrectable ECC | node drained',
      );
    } finally {
      await store.close();
    }
  });

  it('without a store the digest says the nodes were not checked', () => {
    const h = digest({
      runners: [runner('h100-cw_00', 'online', false), runner('b300-nv_0', 'online', false)],
      nodes: { store: undefined, failing: [] },
    });
    expect(h.attention).toBe(false);
    expect(healthMarkdown(h)).toContain('_launch failures not checked: no store given (--db or $FRONTIER_DB)._');
  });
});

describe('frontier clusters health (the command)', () => {
  it('reads a recorded listing, runners.yaml, the profiles and the store; exit 1 with the payload written; 0 when healthy', async () => {
    const recent = daysBefore(new Date(), 1);
    const { db, store } = await seededStore([
      { runId: 'r1', attempts: [failure('b300-nv', ['b300-005'], recent)] },
      { runId: 'r2', attempts: [failure('b300-nv', ['b300-005'], recent)] },
    ]);
    await store.close();
    const dir = mkdtempSync(join(tmpdir(), 'frontier-health-cli-'));
    const payload = join(dir, 'payload.json');
    const args = [
      'clusters',
      'health',
      '--runners',
      join(FIXTURE, 'runners.json'),
      '--runner-config',
      join(FIXTURE, 'runners.yaml'),
    ];
    const r = runCli([...args, '--clusters', join(FIXTURE, 'clusters'), '--db', db, '--format', 'json', '--payload', payload], {
      env: { GITHUB_REPOSITORY: 'acme/catalog' },
    });
    expect([r.status, r.stderr]).toEqual([1, '']);
    const h = JSON.parse(r.stdout) as ReturnType<typeof fleetHealth>;
    expect(h.repository).toBe('acme/catalog');
    expect(h.findings).toEqual([
      'no online runner for b300 (2 offline, 1 not registered), cluster:b300-nv (2 offline, 1 not registered)',
      '2 of 6 self-hosted runners offline',
      '1 node failed 2 launches or more in the last 7 days',
    ]);
    expect(h.labels.slice(0, 2).map((l) => [l.label, l.clusters])).toEqual([
      ['b300', ['b300-nv']],
      ['cluster:b300-nv', ['b300-nv']],
    ]);
    expect(h.unknown.map((u) => u.name)).toEqual(['cpu-builder']);
    expect(h.nodes.failing.map((n) => [n.cluster, n.node, n.labels])).toEqual([
      ['b300-nv', 'b300-005', ['b300', 'cluster:b300-nv']],
    ]);
    const posted = JSON.parse(readFileSync(payload, 'utf8')) as { text: string; blocks: unknown[] };
    expect(posted.text).toMatch(/^:warning: Fleet health: needs attention \(acme\/catalog\): no online runner for b300/);

    // Everything online, no store given: healthy (0), and the digest says what it did not check.
    const online = join(dir, 'online.json');
    writeFileSync(online, LISTING.replace(/"offline"/g, '"online"'));
    const ok = runCli(['clusters', 'health', '--runners', online, '--runner-config', join(FIXTURE, 'runners.yaml')], {
      cwd: dir,
      env: { FRONTIER_DB: '' },
    });
    expect([ok.status, ok.stderr]).toEqual([0, '']);
    expect(ok.stdout.split('\n')[0]).toBe(
      'Fleet health: healthy: all 6 self-hosted runners online (2 busy); launch failures not checked (no store)',
    );
    // b300-nv_2 is still not registered: said, not a failure.
    expect(ok.stdout).toContain(
      'named in runners.yaml, not registered with GitHub:\n  b300: b300-nv_2\n  cluster:b300-nv: b300-nv_2',
    );
  }, 30_000);

  it('refuses a listing that is not one, a store that is not there, and a missing --runners', () => {
    const dir = mkdtempSync(join(tmpdir(), 'frontier-health-bad-'));
    const listing = join(dir, 'runners.json');
    writeFileSync(listing, '{"message":"Resource not accessible by integration","status":"403"}');
    const bad = runCli(['clusters', 'health', '--runners', listing, '--runner-config', join(FIXTURE, 'runners.yaml')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`${listing}: not a runners listing: expected { "total_count", "runners": [...] }`);
    expect(bad.stderr).toContain('gh api --paginate --slurp "repos/OWNER/REPO/actions/runners?per_page=100" > runners.json');
    const nostore = runCli([
      'clusters',
      'health',
      '--runners',
      join(FIXTURE, 'runners.json'),
      '--runner-config',
      join(FIXTURE, 'runners.yaml'),
      '--db',
      join(dir, 'missing.db'),
    ]);
    expect(nostore.status).toBe(1);
    expect(nostore.stderr).toContain(`--db ${join(dir, 'missing.db')}: no store there`);
    // As every command's: commander's message, exit 1 (no digest, so no `attention` output either).
    const usage = runCli(['clusters', 'health']);
    expect([usage.status, usage.stdout]).toEqual([1, '']);
    expect(usage.stderr).toContain("required option '--runners <file>' not specified");
  });
});
