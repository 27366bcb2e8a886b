/* eslint-disable @typescript-eslint/no-explicit-any -- the sidecar and manifest are read back as loose JSON */
// Every case of InferenceX's utils/test_aggregate_power_multinode.py, on the same package.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pyRound } from '../../../src/pycompat/index.js';
import { ROLE_POWER_KEYS, WHOLE_POWER_KEYS } from '../../../src/results/power/common.js';
import { dumps } from '../../../src/pycompat/index.js';
import {
  BENCH_FIELDS,
  DEVICES,
  FIRST_TS,
  Package,
  RESULT_STEM,
  WINDOW_START,
  buildPackage,
  json,
  uuid,
} from './multinode-fixture.js';
import type { PowerFn } from './multinode-fixture.js';

const made: Package[] = [];
const build = (...args: Parameters<typeof buildPackage>): Package => {
  const pkg = buildPackage(...args);
  made.push(pkg);
  return pkg;
};
afterEach(() => {
  for (const pkg of made.splice(0)) pkg.remove();
});

type RunOpts = Parameters<Package['run']>[0];

/** Both modes must reject: metrics withheld always, exit code differs. */
function assertInvalid(pkg: Package, expectedReason: string, opts: RunOpts = {}): Record<string, unknown> {
  const lax = pkg.run({ ...opts, requirePower: false });
  expect(lax.exitCode).toBe(0);
  expect(lax.agg.power_metric_schema_version).toBe(2);
  expect(lax.agg.power_valid).toBe(0);
  for (const key of [...WHOLE_POWER_KEYS, ...ROLE_POWER_KEYS]) expect(lax.agg).not.toHaveProperty(key);
  expect(lax.sidecar.power_valid).toBe(false);
  expect(lax.sidecar.reasons).toContain(expectedReason);
  expect(pkg.run({ ...opts, requirePower: true }).exitCode).toBe(1);
  return lax.sidecar;
}

const constant = Object.fromEntries(DEVICES.map(([h, i, , , w]) => [`${h}/${i}`, w]));
const ramp: PowerFn = (host, idx, ts) => (host === 'node-d' && idx === 0 ? 300.0 + (ts - FIRST_TS) : constant[`${host}/${idx}`]!);
const failures = (sidecar: Record<string, unknown>): string[] => sidecar.failures as string[];

describe('valid package', () => {
  it('emits all metrics exactly', () => {
    const pkg = build();
    const out = pkg.run();
    expect(out.exitCode).toBe(0);
    const agg = out.agg;
    expect(agg.power_metric_schema_version).toBe(2);
    expect(agg.power_valid).toBe(1);
    expect(agg.avg_power_w).toBe(350.0);
    expect(agg.avg_total_gpu_power_w).toBe(1400.0);
    expect(agg.total_gpu_energy_j).toBe(84000.0);
    expect(agg.joules_per_successful_query).toBe(10500.0);
    expect(agg.joules_per_input_token).toBe(pyRound(84000 / 32768, 6));
    expect(agg.joules_per_output_token).toBe(pyRound(84000 / 4096, 6));
    expect(agg.joules_per_total_token).toBe(pyRound(84000 / 36864, 6));
    expect(agg.prefill_gpu_energy_j).toBe(48000.0);
    expect(agg.decode_gpu_energy_j).toBe(36000.0);
    expect(agg.prefill_avg_power_w).toBe(400.0);
    expect(agg.decode_avg_power_w).toBe(300.0);
    expect(agg.prefill_joules_per_input_token).toBe(pyRound(48000 / 32768, 6));
    expect(agg.decode_joules_per_output_token).toBe(pyRound(36000 / 4096, 6));

    const sidecar = out.sidecar as Record<string, any>;
    expect(sidecar.power_valid).toBe(true);
    expect(sidecar.reasons).toEqual([]);
    expect(sidecar.producer.stored_publication_valid).toBe(true);
    expect(sidecar.producer.recomputed_publication_valid).toBe(true);
    expect(sidecar.selected_window.window_file).toBe(`windows/${RESULT_STEM}.json`);
    // Role, energy and gap maps share the hostname/uuid key namespace.
    expect(sidecar.per_gpu_role).toEqual({
      'node-d/GPU-node-d-0': 'decode',
      'node-d/GPU-node-d-1': 'decode',
      'node-p/GPU-node-p-0': 'prefill',
      'node-p/GPU-node-p-1': 'prefill',
    });
    expect(new Set(Object.keys(sidecar.per_gpu_energy_j))).toEqual(new Set(Object.keys(sidecar.per_gpu_role)));
    // The reference's stdout line.
    expect(out.notice).toBe(
      '[aggregate_power_multinode] avg_power_w=350.00 total_gpu_energy_j=84000.00 prefill_gpu_energy_j=48000.00 decode_gpu_energy_j=36000.00 (n=4) -> agg_renamed_by_launcher.json',
    );
  });

  it('role watts close over the whole deployment', () => {
    const agg = build({ powerFn: ramp }).run().agg as Record<string, number>;
    const weighted = 2 * agg.prefill_avg_power_w! + 2 * agg.decode_avg_power_w!;
    expect(Math.abs(weighted - agg.avg_total_gpu_power_w!)).toBeLessThanOrEqual(1e-3);
    expect(Math.abs(weighted / 4 - agg.avg_power_w!)).toBeLessThanOrEqual(1e-3);
  });

  it('strict mode passes on a valid package', () => {
    const out = build().run({ requirePower: true });
    expect(out.exitCode).toBe(0);
    expect(out.agg.power_valid).toBe(1);
  });

  it('trapezoid matches the hand-computed ramp', () => {
    const energy = (build({ powerFn: ramp }).run().sidecar as any).per_gpu_energy_j['node-d/GPU-node-d-0'] as number;
    const expected = ((302.0 + 362.0) / 2.0) * 60.0;
    expect(Math.abs(energy - expected) / expected).toBeLessThan(1e-9);
  });
});

describe('verdict and identity gates', () => {
  it('stored verdict false is a verdict mismatch', () => {
    const sidecar = assertInvalid(build({ publicationValid: false }), 'producer_verdict_mismatch') as any;
    expect(sidecar.producer.stored_publication_valid).toBe(false);
    expect(sidecar.producer.recomputed_publication_valid).toBe(true);
  });
  it('producer sha mismatch is invalid in both modes', () => {
    assertInvalid(build(), 'producer_commit_mismatch', { sha: 'b'.repeat(40) });
  });
  it('a missing producer pin is invalid', () => {
    assertInvalid(build(), 'producer_pin_missing', { sha: null });
  });
  it('a missing power dir is invalid, not a crash', () => {
    const pkg = build();
    rmSync(pkg.powerDir, { recursive: true });
    assertInvalid(pkg, 'power_artifacts_missing');
  });
});

describe('sample gates', () => {
  it('rejects a duplicate row', () => {
    const pkg = build();
    pkg.rewriteSamples((body) => [...body, body[10]!]);
    assertInvalid(pkg, 'package_recompute_invalid');
  });
  it('rejects UUID reuse', () => {
    const pkg = build();
    pkg.rewriteSamples((body) =>
      body.map((row) => (row[3] === 'node-d' && row[4] === '1' ? [...row.slice(0, 5), uuid('node-d', 0), ...row.slice(6)] : row)),
    );
    const sidecar = assertInvalid(pkg, 'package_recompute_invalid');
    expect(failures(sidecar).some((f) => f.includes('gpu_uuid_changed'))).toBe(true);
  });
  it('rejects non-monotonic timestamps', () => {
    const pkg = build();
    pkg.rewriteSamples((rows) => {
      const body = [...rows];
      const [a, b] = [body[0]!, body[4]!];
      body[0] = [...a.slice(0, 1), ...b.slice(1, 2), ...a.slice(2)];
      body[4] = [...b.slice(0, 1), ...a.slice(1, 2), ...b.slice(2)];
      return body;
    });
    const sidecar = assertInvalid(pkg, 'package_recompute_invalid');
    expect(failures(sidecar).some((f) => f.includes('timestamp_non_monotonic'))).toBe(true);
  });
  it('rejects a sampling gap over the fixed three seconds', () => {
    const pkg = build();
    pkg.rewriteSamples((body) =>
      body.filter((row) => !(row[3] === 'node-p' && row[4] === '0' && Number(row[2]) >= 20 && Number(row[2]) <= 24)),
    );
    const sidecar = assertInvalid(pkg, 'package_recompute_invalid');
    expect(failures(sidecar).some((f) => f.includes('sample_gap_exceeded'))).toBe(true);
  });
  it('rejects a device that does not bracket the window', () => {
    const pkg = build();
    pkg.rewriteSamples((body) =>
      body.filter((row) => !(row[3] === 'node-d' && row[4] === '0' && Number(row[1]) <= WINDOW_START)),
    );
    const sidecar = assertInvalid(pkg, 'package_recompute_invalid');
    expect(failures(sidecar).some((f) => f.includes('measurement_window_not_bracketed'))).toBe(true);
  });
  it('an overflowing power metric is invalid, not stale', () => {
    const pkg = build({ powerFn: () => 9e307 });
    const lax = pkg.run();
    assertInvalid(pkg, 'non_finite_power_metric');
    // Strict RFC 8259: the overflowed per-GPU energies are null, never bare Infinity.
    const text = dumps(lax.validation, { indent: 2 });
    expect(text).not.toMatch(/Infinity|NaN/);
    expect(new Set(Object.values((lax.sidecar as any).per_gpu_energy_j))).toEqual(new Set([null]));
  });
});

describe('window and result gates', () => {
  it('rejects a result path escaping the root', () => {
    const pkg = build();
    const path = join(pkg.windowsDir, `${RESULT_STEM}.json`);
    const window = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    window.result_path = '../evil.json';
    writeFileSync(path, JSON.stringify(window));
    const sidecar = assertInvalid(pkg, 'package_recompute_invalid');
    expect(failures(sidecar).some((f) => f.includes('measurement_window_result_path_invalid'))).toBe(true);
  });
  it('rejects a workspace copy whose content differs', () => {
    const pkg = build();
    writeFileSync(pkg.benchResult, json({ ...BENCH_FIELDS, completed: 9 }));
    assertInvalid(pkg, 'result_content_mismatch');
  });
  it('rejects a result with no completed window for its concurrency', () => {
    const pkg = build();
    const tampered = json({ ...BENCH_FIELDS, max_concurrency: 8 });
    writeFileSync(pkg.originalResult, tampered);
    writeFileSync(pkg.benchResult, tampered);
    const sidecar = assertInvalid(pkg, 'window_for_result_missing') as any;
    // The package stays consistent: only the result-window binding fails.
    expect(sidecar.producer.recomputed_publication_valid).toBe(true);
  });
});

describe('topology gates', () => {
  const setHet = (pkg: Package, het: (role: string) => number | null): void => {
    const manifest = pkg.manifest() as any;
    for (const device of manifest.expected_devices) for (const a of device.assignments) a.het_group = het(a.worker_role);
    pkg.writeManifest(manifest);
  };
  it('role counts must match the workflow env', () => {
    assertInvalid(build(), 'topology_env_mismatch', { prefillGpus: 4, decodeGpus: 2 });
  });
  it('rejects roles sharing a het group', () => {
    const pkg = build();
    setHet(pkg, () => 0);
    const sidecar = assertInvalid(pkg, 'topology_env_mismatch');
    expect(failures(sidecar).some((f) => f.includes('share a het group'))).toBe(true);
  });
  it('None het groups are valid for non-het deployments', () => {
    const pkg = build();
    setHet(pkg, () => null);
    const out = pkg.run({ requirePower: true });
    expect(out.exitCode).toBe(0);
    expect(out.agg.power_valid).toBe(1);
    expect(out.agg.prefill_gpu_energy_j).toBe(48000.0);
    expect(out.agg.decode_gpu_energy_j).toBe(36000.0);
    expect(out.agg.prefill_avg_power_w).toBe(400.0);
    expect(out.agg.decode_avg_power_w).toBe(300.0);
  });
  it('rejects mixed None and real het groups', () => {
    const pkg = build();
    const manifest = pkg.manifest() as any;
    for (const device of manifest.expected_devices)
      for (const a of device.assignments) if (a.worker_role === 'decode') a.het_group = null;
    pkg.writeManifest(manifest);
    const sidecar = assertInvalid(pkg, 'topology_env_mismatch');
    expect(failures(sidecar).some((f) => f.includes('het group None while other devices'))).toBe(true);
  });
});

describe('manifest gates', () => {
  it('rejects a wire contract mismatch', () => {
    const pkg = build();
    pkg.editManifest({ producer: 'someone-else.power' });
    assertInvalid(pkg, 'package_recompute_invalid');
  });
  it('rejects a stored evidence mismatch', () => {
    const pkg = build();
    pkg.editManifest({ sample_row_count: 1 });
    const sidecar = assertInvalid(pkg, 'package_recompute_invalid');
    expect(failures(sidecar).some((f) => f.includes('sample_row_count'))).toBe(true);
  });
  it('rejects an incomplete status', () => {
    const pkg = build();
    pkg.editManifest({ status: 'incomplete', publication_valid: false });
    assertInvalid(pkg, 'package_recompute_invalid');
  });
});

// Not in the reference tests: the manifest parse errors carry Python's exception repr.
describe('manifest parsing', () => {
  it('names the exception as Python repr()s it', () => {
    const pkg = build();
    const manifest = pkg.manifest() as any;
    delete manifest.expected_devices[0].hostname;
    pkg.writeManifest(manifest);
    const sidecar = assertInvalid(pkg, 'manifest_malformed') as any;
    expect(sidecar.failures).toEqual(["manifest malformed: KeyError('hostname')"]);
    expect(sidecar.producer.recomputed_publication_valid).toBe(false);
  });
});
