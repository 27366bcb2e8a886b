import { configLabel } from '../../../src/contract/index.js';
import type { EvalRow, LaunchAttemptRow, PointRow, RunDetail, RunRow } from '../../../src/contract/index.js';
import { query, useApi } from '../api.js';
import { httpHref } from '../lib/html.js';
import { DEFAULTS } from '../lib/url-state.js';
import type { ViewState } from '../lib/url-state.js';
import { Link } from '../navigation.js';
import type { Update } from '../navigation.js';

const rate = (r: number | null) => (r === null ? '–' : `${(r * 100).toFixed(0)}%`);

/** A run's row reads as bad when its conclusion is overridden to failure, or, without an override, when it did not complete. */
const looksBad = (r: RunRow) =>
  r.conclusion_override ? r.conclusion_override.conclusion === 'failure' : r.status !== 'completed';

/** The mark of a conclusion set by hand (frontier runs override): what, by whom, when and why. */
function OverrideMark({ run }: { run: RunRow }) {
  const o = run.conclusion_override;
  if (!o) return null;
  return (
    <span className="override" data-testid="conclusion-override" title={`by ${o.by} at ${o.at}`}>
      {' '}
      overridden: {o.conclusion} ({o.reason})
    </span>
  );
}

/** A link the run's files name: followed only when it is an http(s) URL, otherwise shown as text. */
function StoredLink({ url, text, none }: { url: string; text: string; none: string }) {
  if (!url) return none;
  const href = httpHref(url);
  return href ? <a href={href}>{text}</a> : <span className="note">{`${text}: ${url} (not an http(s) URL, so not a link)`}</span>;
}

/** How a run's launches fared: attempts, and how many were retried after an infrastructure failure. */
function attemptsSummary(attempts: readonly LaunchAttemptRow[]): string {
  const failed = attempts.filter((a) => a.outcome === 'infrastructure').length;
  return `${attempts.length} launch attempt${attempts.length === 1 ? '' : 's'}${failed > 0 ? `, ${failed} failed for infrastructure reasons and retried` : ''}`;
}

export function Runs({ update }: { update: Update }) {
  const runs = useApi<RunRow[]>('/api/v1/runs?limit=500');
  return (
    <section>
      <h1>Runs</h1>
      {runs.error && <p className="error">{runs.error}</p>}
      <div className="table-wrap">
        <table data-testid="runs">
          <thead>
            <tr>
              <th>run</th>
              <th>date</th>
              <th>kind</th>
              <th>status</th>
              <th>points</th>
              <th>agentic</th>
              <th>evals</th>
              <th>success rate</th>
              <th>branch</th>
              <th>commit</th>
            </tr>
          </thead>
          <tbody>
            {(runs.data ?? []).map((r) => (
              <tr key={r.run_id} className={looksBad(r) ? 'regression' : ''}>
                <td>
                  <Link view={DEFAULTS} to={{ page: 'run', runId: r.run_id }} update={update}>
                    {r.run_id}
                  </Link>
                </td>
                <td>{r.date}</td>
                <td>{r.official ? 'official' : <span className="unofficial">unofficial</span>}</td>
                <td title={r.deferred_reason}>
                  {r.status}
                  {r.deferred_points > 0 && ` (${r.deferred_points} deferred)`}
                  <OverrideMark run={r} />
                </td>
                <td>{r.points}</td>
                <td>{r.agentic_points}</td>
                <td>{r.evals}</td>
                <td>{rate(r.success_rate)}</td>
                <td>{r.branch || '–'}</td>
                <td>{r.commit_sha ? r.commit_sha.slice(0, 10) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function Run({ view, update }: { view: ViewState; update: Update }) {
  const id = view.runId ?? '';
  const run = useApi<RunDetail>(`/api/v1/runs/${encodeURIComponent(id)}`);
  const points = useApi<PointRow[]>(`/api/v1/benchmarks?${query({ run: id })}`);
  const evals = useApi<EvalRow[]>(`/api/v1/evaluations?${query({ run: id })}`);
  const r = run.data;
  const first = points.data?.[0];
  return (
    <section>
      <h1>Run {id}</h1>
      {run.error && <p className="error">{run.error}</p>}
      {r && (
        <dl className="facts" data-testid="run-facts">
          <dt>kind</dt>
          <dd>{r.official ? 'official' : 'unofficial'}</dd>
          <dt>status</dt>
          <dd>{r.status}</dd>
          <dt>conclusion</dt>
          <dd data-testid="run-conclusion">
            {r.conclusion ?? 'none yet (running)'}
            {r.conclusion_override
              ? ` — set by ${r.conclusion_override.by} on ${r.conclusion_override.at.slice(0, 10)}: ${r.conclusion_override.reason}` +
                (r.conclusion === 'failure' ? ' (its points are left out of the latest results and trends)' : '')
              : ''}
          </dd>
          {r.deferred_points > 0 && (
            <>
              <dt>deferred</dt>
              <dd>
                {r.deferred_points} points: {r.deferred_reason || 'no reason recorded'}
              </dd>
            </>
          )}
          <dt>date</dt>
          <dd>{r.date}</dd>
          <dt>started / ended</dt>
          <dd>
            {r.started_at || '–'} / {r.finished_at || '–'}
          </dd>
          <dt>success rate</dt>
          <dd>
            {rate(r.success_rate)} {r.run_stats.map((s) => `${s.hardware} ${s.n_success}/${s.total}`).join(', ')}
            {r.attempts.length > 0 && ` · ${attemptsSummary(r.attempts)}`}
          </dd>
          <dt>commit</dt>
          <dd>{r.commit_sha || '–'}</dd>
          <dt>links</dt>
          <dd>
            <StoredLink url={r.url} text="logs and artifacts" none="no run link recorded (frontier ingest --url)" />
            {first && (
              <>
                {' · '}
                <Link
                  view={DEFAULTS}
                  to={{
                    page: 'inference',
                    model: first.model_prefix,
                    seq: `${first.isl}x${first.osl}`,
                    run: r.official ? undefined : id,
                  }}
                  update={update}
                >
                  {r.official ? 'on the frontier' : 'over the official frontier'}
                </Link>
              </>
            )}
            {r.agentic_points > 0 && (
              <>
                {' · '}
                <Link view={DEFAULTS} to={{ page: 'agentic', run: r.official ? undefined : id }} update={update}>
                  {r.agentic_points} agentic points{r.official ? '' : ' over the official ones'}
                </Link>
              </>
            )}
            {' · '}
            <a href={`/api/v1/runs/${encodeURIComponent(id)}`}>JSON</a>
          </dd>
          {r.changelog.length > 0 && (
            <>
              <dt>changelog</dt>
              <dd>
                {r.changelog.map((c, i) => (
                  <p key={i}>
                    {c.config_keys.join(', ')}: {c.description} <StoredLink url={c.pr_link} text="PR" none="" />
                  </p>
                ))}
              </dd>
            </>
          )}
        </dl>
      )}
      {r && r.attempts.some((a) => a.outcome !== 'ok') && (
        <>
          <h2>Launch attempts</h2>
          <div className="table-wrap">
            <table data-testid="run-attempts">
              <thead>
                <tr>
                  <th>launch</th>
                  <th>attempt</th>
                  <th>nodes</th>
                  <th>outcome</th>
                  <th>reason</th>
                </tr>
              </thead>
              <tbody>
                {r.attempts.map((a) => (
                  <tr key={`${a.launch}/${a.attempt}`} className={a.outcome === 'ok' ? '' : 'regression'}>
                    <td>{a.label}</td>
                    <td>{a.attempt}</td>
                    <td>{a.nodes.join(', ') || '–'}</td>
                    <td>{a.outcome}</td>
                    <td>{a.reason || '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {r && (
        <>
          <h2>Engine logs ({r.logs.length})</h2>
          <ul className="logs" data-testid="run-logs">
            {r.logs.map((l) => (
              <li key={l.name}>
                <a href={`/api/v1/runs/${encodeURIComponent(id)}/log?${query({ name: l.name })}`}>{l.name}</a> (
                {(l.size / 1024).toFixed(1)} KiB
                {l.truncated ? ', its end kept' : ''})
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Points ({points.data?.length ?? 0})</h2>
      <div className="table-wrap">
        <table data-testid="run-points">
          <thead>
            <tr>
              <th>config</th>
              <th>ISL/OSL</th>
              <th>conc</th>
              <th>tok/s/GPU</th>
              <th>tok/s/user</th>
              <th>TTFT median (ms)</th>
              <th>image</th>
            </tr>
          </thead>
          <tbody>
            {(points.data ?? []).map((p, i) => (
              <tr key={i}>
                <td>{configLabel(p)}</td>
                <td>
                  {p.isl}/{p.osl}
                </td>
                <td>{p.conc}</td>
                <td>{p.metrics.tput_per_gpu?.toFixed(1)}</td>
                <td>{p.metrics.median_intvty?.toFixed(1)}</td>
                <td>{((p.metrics.median_ttft ?? NaN) * 1000).toFixed(1)}</td>
                <td>{p.image}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Evals ({evals.data?.length ?? 0})</h2>
      <div className="table-wrap">
        <table data-testid="run-evals">
          <thead>
            <tr>
              <th>config</th>
              <th>task</th>
              <th>conc</th>
              <th>score</th>
              <th>threshold</th>
              <th>result</th>
            </tr>
          </thead>
          <tbody>
            {(evals.data ?? []).map((e, i) => (
              <tr key={i} className={e.passed === false ? 'regression' : ''}>
                <td>{configLabel(e)}</td>
                <td>{e.task}</td>
                <td>{e.conc}</td>
                <td>
                  {(e.score * 100).toFixed(2)}% ± {((e.score_se ?? 0) * 100).toFixed(2)}%
                </td>
                <td>{e.threshold === null ? '–' : `${(e.threshold * 100).toFixed(0)}%`}</td>
                <td>{e.passed === null ? '–' : e.passed ? 'pass' : 'FAIL'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
