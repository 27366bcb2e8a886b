/**
 * The filter bar the inference, evaluation and trends pages share: model, sequence and date from
 * what the store holds (availability), and a group of checkboxes per dimension. Native inputs:
 * keyboard and screen readers work without help.
 */
import type { AvailabilityRow } from '../../src/contract/index.js';
import type { ViewState } from './lib/url-state.js';
import type { Update } from './navigation.js';

export interface Scope {
  models: string[];
  model: string | undefined;
  seqs: string[];
  seq: string | undefined;
  dates: string[];
  values: { hw: string[]; fw: string[]; prec: string[]; spec: string[] };
}

const uniq = (xs: string[]) => [...new Set(xs)].sort();

/** What can be chosen, given what the store has and what the view asks for. */
export function scopeOf(rows: readonly AvailabilityRow[] | undefined, view: ViewState): Scope {
  const all = rows ?? [];
  const models = uniq(all.map((r) => r.model_prefix));
  const model = view.model && models.includes(view.model) ? view.model : models[0];
  const ofModel = all.filter((r) => r.model_prefix === model);
  const seqs = uniq(ofModel.map((r) => `${r.isl}x${r.osl}`)).sort((a, b) => Number(a.split('x')[0]) - Number(b.split('x')[0]));
  const seq = view.seq && seqs.includes(view.seq) ? view.seq : seqs[0];
  const here = ofModel.filter((r) => `${r.isl}x${r.osl}` === seq);
  return {
    models,
    model,
    seqs,
    seq,
    dates: uniq(here.map((r) => r.date)).reverse(),
    values: {
      hw: uniq(here.map((r) => r.hardware)),
      fw: uniq(here.map((r) => r.framework)),
      prec: uniq(here.map((r) => r.precision)),
      spec: uniq(here.map((r) => r.spec_method)),
    },
  };
}

const seqLabel = (s: string) => s.replace('x', ' / ');

function Checks({
  name,
  label,
  values,
  chosen,
  onChange,
}: {
  name: string;
  label: string;
  values: string[];
  chosen: string[];
  onChange: (v: string[]) => void;
}) {
  if (values.length === 0) return null;
  const on = (v: string) => chosen.length === 0 || chosen.includes(v);
  const toggle = (v: string) => {
    const current = chosen.length === 0 ? values : chosen;
    const next = current.includes(v) ? current.filter((x) => x !== v) : [...current, v];
    // Everything chosen is the same as no filter: the URL says nothing.
    onChange(next.length === values.length ? [] : next);
  };
  return (
    <fieldset className="checks" data-filter={name}>
      <legend>{label}</legend>
      {values.map((v) => (
        <label key={v}>
          <input type="checkbox" name={name} value={v} checked={on(v)} onChange={() => toggle(v)} /> {v}
        </label>
      ))}
    </fieldset>
  );
}

export function Filters({
  view,
  update,
  scope,
  dates = true,
}: {
  view: ViewState;
  update: Update;
  scope: Scope;
  dates?: boolean;
}) {
  return (
    <div className="filters">
      <label>
        Model
        <select name="model" value={scope.model ?? ''} onChange={(e) => update({ model: e.target.value, seq: undefined })}>
          {scope.models.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      {scope.seqs.length > 0 && (
        <label>
          ISL / OSL
          <select name="seq" value={scope.seq ?? ''} onChange={(e) => update({ seq: e.target.value })}>
            {scope.seqs.map((s) => (
              <option key={s} value={s}>
                {seqLabel(s)}
              </option>
            ))}
          </select>
        </label>
      )}
      {dates && (
        <label>
          As of
          <select name="date" value={view.date ?? ''} onChange={(e) => update({ date: e.target.value || undefined })}>
            <option value="">latest</option>
            {scope.dates.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </label>
      )}
      <Checks name="hw" label="Hardware" values={scope.values.hw} chosen={view.hw} onChange={(hw) => update({ hw })} />
      <Checks name="fw" label="Engine" values={scope.values.fw} chosen={view.fw} onChange={(fw) => update({ fw })} />
      <Checks name="prec" label="Precision" values={scope.values.prec} chosen={view.prec} onChange={(prec) => update({ prec })} />
      <Checks
        name="spec"
        label="Spec decoding"
        values={scope.values.spec}
        chosen={view.spec}
        onChange={(spec) => update({ spec })}
      />
      <fieldset className="checks" data-filter="disagg">
        <legend>Disaggregation</legend>
        {(['all', 'agg', 'disagg'] as const).map((d) => (
          <label key={d}>
            <input type="radio" name="disagg" value={d} checked={view.disagg === d} onChange={() => update({ disagg: d })} />{' '}
            {d === 'all' ? 'all' : d === 'agg' ? 'aggregated' : 'disaggregated'}
          </label>
        ))}
      </fieldset>
    </div>
  );
}
