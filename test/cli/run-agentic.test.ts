// frontier run's options for agentic-coding rows, through the built CLI (dry runs: nothing starts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, tempFiles } from '../helpers.js';
import { agenticRow } from '../launch/fixtures.js';

const EXAMPLES = join(REPO, 'examples');

function dryRun(...flags: string[]) {
  const dir = tempFiles({ 'matrix.json': JSON.stringify([agenticRow({ conc: 4, runner: 'cluster:h100-lab', duration: 3600 })]) });
  const out = join(dir, 'run');
  const r = runCli([
    '-C',
    EXAMPLES,
    'run',
    '--matrix',
    join(dir, 'matrix.json'),
    '--cluster',
    'local-sim',
    '--out',
    out,
    '--dry-run',
    ...flags,
  ]);
  return { ...r, out };
}

describe('frontier run: agentic options', () => {
  it('replays the row’s duration against the synthetic corpus in the run directory by default', () => {
    const r = dryRun();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`replay at conc 4: frontier bench --trace ${join(r.out, 'traces', 'synth.jsonl')} `);
    expect(r.stdout).toMatch(/--concurrency 4 --benchmark-duration 3600 --warmup-requests-per-lane 10 /);
    // The sim runs ten times faster here: the replay's times are the engine's.
    expect(r.stdout).toContain('--time-scale 10');
  });

  it('takes --traces, --agentic-duration and --agentx-fast', () => {
    const r = dryRun('--traces', 'corpus.jsonl', '--agentic-duration', '120');
    // A path on the command line is relative to where frontier started, not to -C.
    expect(r.stdout).toContain(`--trace ${join(REPO, 'corpus.jsonl')} `);
    expect(r.stdout).toContain('--benchmark-duration 120 ');
    const fast = dryRun('--agentx-fast');
    expect(fast.stdout).toContain('--benchmark-duration 1200 --warmup-requests-per-lane 1 ');
    const bad = dryRun('--agentic-duration', '0');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--agentic-duration');
  });
});
