import { useCallback, useEffect, useRef, useState } from 'react';
import { parseUrl, toUrl } from './lib/url-state.js';
import type { Page, ViewState } from './lib/url-state.js';
import { Link } from './navigation.js';
import { PartialRuns } from './PartialRuns.js';
import type { Update } from './navigation.js';
import { Agentic } from './pages/Agentic.js';
import { Evaluation } from './pages/Evaluation.js';
import { Inference } from './pages/Inference.js';
import { Run, Runs } from './pages/Runs.js';
import { TcoPage } from './pages/Tco.js';
import { Trends } from './pages/Trends.js';

/** The view state, read from the URL and written back to it (back and forward restore it). */
function useView(): [ViewState, Update] {
  const read = () => parseUrl(location.pathname, location.search);
  const [view, setView] = useState<ViewState>(read);
  const current = useRef(view);
  useEffect(() => {
    // A preset link or a non-canonical URL is rewritten to the full view it stands for.
    const canonical = toUrl(current.current);
    if (canonical !== location.pathname + location.search) history.replaceState(null, '', canonical);
    const onPop = () => setView((current.current = read()));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const update = useCallback<Update>((change, options = {}) => {
    const next = { ...current.current, ...change };
    current.current = next;
    const url = toUrl(next);
    if (url !== location.pathname + location.search) history[options.replace ? 'replaceState' : 'pushState'](null, '', url);
    setView(next);
  }, []);
  return [view, update];
}

const NAV: { page: Page; label: string }[] = [
  { page: 'inference', label: 'Inference' },
  { page: 'agentic', label: 'Agentic' },
  { page: 'evaluation', label: 'Evaluation' },
  { page: 'trends', label: 'Trends' },
  { page: 'runs', label: 'Runs' },
  { page: 'tco', label: 'TCO' },
];

export function App() {
  const [view, update] = useView();
  const page = view.page === 'run' ? 'runs' : view.page;
  return (
    <div className="app">
      <header>
        <a className="brand" href="/inference">
          Frontier
        </a>
        <nav aria-label="Pages">
          {NAV.map((n) => (
            <Link key={n.page} view={view} to={{ page: n.page }} update={update} className={n.page === page ? 'active' : ''}>
              {n.label}
            </Link>
          ))}
        </nav>
      </header>
      <main>
        <PartialRuns />
        {view.page === 'inference' && <Inference view={view} update={update} />}
        {view.page === 'agentic' && <Agentic view={view} update={update} />}
        {view.page === 'evaluation' && <Evaluation view={view} update={update} />}
        {view.page === 'trends' && <Trends view={view} update={update} />}
        {view.page === 'runs' && <Runs update={update} />}
        {view.page === 'run' && <Run view={view} update={update} />}
        {view.page === 'tco' && <TcoPage view={view} update={update} />}
      </main>
    </div>
  );
}
