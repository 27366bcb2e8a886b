import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateAl } from '../../src/specdec/collect.js';
import { CLI, REPO, announcedUrl, freePort, runCli, runCliAsync, tempFiles, yamlCorpus } from '../helpers.js';

/**
 * `frontier al collect` against real servers: `frontier sim serve` processes with speculative
 * decoding (started per cell by --serve, or already running for --url), a recording stand-in for
 * what is sent, and the inputs it refuses.
 */

const DATA = join(REPO, 'test/fixtures/speedbench');
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const KEY = 'llama-3.1-8b-instruct';

/** The simulated engines' acceptance per cell: what the collection must find. */
const TARGET: Record<string, Record<number, number>> = {
  thinking_on: { 1: 1.8, 3: 2.4 },
  thinking_off: { 1: 1.6, 3: 2.9 },
};
const SIM = `"${process.execPath}" "${CLI}" sim serve --port {port} --speed 50 --seed 7 --natural-output-tokens 100000`;
/** One simulated engine per cell, its draft length and acceptance chosen by the cell, as a vLLM command would be. */
const SERVE = `case {thinking}{draft} in on1) a=1.8;; on3) a=2.4;; off1) a=1.6;; off3) a=2.9;; esac; exec ${SIM} --spec-draft-tokens {draft} --spec-acceptance "$a"`;

interface JsonCell {
  thinking: string;
  draftLength: number;
  value: number | null;
  al: number | null;
  ci: [number, number] | null;
  requests: number;
  drafts: number | null;
  error: string | null;
}

describe('frontier al collect --serve, one simulated engine per cell', () => {
  const dir = tempFiles({});
  const out = join(dir, 'golden', 'al.yaml');
  let run: { status: number; stdout: string; stderr: string };
  let cells: JsonCell[];
  beforeAll(async () => {
    mkdirSync(join(dir, 'golden'));
    run = await runCliAsync([
      'al',
      'collect',
      '--model',
      MODEL,
      '--serve',
      SERVE,
      '--draft-lengths',
      '1,3',
      '--thinking',
      'on,off',
      '--data',
      DATA,
      '--output-len',
      '64',
      '--out',
      out,
      '--log-dir',
      join(dir, 'logs'),
      '--format',
      'json',
    ]);
    cells = (JSON.parse(run.stdout) as { cells: JsonCell[] }).cells;
  }, 120_000);

  it('reproduces each cell’s configured AL within the 95% interval it states', () => {
    expect([run.status, run.stderr]).toEqual([0, expect.stringContaining('thinking_off draft 3: AL 2.')]);
    expect(cells.map((c) => [c.thinking, c.draftLength])).toEqual([
      ['thinking_on', 1],
      ['thinking_off', 1],
      ['thinking_on', 3],
      ['thinking_off', 3],
    ]);
    for (const c of cells) {
      const target = TARGET[c.thinking]![c.draftLength]!;
      expect(c.error).toBeNull();
      expect(c.requests).toBe(6);
      expect(c.drafts!).toBeGreaterThan(80);
      const [lo, hi] = c.ci!;
      // Stated, and tight enough to mean something (6 prompts of 64 tokens).
      expect(hi - lo).toBeLessThan(0.4);
      expect([c.thinking, c.draftLength, lo <= target && target <= hi]).toEqual([c.thinking, c.draftLength, true]);
      expect(c.value).toBe(Number(c.al!.toFixed(2)));
    }
    // The thinking modes' engines differ: the on and off curves are told apart.
    const at = (mode: string, n: number): number => cells.find((c) => c.thinking === mode && c.draftLength === n)!.al!;
    expect(at('thinking_off', 3) - at('thinking_on', 3)).toBeGreaterThan(0.3);
  });

  it('writes a golden file that frontier al show reads back with the same values', () => {
    const show = runCli(['al', 'show', KEY, '--dir', join(dir, 'golden'), '--format', 'json']);
    expect(show.status).toBe(0);
    const curves = JSON.parse(show.stdout) as { model: string; mode: string; points: { draftLength: number; al: number }[] }[];
    expect(curves.map((c) => [c.model, c.mode, c.points.map((p) => [p.draftLength, p.al])])).toEqual(
      ['thinking_on', 'thinking_off'].map((mode) => [
        KEY,
        mode,
        [1, 3].map((n) => [n, cells.find((c) => c.thinking === mode && c.draftLength === n)!.value]),
      ]),
    );
    const text = runCli(['al', 'show', KEY, '--dir', join(dir, 'golden')]).stdout;
    expect(text).toContain('thinking_on chat_template_kwargs {"thinking":true,"reasoning_effort":"high"}');
    expect(text).toContain(`measured on ${KEY} (${MODEL})`);
  });

  it("is read by InferenceX's own injector (runners/inject_synthetic_acceptance.py) as its reference file", () => {
    const tree = tempFiles({
      'recipe.yaml': yamlCorpus()['srt-slurm-recipes/vllm/deepseek-v4/8k1k/disagg-b200-1p1d-dep8-tp8-mtp.yaml']!,
    });
    const runners = join(REPO, 'test/fixtures/inferencex/tree/runners');
    mkdirSync(join(tree, 'runners/synthetic_injectors'), { recursive: true });
    mkdirSync(join(tree, 'benchmarks'));
    copyFileSync(join(runners, 'inject_synthetic_acceptance.py'), join(tree, 'runners/inject_synthetic_acceptance.py'));
    for (const f of readdirSync(join(runners, 'synthetic_injectors')).filter((f) => f.endsWith('.py')))
      copyFileSync(join(runners, 'synthetic_injectors', f), join(tree, 'runners/synthetic_injectors', f));
    copyFileSync(out, join(tree, 'benchmarks/speedbench-reference-al.yaml'));
    for (const c of cells) {
      const r = spawnSync(
        'python3',
        [join(tree, 'runners/inject_synthetic_acceptance.py'), join(tree, 'recipe.yaml'), 'dynamo-vllm'],
        {
          env: {
            ...process.env,
            SYNTHETIC_ACCEPTANCE: 'true',
            MODEL_PREFIX: KEY,
            NUM_SPEC_TOKENS: String(c.draftLength),
            THINKING_MODE: c.thinking,
          },
          encoding: 'utf8',
        },
      );
      expect([r.status, r.stdout]).toEqual([0, expect.stringContaining(`Auto-resolved AL=${c.value} `)]);
    }
  });

  it('keeps each engine’s log, named by cell as the collectors name them', () => {
    expect(readdirSync(join(dir, 'logs')).sort()).toEqual([
      'server_off_mtp1.log',
      'server_off_mtp3.log',
      'server_on_mtp1.log',
      'server_on_mtp3.log',
    ]);
    expect(readFileSync(join(dir, 'logs/server_on_mtp3.log'), 'utf8')).toContain('frontier sim:');
  });
});

/** A `frontier sim serve` process, already running. */
async function sim(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'sim', 'serve', '--port', '0', '--speed', '50', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { url: await announcedUrl(child), child };
}

const COMMON = ['al', 'collect', '--model', MODEL, '--data', DATA, '--output-len', '48'];

describe('frontier al collect --url, against servers already running', () => {
  let spec: { url: string; child: ChildProcess };
  let plain: { url: string; child: ChildProcess };
  beforeAll(async () => {
    [spec, plain] = await Promise.all([
      sim(['--seed', '3', '--natural-output-tokens', '100000', '--spec-draft-tokens', '2', '--spec-acceptance', '2.5']),
      sim([]),
    ]);
  }, 60_000);
  afterAll(() => {
    spec.child.kill('SIGTERM');
    plain.child.kill('SIGTERM');
  });

  it('measures the draft length the server runs', async () => {
    const out = join(tempFiles({}), 'al.yaml');
    const r = await runCliAsync([
      ...COMMON,
      '--url',
      spec.url,
      '--draft-lengths',
      '2',
      '--thinking',
      'off',
      '--out',
      out,
      '--format',
      'json',
    ]);
    expect(r.status).toBe(0);
    const [cell] = (JSON.parse(r.stdout) as { cells: JsonCell[] }).cells;
    expect(cell!.ci![0]).toBeLessThanOrEqual(2.5);
    expect(cell!.ci![1]).toBeGreaterThanOrEqual(2.5);
    expect(readFileSync(out, 'utf8')).toContain(`${KEY}:\n  thinking_off:\n    2: ${cell!.value!.toFixed(2)}  # `);
  });

  it('refuses a draft length the server does not run, saying how to reach one per draft length', async () => {
    const out = join(tempFiles({}), 'al.yaml');
    const r = await runCliAsync([...COMMON, '--url', spec.url, '--draft-lengths', '2,3', '--thinking', 'off', '--out', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `${spec.url}: the server drafts 2 (its per-position counter has positions 0..1), not the cell's 3 tokens`,
    );
    expect(r.stderr).toContain('put {draft} in --url');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a server without spec-decode counters, naming what to turn on', async () => {
    const r = await runCliAsync([
      ...COMMON,
      '--url',
      plain.url,
      '--draft-lengths',
      '2',
      '--thinking',
      'off',
      '--out',
      join(tempFiles({}), 'x.yaml'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`frontier: error: ${plain.url}/metrics has no vllm:spec_decode_* counters`);
    expect(r.stderr).toMatch(/hint: .*--speculative-config.*--spec-draft-tokens/);
  });
});

describe('what al collect sends, and when the counters arrive late', () => {
  const bodies: Record<string, unknown>[] = [];
  const counters = { drafts: 0, accepted: 0 };
  const accepted = [5, 9, 13];
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // A vLLM stand-in: every request is 10 drafts, its accepted tokens 5, 9, 13 in turn, exported 150 ms after
    // the response ends (as an engine that exports its stats asynchronously).
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/metrics') {
        res.end(
          [
            `vllm:spec_decode_num_drafts_total{engine="0"} ${counters.drafts}`,
            `vllm:spec_decode_num_draft_tokens_total{engine="0"} ${2 * counters.drafts}`,
            `vllm:spec_decode_num_accepted_tokens_total{engine="0"} ${counters.accepted}`,
            `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} 0`,
            `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="1"} 0`,
            '',
          ].join('\n'),
        );
        return;
      }
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(body) as Record<string, unknown>);
        const n = accepted[(bodies.length - 1) % accepted.length]!;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `data: {"id":"c${bodies.length}","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"length"}]}\n\ndata: [DONE]\n\n`,
        );
        setTimeout(() => {
          counters.drafts += 10;
          counters.accepted += n;
        }, 150);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  it('sends each mode its chat_template_kwargs and the sampling flags; AL counts every request once the counters settle', async () => {
    const r = await runCliAsync([
      ...COMMON,
      '--url',
      url,
      '--draft-lengths',
      '2',
      '--thinking',
      'on,off',
      '--thinking-off-kwargs',
      '{"thinking": false}',
      '--temperature',
      '0.6',
      '--top-p',
      '0.9',
      '--num-prompts',
      '3',
      '--out',
      join(tempFiles({}), 'al.yaml'),
      '--format',
      'json',
    ]);
    expect([r.status, r.stderr]).toEqual([0, expect.any(String)]);
    expect(bodies).toHaveLength(6);
    const prompts = readFileSync(join(DATA, 'qualitative.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { category: string; messages: { content: string }[] })
      .filter((row) => row.category === 'coding')
      .slice(0, 3)
      .map((row) => row.messages[0]!.content);
    expect(bodies.map((b) => (b.messages as { content: string }[])[0]!.content)).toEqual([...prompts, ...prompts]);
    expect(bodies.map((b) => b.chat_template_kwargs)).toEqual([
      ...Array(3).fill({ thinking: true, reasoning_effort: 'high' }),
      ...Array(3).fill({ thinking: false }),
    ]);
    for (const b of bodies) expect(b).toMatchObject({ model: MODEL, max_tokens: 48, temperature: 0.6, top_p: 0.9, stream: true });
    expect(bodies.some((b) => 'ignore_eos' in b)).toBe(false);
    // 1 + 27 / 30 in both cells: a cell that stopped reading before its last request's counts landed would say 1.70.
    const cells = (JSON.parse(r.stdout) as { cells: JsonCell[] }).cells;
    expect(cells.map((c) => [c.thinking, c.al, c.requests, c.drafts])).toEqual([
      ['thinking_on', 1.9, 3, 30],
      ['thinking_off', 1.9, 3, 30],
    ]);
    expect(estimateAl([{ accepted: 27, drafts: 30 }])!.rounded).toBe('1.90');
  });
});

describe('al collect refuses what it cannot measure', () => {
  it('a server that does not start: its cells are N/A in the file (as the collectors write them), exit 1', async () => {
    const dir = tempFiles({});
    const r = await runCliAsync([
      ...COMMON,
      '--serve',
      'echo "no GPU here for port {port}" >&2; exit 3',
      '--draft-lengths',
      '1',
      '--thinking',
      'off',
      '--out',
      join(dir, 'al.yaml'),
      '--log-dir',
      join(dir, 'logs'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('thinking_off draft 1: N/A (server not ready: the server exited (status 3);');
    expect(r.stderr).toContain('no GPU here');
    expect(r.stderr).toContain('1 of 1 cells are N/A');
    expect(readFileSync(join(dir, 'al.yaml'), 'utf8')).toContain(`${KEY}:\n  thinking_off:\n    1: N/A  # server not ready`);
    // The curve reads back with no value at that draft length.
    expect(runCli(['al', 'show', KEY, '--dir', dir]).stdout).toMatch(/\n\s+1\s+—\n/);
  });

  const refused = (args: string[], message: string, hint: string): void => {
    const r = runCli(['al', 'collect', '--model', MODEL, ...args]);
    expect([r.status, r.stderr]).toEqual([1, expect.stringContaining(`frontier: error: ${message}`)]);
    expect(r.stderr).toContain(`hint: ${hint}`);
  };

  it('bad input: errors naming the flag or file and the fix, before any server is reached', () => {
    const missing = join(tempFiles({}), 'speed_bench_data');
    refused(['--data', DATA], 'al collect needs a server: --url of a running one, or --serve', 'e.g. --serve');
    refused(
      ['--data', DATA, '--serve', 'vllm serve {model}'],
      '--serve does not name {port}, the port --url http://127.0.0.1:{port} reaches',
      "put the engine's port flag in the command",
    );
    refused(
      ['--url', 'http://127.0.0.1:9', '--data', DATA, '--category', 'cooking'],
      '--category cooking: not a SPEED-Bench category',
      'name one of coding,',
    );
    refused(
      ['--url', 'http://127.0.0.1:9', '--data', missing],
      `--data ${missing}: no such file or folder`,
      "prepare the data with NeMo-Skills' speed-bench prepare.py",
    );
    refused(
      ['--url', 'http://127.0.0.1:9', '--data', DATA, '--draft-lengths', '8..1'],
      '--draft-lengths "8..1": the range 8..1 runs backwards',
      'write a range',
    );
    refused(
      ['--url', 'http://127.0.0.1:9', '--data', DATA, '--thinking-kwargs', '{thinking}'],
      '--thinking-kwargs {thinking}: not JSON',
      'write the chat_template_kwargs object',
    );
  });

  it('a server that is not there (--url): an error naming it', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = runCli([
      ...COMMON,
      '--url',
      url,
      '--draft-lengths',
      '1',
      '--thinking',
      'off',
      '--out',
      join(tempFiles({}), 'x.yaml'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`frontier: error: cannot read ${url}/metrics (ECONNREFUSED)`);
    expect(r.stderr).toContain('hint: is the server up at --url?');
  });
});
