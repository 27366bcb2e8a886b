import { useEffect, useRef, useState } from 'react';
import type { RunRow } from '../../src/contract/index.js';
import { fetchAll } from './api.js';

/** How often the banner asks again while a run still has points to come. */
const POLL_MS = 5000;

const latestRuns = () => fetchAll('/api/v1/runs?limit=20') as Promise<RunRow[]>;

/**
 * A run with deferred points (`frontier run --defer`, e.g. `npm start`'s llama.cpp row while
 * llama-server builds) says so on every page, and says again when they are in: the page shows
 * what was loaded, so a reload brings them.
 */
export function PartialRuns() {
  const [partial, setPartial] = useState<RunRow[]>([]);
  const [arrived, setArrived] = useState<RunRow[]>([]);
  const waiting = useRef(new Set<string>());
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = async () => {
      const runs = await latestRuns().catch(() => undefined);
      if (!live || !runs) return;
      const now = runs.filter((r) => r.deferred_points > 0);
      const done = runs.filter((r) => waiting.current.has(r.run_id) && r.deferred_points === 0);
      waiting.current = new Set(now.map((r) => r.run_id));
      setPartial(now);
      if (done.length > 0) setArrived((a) => [...a, ...done]);
      if (now.length > 0) timer = setTimeout(() => void check(), POLL_MS);
    };
    void check();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  if (partial.length === 0 && arrived.length === 0) return null;
  return (
    <div className="partial-runs" data-testid="partial-runs">
      {partial.map((r) => (
        <p key={r.run_id} className="banner pending">
          Run {r.run_id} is partial: {r.points + r.agentic_points} points are in, {r.deferred_points} more to come (
          {r.deferred_reason || 'deferred'}). They appear here when they are in.
        </p>
      ))}
      {arrived.map((r) => (
        <p key={r.run_id} className="banner arrived">
          Run {r.run_id}: its deferred points are in (run {r.status}).{' '}
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </p>
      ))}
    </div>
  );
}
