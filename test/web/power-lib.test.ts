/** The dashboard's energy axes from measured power (issue 21): pure, without a browser. */
import { describe, expect, it } from 'vitest';
import type { PointRow } from '../../src/contract/index.js';
import { inferenceView } from '../../web/src/lib/inference.js';
import { DEFAULT_TCO, energyAxisName, energySourceLabel, isEnergyAxis, pointValue } from '../../web/src/lib/metrics.js';
import { powerLine } from '../../web/src/lib/tooltip.js';
import { DEFAULTS, parseUrl, toUrl } from '../../web/src/lib/url-state.js';
import { configRow } from '../support/config-row.js';

function point(o: Partial<PointRow> = {}): PointRow {
  return {
    ...configRow({ hardware: 'h200', framework: 'vllm', model: 'org/m', model_prefix: 'm', image: 'vllm:1' }),
    run_id: 'r1',
    attempt: 1,
    official: true,
    date: '2026-01-01',
    isl: 1024,
    osl: 1024,
    conc: 4,
    runner: 'h200',
    power_valid: true,
    power_schema_version: 2,
    power_reasons: [],
    power_source: 'measured',
    n: 1,
    repeat_scope: null,
    stats: {},
    metrics: {
      median_intvty: 50,
      tput_per_gpu: 10_000,
      output_tput_per_gpu: 1_000,
      input_tput_per_gpu: 9_000,
      avg_power_w: 500,
      joules_per_total_token: 0.05,
      joules_per_output_token: 0.5,
      joules_per_input_token: 0.0556,
    },
    ...o,
  };
}

describe('energy axes from measured power', () => {
  it('tokens/s per MW = throughput per GPU × 10⁶ ÷ avg_power_w; J/token is the measured key', () => {
    const p = point();
    // 10,000 tok/s/GPU at 500 W/GPU: 20,000,000 tok/s per MW (TCO: 1.73 kW → 5,780,346).
    expect(pointValue(p, 'tput_per_mw', DEFAULT_TCO, 'measured')).toBe(20_000_000);
    expect(pointValue(p, 'output_tput_per_mw', DEFAULT_TCO, 'measured')).toBe(2_000_000);
    expect(pointValue(p, 'joules_per_tok', DEFAULT_TCO, 'measured')).toBe(0.05);
    expect(pointValue(p, 'output_joules_per_tok', DEFAULT_TCO, 'measured')).toBe(0.5);
    expect(pointValue(p, 'tput_per_mw', DEFAULT_TCO, 'tco')).toBeCloseTo(10_000_000 / 1.73, 6);
    expect(pointValue(p, 'joules_per_tok', DEFAULT_TCO, 'tco')).toBeCloseTo(0.173, 12);
    // Not energy: the same in both modes.
    expect(pointValue(p, 'cost_per_mtok', DEFAULT_TCO, 'measured')).toBe(pointValue(p, 'cost_per_mtok', DEFAULT_TCO, 'tco'));
    expect(isEnergyAxis('cost_per_mtok')).toBe(false);
    expect(isEnergyAxis('decode_joules_per_output_token')).toBe(true);
  });

  it('fails closed: no valid power, no measured value (whatever the metrics hold); per-role energy is measured only', () => {
    expect(pointValue(point({ power_valid: false }), 'joules_per_tok', DEFAULT_TCO, 'measured')).toBeUndefined();
    expect(pointValue(point({ power_valid: null }), 'tput_per_mw', DEFAULT_TCO, 'measured')).toBeUndefined();
    const disagg = point({ metrics: { ...point().metrics, decode_joules_per_output_token: 0.4 } });
    expect(pointValue(disagg, 'decode_joules_per_output_token', DEFAULT_TCO, 'tco')).toBe(0.4);
    expect(pointValue(point(), 'decode_joules_per_output_token', DEFAULT_TCO, 'measured')).toBeUndefined();
  });

  it('measured mode leaves out points without valid power and counts them; labels say where figures come from', () => {
    const rows = [
      point({ conc: 4 }),
      point({ conc: 8, power_valid: false, power_reasons: ['telemetry_file_missing'] }),
      point({ conc: 16, power_valid: null, power_source: null }),
    ];
    const measured = inferenceView(rows, { ...DEFAULTS, y: 'joules_per_tok', energy: 'measured', optimal: false }, DEFAULT_TCO);
    expect(measured.visible.map((p) => p.row.conc)).toEqual([4]);
    expect(measured.unmeasured).toBe(2);
    expect(measured.missing).toEqual([]);
    expect([...measured.sources]).toEqual(['measured']);
    const tco = inferenceView(rows, { ...DEFAULTS, y: 'joules_per_tok', optimal: false }, DEFAULT_TCO);
    expect(tco.visible).toHaveLength(3);
    expect(tco.unmeasured).toBe(0);

    expect(energySourceLabel('tco', new Set())).toBe('from TCO figures');
    expect(energySourceLabel('measured', new Set(['measured']))).toBe('measured');
    expect(energySourceLabel('measured', new Set(['modelled']))).toBe('modelled (simulated engine)');
    expect(energyAxisName('joules_per_tok', 'measured', new Set(['modelled']))).toBe(
      'Energy per total token (J/tok), modelled (simulated engine)',
    );
    expect(energyAxisName('tput_per_mw', 'tco', new Set())).toBe('Token throughput per MW (tok/s/MW), from TCO figures');
    expect(String(powerLine(rows[0]!))).toBe('power: measured, 500 W per GPU');
    expect(String(powerLine(rows[1]!))).toBe('power: not valid (telemetry_file_missing)');
    expect(String(powerLine(rows[2]!))).toBe('');
  });

  it('the energy mode lives in the URL; a per-role axis brings measured with it', () => {
    const v = parseUrl('/inference', '?y=joules_per_tok&energy=measured');
    expect(v.energy).toBe('measured');
    expect(toUrl(v)).toBe('/inference?y=joules_per_tok&energy=measured');
    expect(parseUrl('/inference', '?y=decode_joules_per_output_token').energy).toBe('measured');
    expect(parseUrl('/inference', '?y=joules_per_tok').energy).toBe('tco');
    expect(toUrl(parseUrl('/inference', ''))).toBe('/inference');
  });
});
