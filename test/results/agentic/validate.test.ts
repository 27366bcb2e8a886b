/** The cases of InferenceX's utils/agentic/validation/test_validate_agentic_result.py, and the CLI's messages. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateAgenticArtifacts } from '../../../src/results/index.js';
import { tempDir } from './support.js';

function writeAggregate(aggregate: unknown, perRun = false): string {
  const artifactDir = join(tempDir(), 'aiperf_artifacts');
  const out = perRun ? join(artifactDir, 'run_0') : artifactDir;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'profile_export_aiperf.json'), JSON.stringify(aggregate));
  return artifactDir;
}

describe('agentic validity gate', () => {
  it('passes when the request error rate is within the limit', () => {
    const dir = writeAggregate({
      request_count: { avg: 90 },
      error_request_count: { avg: 10 },
      completed_request_count: { avg: 100 },
    });
    expect(validateAgenticArtifacts(dir, 0.1)).toEqual([]);
  });

  it('fails when the request error rate exceeds the limit', () => {
    const dir = writeAggregate({
      request_count: { avg: 2 },
      error_request_count: { avg: 65 },
      completed_request_count: { avg: 67 },
    });
    expect(validateAgenticArtifacts(dir, 0.1)).toEqual([
      'aiperf request error rate exceeded the benchmark limit: 65/67 = 97.015% > 10.000%',
    ]);
  });

  it('treats a missing error count as zero', () => {
    expect(validateAgenticArtifacts(writeAggregate({ request_count: { avg: 12 } }), 0.1)).toEqual([]);
  });

  it('supports the per-run artifact layout', () => {
    expect(validateAgenticArtifacts(writeAggregate({ request_count: { avg: 12 } }, true), 0.1)).toEqual([]);
  });

  it('fails when the aggregate is missing', () => {
    const dir = join(tempDir(), 'aiperf_artifacts');
    mkdirSync(dir);
    writeFileSync(join(dir, 'profile_export.jsonl'), '{"partial": true}\n');
    const errors = validateAgenticArtifacts(dir, 0.1);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.endsWith('profile_export_aiperf.json not found')).toBe(true);
  });

  // The reference checks its own workflow text; InferenceX's benchmark-tmpl.yml is copied here.
  it("InferenceX's benchmark workflow runs the agentic validity gate", () => {
    const workflow = readFileSync(
      join(import.meta.dirname, '..', '..', 'fixtures', 'agentic', 'aggregation', 'benchmark-tmpl.yml'),
      'utf8',
    );
    expect(workflow).toContain('python3 -m utils.agentic.validation.validate_agentic_result');
    expect(workflow).toContain('--failed-request-threshold "$AIPERF_FAILED_REQUEST_THRESHOLD"');
  });

  it('refuses malformed counts as the reference does', () => {
    expect(validateAgenticArtifacts(writeAggregate({ request_count: 3 }), 0.1)[0]).toMatch(
      /^failed to read .*: request_count must be an object$/,
    );
    expect(validateAgenticArtifacts(writeAggregate({ request_count: { avg: 'x' } }), 0.1)[0]).toMatch(
      /request_count\.avg must be numeric$/,
    );
    expect(validateAgenticArtifacts(writeAggregate({ request_count: { avg: -1 } }), 0.1)[0]).toMatch(
      /must be a finite non-negative number$/,
    );
    expect(validateAgenticArtifacts(writeAggregate({ error_request_count: { avg: 1 } }), 0.1)).toEqual([
      'request_count.avg is missing',
    ]);
    expect(validateAgenticArtifacts(writeAggregate({ request_count: { avg: 0 } }), 0.1)).toEqual([
      'aiperf completed zero requests',
    ]);
  });
});
