import { processAlive } from '../util/process-alive.js';

/**
 * Watch process `pid` as InferenceX's `run_benchmark_serving --server-pid` does: check every 2 s
 * that it still runs, and call `onExit` once when it has gone. Returns the function that stops
 * watching.
 */
export function watchProcess(pid: number, onExit: () => void): () => void {
  const timer = setInterval(() => {
    if (processAlive(pid)) return;
    clearInterval(timer);
    onExit();
  }, 2000);
  timer.unref();
  return () => clearInterval(timer);
}
