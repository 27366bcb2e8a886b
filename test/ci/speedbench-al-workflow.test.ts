/**
 * The AL collection workflow `frontier ci init` writes, dispatched and run locally
 * (test/support/actions-runner.ts): its one collect step starts a simulated engine per draft
 * length and thinking mode, and the golden YAML comes back as the artifact InferenceX names.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGoldenFile } from '../../src/specdec/golden.js';
import { CLI, REPO, git, runCli, tempFiles } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';

const SIM = `"${process.execPath}" "${CLI}" sim serve --port {port} --speed 50 --seed 2 --natural-output-tokens 100000`;

describe('frontier-speedbench-al.yml, dispatched', () => {
  it('collects each cell on a simulated engine and uploads the golden YAML, with its source run', async () => {
    const dir = tempFiles({});
    cpSync(join(REPO, 'test/fixtures/speedbench'), join(dir, 'speed_bench_data'), { recursive: true });
    expect(runCli(['ci', 'init', '--dir', dir]).status).toBe(0);
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'the workflows and SPEED-Bench');
    const run = runWorkflowLocally({
      repo: dir,
      sha: git(dir, 'rev-parse', 'HEAD'),
      workflow: '.github/workflows/frontier-speedbench-al.yml',
      eventName: 'workflow_dispatch',
      event: JSON.stringify({
        repository: { full_name: 'acme/catalog' },
        inputs: {
          runner: 'b300',
          model: 'meta-llama/Llama-3.1-8B-Instruct',
          'model-prefix': 'llama8b',
          serve: `case {thinking} in on) a=1.7;; off) a=1.9;; esac; exec ${SIM} --spec-draft-tokens {draft} --spec-acceptance "$a"`,
          'mtp-list': '1 2',
          'output-len': '48',
          'measured-on': 'H100, frontier sim',
        },
      }),
      frontier: CLI,
      runId: 777,
    });
    expect(run.results).toEqual({ 'collect-al': 'success' });
    expect(run.artifacts).toEqual(['speedbench-reference-al-llama8b', 'speedbench_server_logs-llama8b']);
    const yaml = readFileSync(run.artifact('speedbench-reference-al-llama8b')['speedbench-reference-al.yaml']!, 'utf8');
    expect(yaml.split('\n')[0]).toBe('# Source GitHub Actions run: https://github.com/acme/catalog/actions/runs/777');
    expect(run.summary).toContain('```yaml\n# Source GitHub Actions run:');
    const golden = await parseGoldenFile('speedbench-reference-al.yaml', yaml);
    expect(golden.measuredOn).toBe('llama-3.1-8b-instruct (H100, frontier sim)');
    expect(golden.chatTemplateKwargs.thinking_on).toEqual({ thinking: true, reasoning_effort: 'high' });
    // Every cell measured, near its engine's acceptance (the unit tests check the intervals).
    expect(golden.curves.map((c) => [c.mode, c.points.map((p) => p.draftLength), c.unmeasured])).toEqual([
      ['thinking_on', [1, 2], []],
      ['thinking_off', [1, 2], []],
    ]);
    for (const c of golden.curves)
      for (const p of c.points) expect(Math.abs(p.al - (c.mode === 'thinking_on' ? 1.7 : 1.9))).toBeLessThan(0.15);
    // One engine per cell ({thinking} is in the command), each log kept.
    expect(Object.keys(run.artifact('speedbench_server_logs-llama8b')).sort()).toEqual([
      'server_off_mtp1.log',
      'server_off_mtp2.log',
      'server_on_mtp1.log',
      'server_on_mtp2.log',
    ]);
  }, 120_000);
});
