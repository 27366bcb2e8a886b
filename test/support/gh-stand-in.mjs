#!/usr/bin/env node
// A stand-in for the GitHub CLI in workflow steps run by test/support/actions-runner.ts. It logs
// every call to $FAKE_GH_DIR/calls.jsonl, answers `gh api` from $FAKE_GH_DIR/routes.json (the
// runner writes it: recorded answers by path pattern, and the run's jobs as they stand), and records
// `gh pr comment N --body-file F` and comment edits (`gh api -X PATCH …/issues/comments/ID -F body=@F`)
// in $FAKE_GH_DIR/comments.jsonl; keeps releases (`gh release view|create|upload`) as folders of
// their assets under $FAKE_GH_DIR/releases/<tag>/; `gh run download ID --dir D [--name N]… [--pattern P]…` copies the
// artifacts of earlier runs from $FAKE_GH_DIR/runs/ID/<artifact>/ (as gh lays them out: straight into
// D for one --name, else one folder each). Other writes (`gh api -X POST|PUT|DELETE PATH`, the body from
// `--input FILE` or the fields) are recorded in $FAKE_GH_DIR/requests.jsonl and answered with
// nothing, as the API's 204. Anything else fails as the real CLI would without a network.
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

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
  let input;
  const fields = {};
  for (let i = 1; i < args.length; i++) {
    const a = args[i];
    if (a === '-X' || a === '--method') method = args[++i].toUpperCase();
    else if (a === '--jq' || a === '-q') jq = args[++i];
    else if (a === '--paginate') paginate = true;
    else if (a === '--slurp') slurp = true;
    else if (a === '--input') input = args[++i];
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
  if (['POST', 'PUT', 'DELETE'].includes(method)) {
    const body = input !== undefined ? JSON.parse(readFileSync(input, 'utf8')) : fields;
    appendFileSync(join(dir, 'requests.jsonl'), `${JSON.stringify({ method, path, body })}\n`);
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
} else if (args[0] === 'release' && ['view', 'create', 'upload'].includes(args[1])) {
  const [, command, tag] = args;
  const valued = new Set(['--repo', '-R', '--title', '-t', '--notes', '-n', '--target']);
  const assets = [];
  for (let i = 3; i < args.length; i++)
    if (valued.has(args[i])) i++;
    else if (!args[i].startsWith('-')) assets.push(args[i]);
  const home = join(dir, 'releases', tag);
  if (command === 'view') {
    if (!existsSync(home)) fail('release not found');
    process.stdout.write(`${tag}\n`);
  } else {
    if (command === 'create' && existsSync(home)) fail(`a release with the same tag name already exists: ${tag}`);
    if (command === 'upload' && !existsSync(home)) fail('release not found');
    mkdirSync(home, { recursive: true });
    for (const a of assets) {
      if (existsSync(join(home, basename(a))) && !args.includes('--clobber'))
        fail(`asset under the same name already exists: [${basename(a)}]`);
      copyFileSync(a, join(home, basename(a)));
    }
    process.stdout.write(`https://github.com/${process.env.GITHUB_REPOSITORY}/releases/tag/${tag}\n`);
  }
} else if (args[0] === 'run' && args[1] === 'download') {
  let run;
  let dest = '.';
  const names = [];
  const patterns = [];
  for (let i = 2; i < args.length; i++) {
    const a = args[i];
    if (a === '--dir' || a === '-D') dest = args[++i];
    else if (a === '--name' || a === '-n') names.push(args[++i]);
    else if (a === '--pattern' || a === '-p') patterns.push(args[++i]);
    else if (a === '--repo' || a === '-R') i++;
    else if (a.startsWith('-')) fail(`gh stand-in: unsupported flag ${a}`);
    else run = a;
  }
  const stored = join(dir, 'runs', run ?? '');
  const all = existsSync(stored) ? readdirSync(stored).sort() : [];
  const glob = (p) =>
    new RegExp(
      `^${p
        .replace(/[.+^$()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
  const wanted =
    names.length + patterns.length === 0 ? all : all.filter((a) => names.includes(a) || patterns.some((p) => glob(p).test(a)));
  for (const n of names) if (!all.includes(n)) fail(`no artifact matches any of the names or patterns provided: ${n}`);
  if (wanted.length === 0) fail('no valid artifacts found to download');
  const direct = names.length === 1 && patterns.length === 0;
  for (const a of wanted) cpSync(join(stored, a), direct ? dest : join(dest, a), { recursive: true });
} else {
  fail(`gh stand-in: unsupported command: gh ${args.join(' ')}`);
}
