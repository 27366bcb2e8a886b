// A real llama.cpp llama-server for integration tests: built once from node-llama-cpp@3.21.1's source bundle
// (scripts/llama-server.mjs), serving a tiny random-weight llama with the GPT-2 vocabulary (scripts/tiny-model.mjs),
// so that its tokens are gpt-tokenizer's r50k_base tokens. The first call builds the binary (4–20 min on 2 cores).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../helpers.js';
import { WaitTimeout, waitFor } from './wait.js';

const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url));

/** What scripts/llama-server.mjs exports (a plain .mjs, imported through a computed URL: it has no type declarations). */
export interface LlamaServerScript {
  ensureLlamaServer(): Promise<string>;
  ensureLlamaServerAndModel(): Promise<{ binary: string; model: string; vocab: string }>;
  CACHE_DIR: string;
  GPT2_VOCAB: string;
  NODE_LLAMA_CPP_VERSION: string;
}

export interface TinyModelOptions {
  nEmbd?: number;
  nLayer?: number;
  nHead?: number;
  nFf?: number;
  ctx?: number;
  seed?: number;
  allowEos?: boolean;
}

export interface TinyModelInfo {
  size: number;
  nVocab: number;
  emittable: number;
  nEmbd: number;
  nLayer: number;
  nHead: number;
  nHeadKv: number;
  nFf: number;
  ctx: number;
  seed: number;
  allowEos: boolean;
}

export interface GgufEntry {
  type: number;
  value: unknown;
}

/** What scripts/tiny-model.mjs exports. */
export interface TinyModelScript {
  readGguf(buffer: Buffer): {
    version: number;
    metadata: Map<string, GgufEntry>;
    tensors: { name: string; dims: number[]; type: number; offset: number }[];
    alignment: number;
    dataOffset: number;
  };
  writeGguf(
    metadata: Iterable<[string, GgufEntry]>,
    tensors: { name: string; dims: number[]; type?: number; data: Float32Array | Uint8Array }[],
  ): Buffer;
  makeTinyLlama(vocab: Buffer, options?: TinyModelOptions): Buffer;
  makeTinyLlamaWithInfo(vocab: Buffer, options?: TinyModelOptions): { buffer: Buffer; info: TinyModelInfo };
  writeTinyLlama(vocabPath: string, outPath: string, options?: TinyModelOptions): TinyModelInfo;
  CHATML_TEMPLATE: string;
}

export const loadLlamaServerScript = async (): Promise<LlamaServerScript> =>
  (await import(pathToFileURL(join(SCRIPTS, 'llama-server.mjs')).href)) as LlamaServerScript;

export const loadTinyModelScript = async (): Promise<TinyModelScript> =>
  (await import(pathToFileURL(join(SCRIPTS, 'tiny-model.mjs')).href)) as TinyModelScript;

/** The model every test server serves: n_embd 64, 2 layers, 4 heads, ff 256, context 4096, seed 1, GPT-2 vocab. */
export const TINY_MODEL_OPTIONS: TinyModelOptions = { nEmbd: 64, nLayer: 2, nHead: 4, nFf: 256, ctx: 4096, seed: 1 };

/** The llama-server binary and the tiny GPT-2 model (built / generated on first use, then reused from the cache). */
export async function ensureLlamaServerAndModel(): Promise<{ binary: string; model: string; vocab: string }> {
  return (await loadLlamaServerScript()).ensureLlamaServerAndModel();
}

export interface LlamaServer {
  url: string;
  port: number;
  pid: number;
  /** The exact command line (for messages). */
  args: string[];
  /** Kill this server's process (SIGTERM, SIGKILL after 5 s) and wait until it has exited. */
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  /** Slots (`-np`), i.e. requests decoded concurrently; default 4. */
  parallel?: number;
  /** Context per slot in tokens; `-c` is ctx × parallel. Default 1024. */
  ctx?: number;
}

const READY_TIMEOUT_MS = 60_000;

/**
 * Start a llama-server on a free 127.0.0.1 port serving the tiny GPT-2 model and wait until `GET /health` is 200.
 * Always `stop()` it (e.g. in afterAll).
 */
export async function startLlamaServer(options: LlamaServerOptions = {}): Promise<LlamaServer> {
  const parallel = options.parallel ?? 4;
  const ctx = options.ctx ?? 1024;
  const { binary, model } = await ensureLlamaServerAndModel();
  let lastError: unknown;
  // The free port may be taken between our probe and the server's bind: try a new one then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const args = ['-m', model, '--host', '127.0.0.1', '--port', String(port), '-c', String(ctx * parallel)];
    args.push('-np', String(parallel), '-t', '2', '--no-webui');
    try {
      return await launch(binary, args, port);
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && /bind|address already in use/i.test(error.message))) throw error;
    }
  }
  throw lastError;
}

async function launch(binary: string, args: string[], port: number): Promise<LlamaServer> {
  // LLAMA_ARG_* variables would silently override flags: the server sees only the command line.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('LLAMA_ARG_')));
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  const keep = (data: Buffer): void => {
    output = (output + data.toString()).slice(-16_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = signal ? `signal ${signal}` : `exit code ${code}`;
      resolve();
    });
  });
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (error) => resolve(error));
  });
  if (spawned || child.pid === undefined) throw new Error(`could not start ${binary}: ${spawned?.message ?? 'no pid'}`);
  const pid = child.pid;
  // Never leave the server behind, even when a test file forgets stop() or the worker dies.
  const killOnExit = (): void => {
    if (exitInfo === undefined) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (exitInfo !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (exitInfo === undefined) child.kill('SIGKILL');
    }, 5000);
    await exited;
    clearTimeout(timer);
  };

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (exitInfo !== undefined) {
          process.removeListener('exit', killOnExit);
          throw new Error(`llama-server exited before it was ready (${exitInfo}): ${binary} ${args.join(' ')}\n${output}`);
        }
        try {
          const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
          await res.arrayBuffer();
          return res.status === 200;
        } catch {
          return false; // not listening yet
        }
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 100, what: `llama-server's /health to answer 200` },
    );
  } catch (error) {
    if (!(error instanceof WaitTimeout)) throw error;
    await stop();
    throw new Error(`${error.message}: ${binary} ${args.join(' ')}\n${output}`);
  }
  return { url, port, pid, args, stop };
}
