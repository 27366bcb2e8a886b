export type BackendRole = 'prefill' | 'decode';

export interface BackendStats {
  role: BackendRole;
  url: string;
  inFlight: number;
  requests: number;
  errors: number;
}

/** A server the router sends requests to, with its counters. */
export interface Backend extends BackendStats {
  hostname: string;
  port: number;
  /** A path prefix of the base URL ('' for none). */
  base: string;
}

/** A backend from its base URL (`http://host:port`, optionally with a path prefix). */
export function backendOf(role: BackendRole, raw: string): Backend {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${role} backend ${raw}: not a URL (expected http://host:port)`);
  }
  if (url.protocol !== 'http:') throw new Error(`${role} backend ${raw}: only http:// is supported`);
  const base = url.pathname.replace(/\/+$/, '');
  return {
    role,
    url: `${url.protocol}//${url.host}${base}`,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 80),
    base,
    inFlight: 0,
    requests: 0,
    errors: 0,
  };
}

/** The backends of one role, and which of them takes the next request. */
export class BackendPool {
  private turn = 0;

  constructor(readonly backends: readonly Backend[]) {}

  /** The backend with the fewest requests in flight; ties go round-robin. */
  pick(): Backend {
    const pool = this.backends;
    const start = this.turn;
    this.turn = (start + 1) % pool.length;
    let best = pool[start]!;
    for (let k = 1; k < pool.length; k++) {
      const b = pool[(start + k) % pool.length]!;
      if (b.inFlight < best.inFlight) best = b;
    }
    return best;
  }
}
