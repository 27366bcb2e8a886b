import { useEffect, useState } from 'react';

/** GET an API path (cached for the page's life: the data of a URL does not change while it is open). */
const cache = new Map<string, Promise<unknown>>();

export function fetchJson<T>(path: string): Promise<T> {
  let p = cache.get(path);
  if (!p) {
    p = fetchAll(path);
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p as Promise<T>;
}

/** One answer; a busy server (503) is asked again after its Retry-After, a few times. */
async function get(url: string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url);
    if (res.status !== 503 || attempt === 3) return res;
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
  }
}

/** The lists of points, evals and availability, and the largest page the server gives of them (10,000 points in one answer, not ten). */
const POINT_LISTS = /^\/api\/v1\/(benchmarks|history|evaluations|availability)(\?|$)/;
const POINT_PAGE = 10_000;

/**
 * The JSON at `path`, asked for now (not from the page's cache: for what changes while a page is
 * open). A list the server pages (Link: <…>; rel="next") is followed to its end, in the largest
 * pages, unless the path asks for a page size itself (limit).
 */
export async function fetchAll(path: string): Promise<unknown> {
  const follow = !new URLSearchParams(path.split('?')[1] ?? '').has('limit');
  const first = follow && POINT_LISTS.test(path) ? `${path}${path.includes('?') ? '&' : '?'}limit=${POINT_PAGE}` : path;
  let rows: unknown[] | undefined;
  for (let url: string | undefined = first; url;) {
    const res = await get(url);
    const body = (await res.json()) as unknown;
    if (!res.ok) throw new Error((body as { error?: string }).error ?? `${res.status} ${res.statusText}`);
    const next = follow ? /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] : undefined;
    if (!Array.isArray(body)) return body;
    rows = rows ? rows.concat(body) : body;
    url = next;
  }
  return rows;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
}

/** The JSON at `path` (undefined: nothing to load). */
export function useApi<T>(path: string | undefined): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: undefined, loading: path !== undefined });
  useEffect(() => {
    if (path === undefined) {
      setState({ data: undefined, error: undefined, loading: false });
      return;
    }
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    fetchJson<T>(path).then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (e: Error) => live && setState({ data: undefined, error: e.message, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return state;
}

export const query = (params: Record<string, string | number | boolean | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  return q.toString();
};

/** The JSON at each of `paths`, by path; a path not in the map yet is still loading. */
export function useApiEach<T>(paths: readonly string[]): Map<string, Loaded<T>> {
  // One string: the effect runs when the list changes, not on every render's new array.
  const key = paths.join('\n');
  const [state, setState] = useState<Map<string, Loaded<T>>>(new Map());
  useEffect(() => {
    const list = key ? key.split('\n') : [];
    let live = true;
    setState(new Map());
    const settle = (path: string, loaded: Loaded<T>) => live && setState((s) => new Map(s).set(path, loaded));
    for (const path of list)
      fetchJson<T>(path).then(
        (data) => settle(path, { data, error: undefined, loading: false }),
        (e: Error) => settle(path, { data: undefined, error: e.message, loading: false }),
      );
    return () => {
      live = false;
    };
  }, [key]);
  return state;
}
