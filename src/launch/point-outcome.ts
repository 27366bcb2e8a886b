/** What an executor reports back about a point. */
export type PointOutcome = { status: 'ok' | 'invalid'; raw: string; problems: string[] } | { status: 'failed'; error: string };
