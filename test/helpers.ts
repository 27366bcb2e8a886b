import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
const BUNDLED = resolve(REPO, 'test/fixtures/inferencex');
/** A fuller copy of the reference fixtures, when $FRONTIER_REFERENCE_FIXTURES names one (new cases are picked up there). */
const REFERENCE = process.env.FRONTIER_REFERENCE_FIXTURES;

/** The reference fixtures: $FRONTIER_REFERENCE_FIXTURES when set, else the bundled copy. */
export const HAS_REFERENCE = REFERENCE !== undefined && REFERENCE !== '' && existsSync(REFERENCE);
export const INFERENCEX = HAS_REFERENCE ? resolve(REFERENCE!) : BUNDLED;
export const BUNDLED_INFERENCEX = BUNDLED;

/** Read a fixture relative to `root`, accepting a gzipped copy (`x.gz`) for `x`. */
export function readFixture(path: string, root = INFERENCEX): string {
  const full = join(root, path);
  if (existsSync(full)) return readFileSync(full, 'utf8');
  return gunzipSync(readFileSync(`${full}.gz`)).toString('utf8');
}

/** The srt-slurm recipes and perf-changelog.yaml as { path: text } (bundled as one gzipped JSON). */
export function yamlCorpus(): Record<string, string> {
  return JSON.parse(gunzipSync(readFileSync(join(BUNDLED, 'yaml-corpus.json.gz'))).toString('utf8')) as Record<string, string>;
}

export const CLI = join(REPO, 'dist/frontier.cjs');

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI (npm test builds it first). */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temporary directory, inside the one the test run removes when it ends (test/support/temp-root.ts). */
export const testTempDir = (): string => mkdtempSync(join(process.env.FRONTIER_TEST_TMP ?? tmpdir(), 'frontier-test-'));

/** A fresh temporary directory holding the given files (path → content). */
export function tempFiles(files: Record<string, string>): string {
  const dir = testTempDir();
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return dir;
}

/**
 * The changelog golden cases (see golden/changelog/README.md there): a directory per case with
 * base/, head/, args.json and expected.json. From $FRONTIER_REFERENCE_FIXTURES when set, else
 * unpacked once from the bundled, de-duplicated copy.
 */
export function changelogGoldenRoot(): string {
  if (HAS_REFERENCE) return join(INFERENCEX, 'golden/changelog');
  if (unpacked) return unpacked;
  const { manifest, blobs } = JSON.parse(
    brotliDecompressSync(readFileSync(join(BUNDLED, 'golden/changelog.json.br'))).toString('utf8'),
  ) as { manifest: Record<string, string>; blobs: Record<string, string> };
  const files = Object.fromEntries(Object.entries(manifest).map(([path, hash]) => [path, blobs[hash]!]));
  unpacked = tempFiles(files);
  return unpacked;
}
let unpacked: string | undefined;

export function changelogGoldenCases(): string[] {
  const root = changelogGoldenRoot();
  return readdirSync(root).filter((name) => existsSync(join(root, name, 'args.json')));
}

/**
 * The fixture InferenceX tree in a fresh temporary directory: configs/, perf-changelog.yaml and
 * every srt-slurm recipe, under benchmarks/multi_node/srt-slurm-recipes/ as in an InferenceX
 * checkout (or under srt-slurm-recipes/ as the fixtures keep them).
 */
export function inferencexTree(layout: 'checkout' | 'fixtures' = 'checkout'): string {
  const files: Record<string, string> = {};
  for (const name of ['amd-master.yaml', 'nvidia-master.yaml', 'runners.yaml'])
    files[`configs/${name}`] = readFixture(`configs/${name}`);
  const prefix = layout === 'checkout' ? 'benchmarks/multi_node/' : '';
  for (const [path, text] of Object.entries(yamlCorpus()))
    files[path.startsWith('srt-slurm-recipes/') ? `${prefix}${path}` : path] = text;
  return tempFiles(files);
}

/** Run the built CLI without blocking the event loop (for tests that also serve or talk to servers). */
export function runCliAsync(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO, env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

/**
 * Ports for the jobs of one Slurm test file, whose processes number up from a fixed first port
 * (20 per launch): file `block` gets ports 20000 + 1000 × block and up. The blocks stay below
 * Linux's ephemeral range (32768 and up), from which the OS hands out the source ports of outgoing
 * connections and the ports of `listen(0)`, so that no other socket holds a job's port.
 */
export function jobPorts(block: number): () => number {
  let next = 20_000 + block * 1000 + (process.pid % 10) * 20;
  return () => (next += 20);
}

/** A TCP port free on 127.0.0.1 right now (for a server a test starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Run git in `cwd` as a fixed test identity; its output, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Frontier Test', '-c', 'user.email=test@frontier.invalid', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/** The `http://127.0.0.1:PORT` a server child prints once it listens (`… on http://…`); rejects when it exits first. */
export function announcedUrl(child: ChildProcess, what = 'sim'): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`${what} exited ${code}`)));
  });
}
