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

describe('agentic validity gate: figures that cannot be (Frontier’s addition)', () => {
  const honest = {
    request_count: { avg: 18 },
    error_request_count: { avg: 1 },
    completed_request_count: { avg: 19 },
    benchmark_duration: { avg: 10 },
    request_throughput: { avg: 1.8 },
    input_sequence_length: { avg: 30, max: 53, sum: 540 },
    output_sequence_length: { avg: 4, max: 4, sum: 72 },
    input_token_throughput: { avg: 54 },
    output_token_throughput: { avg: 7.2 },
    total_token_throughput: { avg: 61.2 },
  };

  it('passes an aggregate whose figures agree', () => {
    expect(validateAgenticArtifacts(writeAggregate(honest), 0.1)).toEqual([]);
  });

  it('refuses usage.prompt_tokens of 10^12 carried into the throughput (290 billion tok/s)', () => {
    const errors = validateAgenticArtifacts(
      writeAggregate({
        ...honest,
        input_sequence_length: { avg: 1e12, max: 1e12, sum: 1.8e13 },
        input_token_throughput: { avg: 1.8e12 },
        total_token_throughput: { avg: 2.9e11 },
      }),
      0.1,
    );
    expect(errors).toEqual([
      'implausible aggregate: input_token_throughput.avg 1.8e+12 tokens/s is above 1e+09, more than any deployment reaches',
      'implausible aggregate: total_token_throughput.avg 2.9e+11 tokens/s is above 1e+09, more than any deployment reaches',
      'implausible aggregate: input_sequence_length.max 1e+12 tokens is above 4.1943e+06, longer than any context',
    ]);
  });

  it('refuses counts that do not add up, or are not whole', () => {
    expect(validateAgenticArtifacts(writeAggregate({ ...honest, completed_request_count: { avg: 50 } }), 0.1)).toEqual([
      'implausible aggregate: request_count + error_request_count = 19, not completed_request_count 50',
    ]);
    expect(
      validateAgenticArtifacts(
        writeAggregate({ request_count: { avg: 17.5 }, error_request_count: { avg: 1 }, completed_request_count: { avg: 18.5 } }),
        0.1,
      ),
    ).toEqual([
      'implausible aggregate: request_count.avg 17.5 is not a whole number of requests',
      'implausible aggregate: completed_request_count.avg 18.5 is not a whole number of requests',
    ]);
  });

  it('refuses rates above what the counts allow over the duration', () => {
    expect(
      validateAgenticArtifacts(
        writeAggregate({ ...honest, request_throughput: { avg: 50 }, output_token_throughput: { avg: 1000 } }),
        0.1,
      ),
    ).toEqual([
      'implausible aggregate: request_throughput.avg 50 over benchmark_duration 10 s is 500 requests, more than request_count 18',
      'implausible aggregate: output_token_throughput.avg 1000 over benchmark_duration 10 s is 10000 tokens, more than request_count 18 × output_sequence_length.max 4',
    ]);
  });

  it('refuses a mistyped figure as it does a mistyped count', () => {
    expect(validateAgenticArtifacts(writeAggregate({ ...honest, output_sequence_length: { max: 'many' } }), 0.1)[0]).toMatch(
      /^failed to read .*: output_sequence_length\.max must be numeric$/,
    );
  });
});
