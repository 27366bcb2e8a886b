/** What an executor reports back about a point. */
export type PointOutcome =
  | { status: 'ok' | 'invalid'; raw: string; problems: string[] }
  /** An agentic point: its replay's artifacts are in the run directory (`agentic_<RF>/`). */
  | { status: 'ok' | 'invalid'; agentic: true; problems: string[] }
  | { status: 'failed'; error: string };
