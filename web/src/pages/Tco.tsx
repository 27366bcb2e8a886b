import type { AvailabilityRow } from '../../../src/contract/index.js';
import { useApi } from '../api.js';
import { DEFAULT_TCO } from '../lib/metrics.js';
import { tcoOf } from '../lib/url-state.js';
import type { ViewState } from '../lib/url-state.js';
import type { Update } from '../navigation.js';

/** $/GPU/hour and kW per GPU per hardware: what the cost and power axes are computed from. */
export function TcoPage({ view, update }: { view: ViewState; update: Update }) {
  const availability = useApi<AvailabilityRow[]>('/api/v1/availability');
  const tco = tcoOf(view);
  const hardware = [...new Set([...Object.keys(DEFAULT_TCO), ...(availability.data ?? []).map((r) => r.hardware)])].sort();
  const set = (hw: string, field: 'costPerHour' | 'powerKw', value: number) => {
    const current = tco[hw] ?? { costPerHour: 0, powerKw: 0 };
    if (!Number.isFinite(value) || value < 0 || (field === 'powerKw' && value === 0)) return;
    update({ tco: { ...view.tco, [hw]: { ...current, [field]: value } } }, { replace: true });
  };
  return (
    <section>
      <h1>TCO: the figures behind the cost and power axes</h1>
      <p className="note">
        Cost per million tokens = $/GPU/hour ÷ (tokens/s per GPU × 3,600 ÷ 10⁶); tokens/s per MW = tokens/s per GPU × 1,000 ÷ kW
        per GPU; joules per token = kW per GPU × 1,000 ÷ tokens/s per GPU. Defaults: 3-year rental prices and all-in provisioned
        power (SemiAnalysis, August 2025). Changes live in the URL (<code>tco=</code>), so a shared link carries them.
      </p>
      <p className="note" data-testid="tco-vs-measured">
        These figures are provisioned power, not a measurement. Points whose GPU power was measured over the benchmark window
        (valid power) can be drawn from it instead: the inference page’s Energy control, “measured” (tokens/s per MW = tokens/s
        per GPU × 10⁶ ÷ average W per GPU; J/token as measured). One chart shows one or the other, never both.
      </p>
      <div className="table-wrap">
        <table data-testid="tco">
          <thead>
            <tr>
              <th>hardware</th>
              <th>$/GPU/hour</th>
              <th>kW per GPU (all-in)</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {hardware.map((hw) => (
              <tr key={hw}>
                <td>{hw}</td>
                <td>
                  <input
                    aria-label={`${hw} dollars per GPU hour`}
                    name={`cost-${hw}`}
                    type="number"
                    min={0}
                    step={0.01}
                    value={tco[hw]?.costPerHour ?? ''}
                    placeholder="not set"
                    onChange={(e) => set(hw, 'costPerHour', Number(e.target.value))}
                  />
                </td>
                <td>
                  <input
                    aria-label={`${hw} kilowatts per GPU`}
                    name={`power-${hw}`}
                    type="number"
                    min={0.01}
                    step={0.01}
                    value={tco[hw]?.powerKw ?? ''}
                    placeholder="not set"
                    onChange={(e) => set(hw, 'powerKw', Number(e.target.value))}
                  />
                </td>
                <td>{view.tco[hw] ? 'edited' : DEFAULT_TCO[hw] ? 'default' : 'no figures: its points have no cost or power'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" onClick={() => update({ tco: {} })}>
        Reset to the defaults
      </button>
    </section>
  );
}
