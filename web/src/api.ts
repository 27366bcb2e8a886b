import { useEffect, useState } from 'react';

/** GET an API path (cached for the page's life: the data of a URL does not change while it is open). */
const cache = new Map<string, Promise<unknown>>();

export function fetchJson<T>(path: string): Promise<T> {
  let p = cache.get(path);
  if (!p) {
    p = fetch(path).then(async (res) => {
      const body = (await res.json()) as { error?: string };
      if (!res.ok) throw new Error(body.error ?? `${res.status} ${res.statusText}`);
      return body;
    });
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p as Promise<T>;
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
