/**
 * `frontier ci signoff`: verify a CODEOWNER's sign-off comment on a pull request. Reads the event
 * (the comment), the change between --base and --head (git, no checkout), CODEOWNERS and the
 * checklist at --trusted (the default branch), the PR's commits, the
 * store's runs of them and the recorded API data; prints the verdict comment and writes it to a
 * file for `gh pr comment --body-file`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readJsonFile } from '../util/json-file.js';
import { Command } from 'commander';
import { listItems } from '../ci/reuse/index.js';
import { readRepositoryChange, runsOfCommits } from '../ci/signoff-gather.js';
import { SIGNOFF_PHRASE, verdictMarkdown, verifySignoff } from '../ci/signoff/index.js';
import type { PrComment, RunEvidence } from '../ci/signoff/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiFormat } from './ci-step.js';
import { pathOption, userPath } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';
import { isPostgres } from '../store/location-kind.js';

type Json = Record<string, unknown>;

const readJson = (file: string, flag: string, what: string): unknown =>
  readJsonFile(file, { what: `${flag} ${file}`, hint: `the file holds ${what}` });

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/**
 * `--commits FILE`: what `gh api repos/O/R/pulls/N/commits --paginate [--slurp]` lists (objects
 * with `sha`, or pages of them), or plain SHAs.
 */
function commitsOf(file: string): string[] {
  const value = readJson(file, '--commits', 'the PR commits as `gh api repos/O/R/pulls/N/commits --paginate` lists them');
  const list: unknown[] | undefined = Array.isArray(value) ? value : undefined;
  const plain = list?.every((c) => typeof c === 'string');
  const shas = !list ? undefined : plain ? (list as string[]) : listItems(list, '').map((c) => str(c.sha));
  // Objects without "sha" (or pages holding none) are a wrong file, not a PR without commits.
  if (!shas || (!plain && list!.length > 0 && shas.length === 0) || shas.some((s) => !/^[0-9a-f]{7,40}$/i.test(s)))
    throw new UserError(`--commits ${file}: expected an array of commits, each a SHA or an object with "sha"`, {
      hint: 'gh api repos/OWNER/REPO/pulls/N/commits --paginate --jq "[.[] | {sha}]"',
    });
  return shas;
}

/** `--comments FILE`: the PR's conversation comments, as `gh api repos/O/R/issues/N/comments --paginate [--slurp]` lists them. */
function commentsOf(file: string): PrComment[] {
  const value = readJson(file, '--comments', 'the PR comments as `gh api repos/O/R/issues/N/comments` lists them');
  if (!Array.isArray(value)) throw new UserError(`--comments ${file}: expected an array of comments`);
  return listItems(value, '').map((c) => ({
    body: str(obj(c).body),
    author: str(obj(obj(c).user).login),
    association: str(obj(c).author_association),
  }));
}

/** `--teams FILE`: `{"org/team": ["login", …]}`. */
function teamsOf(file: string): Record<string, string[]> {
  const value = obj(readJson(file, '--teams', 'team members: {"org/team": ["login", ...]}'));
  return Object.fromEntries(
    Object.entries(value).map(([team, members]) => [
      team.replace(/^@/, '').toLowerCase(),
      Array.isArray(members) ? members.map((m) => (typeof m === 'string' ? m : str(obj(m).login))) : [],
    ]),
  );
}

/** The store's runs of `commits`, or undefined when there is no store to read (a SQLite file that does not exist). */
async function storeRuns(db: string | undefined, commits: string[]): Promise<RunEvidence[] | undefined> {
  const { openStore, storeLocation } = await import('../store/index.js');
  const location = userPath(storeLocation(db));
  if (!isPostgres(location) && !existsSync(location)) return undefined;
  let store;
  try {
    store = await openStore(location);
  } catch (e) {
    throw new UserError(`--db ${location}: ${(e as Error).message}`);
  }
  try {
    return await runsOfCommits(store, commits);
  } finally {
    await store.close();
  }
}

interface SignoffOptions {
  event?: string;
  eventName?: string;
  format: CiFormat;
  repo: string;
  base: string;
  head: string;
  trusted: string;
  commits?: string;
  pr?: string;
  comments?: string;
  teams?: string;
  db?: string;
  commentFile?: string;
}

export function ciSignoffCommand(): Command {
  const command = new Command('signoff')
    .description(
      "verify a CODEOWNER's sign-off comment: owners, template, green sweep and evals, images, patches, spec-decode, reuse",
    )
    .addOption(pathOption('--repo <dir>', 'the repository (git; read with git show, no checkout)', 'catalog').default('.'))
    .requiredOption('--base <ref>', "the PR's base revision: the change is the diff from its merge base with --head")
    .requiredOption('--head <ref>', 'the PR head revision')
    .requiredOption(
      '--trusted <ref>',
      "the repository's default branch (pr.json .base.repo.default_branch): CODEOWNERS and the checklist are read here, never at --base, which the PR's author chooses",
    )
    .addOption(
      pathOption(
        '--commits <file>',
        "the PR's commits as gh api repos/O/R/pulls/N/commits lists them (default: git rev-list base..head)",
      ),
    )
    .addOption(pathOption('--pr <file>', 'the pull request as gh api repos/O/R/pulls/N gives it (its body; default: the event)'))
    .addOption(
      pathOption(
        '--comments <file>',
        "the PR's conversation comments (gh api repos/O/R/issues/N/comments), for /reuse-sweep-run",
      ),
    )
    .addOption(pathOption('--teams <file>', 'team members, {"org/team": ["login", ...]}, for team owners in CODEOWNERS'))
    .addOption(
      pathOption('--db <location>', 'the store: a SQLite file or a postgres:// URL (default $FRONTIER_DB, else ./frontier.db)'),
    )
    .addOption(
      pathOption(
        '--comment-file <file>',
        'where to write the verdict comment (default $RUNNER_TEMP/signoff-verdict.md, else ./signoff-verdict.md)',
      ),
    );
  return withFormat(withEvent(command)).action(async (opts: SignoffOptions) => {
    const event = eventOf(opts);
    const comment = event.comment;
    if (event.name !== 'issue_comment' || !comment || !event.issue?.isPullRequest) {
      throw new UserError(`ci signoff decides on a comment on a pull request, not a ${event.name} event`, {
        hint: 'run it for issue_comment events on pull requests',
      });
    }
    if (!comment.body.includes(SIGNOFF_PHRASE)) {
      const text = `not a sign-off: the comment does not carry "${SIGNOFF_PHRASE}"`;
      emit({ text, json: { verdict: 'skip', reason: text }, outputs: { verdict: 'skip' } }, opts.format);
      return;
    }
    const prNumber = event.issue.number;
    const change = await readRepositoryChange(
      resolve(opts.repo),
      { base: opts.base, head: opts.head, trusted: opts.trusted },
      prNumber,
    );
    const prJson = opts.pr ? obj(readJson(opts.pr, '--pr', 'the pull request as gh api repos/O/R/pulls/N gives it')) : undefined;
    const prBody = prJson ? str(prJson.body) : event.issue.body;
    const commits = opts.commits ? commitsOf(opts.commits) : change.commits;
    const verdict = verifySignoff({
      ...change,
      pr: { number: prNumber, body: prBody, headSha: change.headSha, commits },
      comment,
      runs: await storeRuns(opts.db, commits),
      comments: opts.comments ? commentsOf(opts.comments) : undefined,
      teams: opts.teams ? teamsOf(opts.teams) : undefined,
    });
    const markdown = verdictMarkdown(verdict);
    const commentFile = resolve(opts.commentFile ?? join(process.env.RUNNER_TEMP ?? '.', 'signoff-verdict.md'));
    writeFileAtomic(commentFile, markdown);
    emit(
      {
        text: markdown,
        json: { ...verdict, commentFile },
        outputs: { verdict: verdict.verdict, 'comment-file': commentFile },
        exitCode: verdict.verdict === 'fail' ? ExitCode.FAILED : ExitCode.OK,
      },
      opts.format,
    );
  });
}
