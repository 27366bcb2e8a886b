/**
 * A recorded listing of a repository's self-hosted runners, as GitHub's "list self-hosted runners
 * for a repository" answers it (`gh api repos/O/R/actions/runners`). Every shape `gh` writes is
 * read: one page (`{ total_count, runners }`), the pages of `--paginate` back to back, the array of
 * pages of `--paginate --slurp`, or an array of runners (`--jq '.runners[]' | jq -s .`).
 */
import { UserError } from '../../util/user-error.js';
import { jsonDocuments } from '../../util/json-file.js';

/** One self-hosted runner, as much of it as the digest reads. */
export interface GithubRunner {
  id: number;
  name: string;
  os: string;
  status: 'online' | 'offline';
  /** Running a job now. */
  busy: boolean;
  /** Every label it carries (`self-hosted`, `Linux`, `X64`, and the custom ones). */
  labels: string[];
}

export const RUNNERS_LISTING_HINT =
  'record it with: gh api --paginate --slurp "repos/OWNER/REPO/actions/runners?per_page=100" > runners.json';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each runner object of the listing, with where it is (for messages). */
function runnerObjects(values: unknown[], file: string): { at: string; value: unknown }[] {
  const pages: { at: string; value: unknown }[] = [];
  const runners: { at: string; value: unknown }[] = [];
  values.forEach((v, i) => {
    const at = values.length > 1 ? `page ${i + 1}` : '';
    if (Array.isArray(v)) {
      // --slurp's pages, or an array of runners.
      v.forEach((x, j) => {
        if (isObject(x) && 'runners' in x) pages.push({ at: `${at ? `${at}, ` : ''}[${j}]`, value: x });
        else runners.push({ at: `${at ? `${at}, ` : ''}[${j}]`, value: x });
      });
    } else pages.push({ at, value: v });
  });
  for (const page of pages) {
    const p = page.value;
    if (!isObject(p) || !Array.isArray(p.runners))
      throw new UserError(
        `${file}${page.at ? ` (${page.at})` : ''}: not a runners listing: expected { "total_count", "runners": [...] }`,
        {
          hint: RUNNERS_LISTING_HINT,
        },
      );
    p.runners.forEach((r, j) => runners.push({ at: `${page.at ? `${page.at}, ` : ''}runners[${j}]`, value: r }));
  }
  return runners;
}

/** The runners of a recorded listing; a UserError naming the file, the runner and the key when it is not one. */
export function parseRunnersListing(text: string, file: string): GithubRunner[] {
  const values = jsonDocuments(text, file, RUNNERS_LISTING_HINT);
  const out: GithubRunner[] = [];
  const seen = new Map<string, string>();
  for (const { at, value } of runnerObjects(values, file)) {
    const bad = (key: string, expected: string, got: unknown): never => {
      throw new UserError(`${file}: ${at}.${key}: expected ${expected}, got ${JSON.stringify(got) ?? 'nothing'}`, {
        hint: RUNNERS_LISTING_HINT,
      });
    };
    if (!isObject(value)) bad('', 'a runner object', value);
    const r = value as Record<string, unknown>;
    if (typeof r.name !== 'string' || r.name === '') bad('name', 'the runner name', r.name);
    if (r.status !== 'online' && r.status !== 'offline') bad('status', '"online" or "offline"', r.status);
    if (typeof r.busy !== 'boolean') bad('busy', 'true or false', r.busy);
    if (!Array.isArray(r.labels)) bad('labels', 'a list of { name, type }', r.labels);
    const labels = (r.labels as unknown[]).map((l, k) =>
      isObject(l) && typeof l.name === 'string' ? l.name : bad(`labels[${k}]`, 'a label { name, type }', l),
    );
    const name = r.name as string;
    const first = seen.get(name);
    if (first !== undefined)
      throw new UserError(`${file}: ${at}: runner "${name}" is listed twice (also at ${first})`, {
        hint: 'record the listing again: runner names are unique in a repository',
      });
    seen.set(name, at);
    out.push({
      id: typeof r.id === 'number' ? r.id : 0,
      name,
      os: typeof r.os === 'string' ? r.os : '',
      status: r.status as GithubRunner['status'],
      busy: r.busy as boolean,
      labels,
    });
  }
  return out;
}
