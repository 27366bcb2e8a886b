import { describe, expect, it } from 'vitest';
import { runCli, tempFiles } from '../helpers.js';

/** `frontier al`: the golden acceptance-length curves, from the tree or the built-in copy. */

describe('frontier al', () => {
  it('show prints a model’s curve per draft length and thinking mode, with its source', () => {
    const { status, stdout } = runCli(['al', 'show', 'dsv4']);
    expect(status).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(`deepseek-v4-pro  built-in/dsv4_mtp.yaml`);
    expect(stdout).toContain('source run https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27180633016');
    expect(stdout).toContain('thinking_on chat_template_kwargs {"thinking":true,"reasoning_effort":"high"}');
    const row = lines
      .find((l) => /^\s+3\s/.test(l))!
      .trim()
      .split(/\s+/);
    expect(row).toEqual(['3', '2.49', '2.97']);
  });

  it('show reads the tree’s own curves (-C), in JSON too', () => {
    const tree = tempFiles({
      'golden_al_distribution/x_mtp.yaml': '# Source GitHub Actions run: https://example/1\nmy-model:\n  - 1: 1.5\n  - 2: 2.25\n',
    });
    const json = JSON.parse(runCli(['-C', tree, 'al', 'show', 'x', '--format', 'json']).stdout) as {
      model: string;
      points: { draftLength: number; al: number }[];
    }[];
    expect(json.map((c) => [c.model, c.points.map((p) => [p.draftLength, p.al])])).toEqual([
      [
        'my-model',
        [
          [1, 1.5],
          [2, 2.25],
        ],
      ],
    ]);
    expect(runCli(['-C', tree, 'al', 'list']).stdout).toContain(
      'golden_al_distribution/x_mtp.yaml  my-model  (no mode)\n1 files from golden_al_distribution',
    );
  });

  it('show reads N/A, what the collectors write for a cell they could not measure, as no value there', () => {
    const tree = tempFiles({
      'golden_al_distribution/y_mtp.yaml': 'y-model:\n  thinking_on:\n    1: 1.8\n    2: N/A\n    3: 2.4\n',
    });
    const text = runCli(['-C', tree, 'al', 'show', 'y-model']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/\n\s+2\s+—\n/);
    const [curve] = JSON.parse(runCli(['-C', tree, 'al', 'show', 'y-model', '--format', 'json']).stdout) as {
      points: { draftLength: number }[];
      unmeasured: number[];
    }[];
    expect([curve!.points.map((p) => p.draftLength), curve!.unmeasured]).toEqual([[1, 3], [2]]);
    // Any other text is still an error.
    const bad = tempFiles({ 'golden_al_distribution/z.yaml': 'z:\n  thinking_on:\n    2: n/a\n' });
    expect(runCli(['-C', bad, 'al', 'list']).stderr).toContain('z.thinking_on.2: AL n/a is not a number in [1, 3]');
  });

  it('refuses an unknown model and a malformed file, naming the file, line and key', () => {
    const unknown = runCli(['al', 'show', 'nonesuch']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('no golden AL curve for nonesuch (curves: deepseek-v4-pro-0813, deepseek-v4-pro');
    const tree = tempFiles({ 'golden_al_distribution/bad.yaml': 'm:\n  thinking_on:\n    2: 3.5\n' });
    const bad = runCli(['-C', tree, 'al', 'list']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('golden_al_distribution/bad.yaml:3: m.thinking_on.2: AL 3.5 is not a number in [1, 3]');
  });
});
