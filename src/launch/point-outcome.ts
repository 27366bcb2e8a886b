/** What an executor reports back about a point. */
export type PointOutcome =
  | { status: 'ok' | 'invalid'; raw: string; problems: string[] }
  /** An agentic point: its replay's artifacts are in the run directory (`agentic_<RF>/`), its engine's logs in `logDir`. */
  | { status: 'ok' | 'invalid'; agentic: true; logDir: string; problems: string[] }
  | { status: 'failed'; error: string };
