/**
 * The fleet health workflow `frontier ci init` writes, dispatched on the local runner
 * (test/support/actions-runner.ts): the runners listing comes from a recorded `gh api` answer, the
 * store is a seeded SQLite file, and the webhook is a real HTTP server in another process (the
 * runner blocks this one while steps run), so the payload checked is what curl posted.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLEET_HEALTH_WORKFLOW, workflowFiles } from '../../src/ci/workflows/index.js';
import { daysBefore, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import { CLI, REPO, git } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';
import { ARTIFACTS } from '../store/helpers.js';
import { WORKFLOW_OPTIONS } from './repository.js';

const FIXTURE = join(REPO, 'test/fixtures/clusters/health');
const WORKFLOW = `.github/workflows/${FLEET_HEALTH_WORKFLOW}`;

/** A catalog repository with the fixture's runners.yaml and profiles, and the fleet health workflow, committed. */
function repository(): { dir: string; sha: string } {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-fleet-'));
  mkdirSync(join(dir, 'configs'));
  cpSync(join(FIXTURE, 'runners.yaml'), join(dir, 'configs/runners.yaml'));
  cpSync(join(FIXTURE, 'clusters'), join(dir, 'clusters'), { recursive: true });
  const [, text] = workflowFiles(WORKFLOW_OPTIONS, 'test').find(([path]) => path === WORKFLOW)!;
  mkdirSync(dirname(join(dir, WORKFLOW)), { recursive: true });
  writeFileSync(join(dir, WORKFLOW), text);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'catalog');
  return { dir, sha: git(dir, 'rev-parse', 'HEAD') };
}

/** The fixture's runners as one page of GitHub's answer (the stand-in answers one page). */
function listing(edit: (text: string) => string = (t) => t): unknown {
  const pages = JSON.parse(edit(readFileSync(join(FIXTURE, 'runners.json'), 'utf8'))) as { runners: unknown[] }[];
  const runners = pages.flatMap((p) => p.runners);
  return { total_count: runners.length, runners };
}

const WEBHOOK_SERVER = `
const { appendFileSync } = require('node:fs');
const server = require('node:http').createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    appendFileSync(process.argv[1], JSON.stringify({ method: req.method, type: req.headers['content-type'], body }) + '\\n');
    res.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

describe('the fleet health workflow (dispatched)', () => {
  let webhook: ChildProcess;
  let url: string;
  const received = join(mkdtempSync(join(tmpdir(), 'frontier-webhook-')), 'posts.jsonl');
  const posts = (): { method: string; type: string; body: string }[] => {
    const text = readFileSync(received, 'utf8');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { method: string; type: string; body: string });
  };

  beforeAll(async () => {
    writeFileSync(received, '');
    webhook = spawn(process.execPath, ['-e', WEBHOOK_SERVER, received], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((resolve, reject) => {
      webhook.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
      webhook.once('exit', (code) => reject(new Error(`the webhook server exited (${code})`)));
    });
    url = `http://127.0.0.1:${port}/hook`;
  });
  afterAll(() => {
    if (webhook.pid !== undefined && webhook.exitCode === null) process.kill(webhook.pid);
  });

  const event = JSON.stringify({ repository: { full_name: 'acme/catalog' }, inputs: {}, ref: 'refs/heads/main' });

  it('a fleet that needs attention: the digest in the summary, the payload posted, the job red', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-fleet-db-')), 'frontier.db');
    const store = await openStore(db);
    try {
      for (const runId of ['r1', 'r2']) {
        const batch = readArtifacts(ARTIFACTS, { runId, official: true, date: '2026-12-01' });
        const ended = daysBefore(new Date(), 1);
        batch.attempts = [
          {
            cluster: 'b300-nv',
            launch: 'g0',
            label: 'g0',
            attempt: 1,
            nodes: ['b300-005'],
            outcome: 'infrastructure',
            reason: 'engine failed to start',
            job: '7',
            started_at: ended,
            ended_at: ended,
          },
        ];
        await ingestBatch(store, batch);
      }
    } finally {
      await store.close();
    }
    const repo = repository();
    const r = runWorkflowLocally({
      repo: repo.dir,
      sha: repo.sha,
      workflow: WORKFLOW,
      eventName: 'workflow_dispatch',
      event,
      frontier: CLI,
      secrets: { RUNNERS_PAT: 'ghp_stand-in', FRONTIER_HEALTH_WEBHOOK: url, FRONTIER_DB: db },
      api: { 'actions/runners': listing() },
    });
    expect(r.gh).toEqual([['api', '--paginate', '--slurp', 'repos/acme/catalog/actions/runners?per_page=100']]);
    const steps = r.jobs[0]!.steps.map((s) => [s.name, s.conclusion]);
    expect(steps.slice(3)).toEqual([
      ['List the self-hosted runners', 'success'],
      ['Check the fleet', 'failure'],
      ['Summary', 'success'],
      ['Post to the webhook', 'success'],
    ]);
    expect(r.results.health).toBe('failure');
    expect(r.jobs[0]!.steps.find((s) => s.name === 'Check the fleet')!.outputs).toEqual({ attention: 'true' });

    expect(r.summary).toContain('## :warning: Fleet health: needs attention');
    expect(r.summary).toContain(
      '- **no online runner for b300 (2 offline, 1 not registered), cluster:b300-nv (2 offline, 1 not registered)**',
    );
    expect(r.summary).toContain('acme/catalog · ');
    expect(r.summary).toContain('[workflow run](https://github.com/acme/catalog/actions/runs/4242)');
    expect(r.summary).toContain('| **b300** | 0 | 0 | 2 | 1 | b300-nv | **no online runner** |');
    expect(r.summary).toMatch(/\| b300-nv \| b300-005 \| 2 \| 2 \| [-0-9 :]+ \| r2 \| engine failed to start \|/);

    const [post] = posts();
    expect(posts()).toHaveLength(1);
    expect([post!.method, post!.type]).toEqual(['POST', 'application/json']);
    const payload = JSON.parse(post!.body) as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(payload.text).toBe(
      ':warning: Fleet health: needs attention (acme/catalog): no online runner for b300 (2 offline, 1 not registered), cluster:b300-nv (2 offline, 1 not registered); 2 of 6 self-hosted runners offline; 1 node failed 2 launches or more in the last 7 days',
    );
    expect(payload.blocks.map((b) => b.type)).toEqual([
      'header',
      'section',
      'section',
      'section',
      'section',
      'section',
      'context',
    ]);
    expect(payload.blocks.map((b) => b.text?.text.split('\n')[0])).toContain('*Offline runners*');
    expect(JSON.stringify(payload.blocks.at(-1))).toContain('<https://github.com/acme/catalog/actions/runs/4242|workflow run>');
  }, 60_000);

  it('a healthy fleet and no webhook secret: the summary only, nothing posted, the job green', () => {
    const before = posts().length;
    const repo = repository();
    const r = runWorkflowLocally({
      repo: repo.dir,
      sha: repo.sha,
      workflow: WORKFLOW,
      eventName: 'workflow_dispatch',
      event,
      frontier: CLI,
      secrets: { RUNNERS_PAT: 'ghp_stand-in' },
      api: { 'actions/runners': listing((t) => t.replace(/"offline"/g, '"online"')) },
    });
    expect(r.results.health).toBe('success');
    expect(r.jobs[0]!.steps.slice(3).map((s) => [s.name, s.conclusion])).toEqual([
      ['List the self-hosted runners', 'success'],
      ['Check the fleet', 'success'],
      ['Summary', 'success'],
      ['Post to the webhook', 'skipped'],
    ]);
    expect(r.summary).toContain('## :white_check_mark: Fleet health: healthy');
    expect(r.summary).toContain('all 6 self-hosted runners online (2 busy); launch failures not checked (no store)');
    expect(posts()).toHaveLength(before);
  }, 60_000);
});
