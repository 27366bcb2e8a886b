#!/usr/bin/env node
// A stand-in for the GitHub CLI in workflow steps run by test/support/actions-runner.ts. It logs
// every call to $FAKE_GH_DIR/calls.jsonl, answers `gh api` from $FAKE_GH_DIR/routes.json (the
// runner writes it: recorded answers by path pattern, and the run's jobs as they stand), and records
// `gh pr comment N --body-file F` and comment edits (`gh api -X PATCH …/issues/comments/ID -F body=@F`)
// in $FAKE_GH_DIR/comments.jsonl, and `gh run download` of another run's artifacts the runner was
// given. Anything else fails as the real CLI would without a network.
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.FAKE_GH_DIR;
if (!dir) {
  process.stderr.write('gh stand-in: FAKE_GH_DIR is not set\n');
  process.exit(2);
}
const args = process.argv.slice(2);
appendFileSync(join(dir, 'calls.jsonl'), `${JSON.stringify(args)}\n`);

const fail = (message) => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

/** `-F key=@file` reads the file, as gh does. */
const fieldValue = (v) => (v.startsWith('@') ? readFileSync(v.slice(1), 'utf8') : v);

if (args[0] === 'api') {
  let method = 'GET';
  let endpoint;
  let jq;
  let paginate = false;
  let slurp = false;
  const fields = {};
  for (let i = 1; i < args.length; i++) {
    const a = args[i];
    if (a === '-X' || a === '--method') method = args[++i].toUpperCase();
    else if (a === '--jq' || a === '-q') jq = args[++i];
    else if (a === '--paginate') paginate = true;
    else if (a === '--slurp') slurp = true;
    else if (a === '-F' || a === '-f' || a === '--field' || a === '--raw-field') {
      const [k, ...v] = args[++i].split('=');
      fields[k] = fieldValue(v.join('='));
    } else if (a.startsWith('-')) fail(`gh stand-in: unsupported flag ${a}`);
    else endpoint = a;
  }
  if (!endpoint) fail('gh stand-in: no endpoint');
  if (slurp && !paginate) fail('the `--slurp` option is only supported with `--paginate`');
  if (slurp && jq) fail('the `--slurp` option is not supported with `--jq` or `--template`');
  const repo = process.env.GITHUB_REPOSITORY ?? '';
  const path = endpoint.replace(/^\//, '').replace(`repos/${repo}/`, '').replace(/\?.*$/, '');
  if (method === 'PATCH') {
    const m = /^issues\/comments\/(\d+)$/.exec(path);
    if (!m) fail(`gh stand-in: no PATCH ${path}`);
    appendFileSync(join(dir, 'comments.jsonl'), `${JSON.stringify({ edit: Number(m[1]), body: fields.body ?? '' })}\n`);
    process.stdout.write('{}\n');
    process.exit(0);
  }
  if (method !== 'GET') fail(`gh stand-in: no ${method} ${path}`);
  const { routes } = JSON.parse(readFileSync(join(dir, 'routes.json'), 'utf8'));
  const route = routes.find((r) => new RegExp(`^${r.path}$`).test(path));
  if (!route) fail(`gh: Not Found (HTTP 404)\n(gh stand-in: no recorded answer for ${path})`);
  const page = route.answer;
  const text = `${JSON.stringify(slurp ? [page] : page)}\n`;
  if (jq) process.stdout.write(execFileSync('jq', ['-r', jq], { input: text, encoding: 'utf8' }));
  else process.stdout.write(text);
} else if (args[0] === 'pr' && args[1] === 'comment') {
  const at = args.indexOf('--body-file');
  if (at < 0) fail('gh stand-in: pr comment without --body-file');
  const body = readFileSync(args[at + 1], 'utf8');
  appendFileSync(join(dir, 'comments.jsonl'), `${JSON.stringify({ pr: Number(args[2]), body })}\n`);
  process.stdout.write(`https://github.com/${process.env.GITHUB_REPOSITORY}/pull/${args[2]}#issuecomment-1\n`);
} else if (args[0] === 'run' && args[1] === 'download') {
  // `gh run download RUN [--repo R] [--dir D] [--name N]...`: from the artifacts the runner was given
  // for other runs ($FAKE_GH_DIR/run-artifacts.json: run id → a folder of artifact folders). As gh
  // does, one name extracts into D itself, several (or none: every artifact) into D/NAME each.
  let dest = '.';
  const names = [];
  let runId;
  for (let i = 2; i < args.length; i++) {
    const a = args[i];
    if (a === '--dir' || a === '-D') dest = args[++i];
    else if (a === '--name' || a === '-n') names.push(args[++i]);
    else if (a === '--repo' || a === '-R') i++;
    else if (a.startsWith('-')) fail(`gh stand-in: unsupported flag ${a}`);
    else runId = a;
  }
  const runs = existsSync(join(dir, 'run-artifacts.json'))
    ? JSON.parse(readFileSync(join(dir, 'run-artifacts.json'), 'utf8'))
    : {};
  const from = runs[runId];
  if (!from) fail(`HTTP 404: Not Found (gh stand-in: no artifacts recorded for run ${runId})`);
  const stored = readdirSync(from).sort();
  const chosen = names.length > 0 ? stored.filter((a) => names.includes(a)) : stored;
  if (chosen.length === 0) fail('no valid artifacts found to download');
  for (const a of chosen) cpSync(join(from, a), names.length === 1 ? dest : join(dest, a), { recursive: true });
} else {
  fail(`gh stand-in: unsupported command: gh ${args.join(' ')}`);
}
