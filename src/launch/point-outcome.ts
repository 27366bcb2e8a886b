import type { FailureKind } from './failure.js';

/** Where a point's GPU telemetry is, relative to the run directory (its power step integrates it). */
export type PointTelemetry =
  /** A single-node GPU monitor's CSV (nvidia-smi's or amd-smi's format). */
  | { csv: string }
  /** A multi-node launch's DCGM power package (manifest.json, samples.csv, windows/), by its producer. */
  | { package: string; producer: string };

/** What an executor reports back about a point. */
export type PointOutcome =
  | {
      status: 'ok' | 'invalid';
      raw: string;
      problems: string[];
      telemetry?: PointTelemetry | undefined;
      /** The engine profiler's trace (`--profile`), relative to the run directory. */
      profile?: string | undefined;
    }
  /** An agentic point: its replay's artifacts are in the run directory (`agentic_<RF>/`), its engine's logs in `logDir`. */
  | { status: 'ok' | 'invalid'; agentic: true; logDir: string; problems: string[] }
  /** `kind`: why (failure.ts); default `measurement`, which is never retried. */
  | { status: 'failed'; error: string; kind?: FailureKind | undefined };
