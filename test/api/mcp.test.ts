// `frontier mcp` spoken to as an MCP client would: the built CLI on a seeded SQLite store, over its
// stdin/stdout, every tool's answer checked against what the HTTP API answers for the same question.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { combineRepeats } from '../../src/results/index.js';
import { history, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { CLI, testTempDir } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson } from '../store/helpers.js';

type Row = Record<string, unknown>;
type Message = { id?: unknown; result?: Row; error?: { code: number; message: string } };

/** The fixture's points measured 3 times each (launch scope), throughput scaled by `factor`. */
function repeatedRun(factor: number): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) =>
    (rows as Row[]).map((r) => {
      const repeat = (f: number) => JSON.stringify({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * factor * f });
      return JSON.parse(combineRepeats([repeat(0.99), repeat(1), repeat(1.01)], 'launch')) as unknown;
    }),
  );
  return dir;
}

/** A client of one `frontier mcp` process: each request answered by id, stray lines kept. */
function client(db: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI, 'mcp', '--db', db], { stdio: 'pipe' });
  const waiting = new Map<unknown, (m: Message) => void>();
  const unasked: Message[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as Message; // a line that is not JSON fails the test here
    const resolve = waiting.get(m.id);
    if (resolve) {
      waiting.delete(m.id);
      resolve(m);
    } else unasked.push(m);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let next = 0;
  const send = (line: string) => child.stdin.write(`${line}\n`);
  const request = (method: string, params?: unknown): Promise<Message> => {
    const id = ++next;
    const answered = new Promise<Message>((resolve) => waiting.set(id, resolve));
    send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return answered;
  };
  const call = async (name: string, args: Row = {}) => {
    const m = await request('tools/call', { name, arguments: args });
    const result = m.result as { content: { type: string; text: string }[]; structuredContent?: Row; isError?: boolean };
    return result;
  };
  /** A tool's answer: its JSON text, checked to equal its structured content. */
  const answer = async (name: string, args: Row = {}) => {
    const result = await call(name, args);
    expect(result.isError, result.content[0]!.text).toBeUndefined();
    const parsed = JSON.parse(result.content[0]!.text) as Row;
    expect(result.structuredContent).toEqual(parsed);
    return parsed;
  };
  return { child, send, request, call, answer, unasked, exited, stderr: () => stderr };
}

describe('frontier mcp', () => {
  let store: Store;
  let app: FastifyInstance;
  let mcp: ReturnType<typeof client>;
  const api = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    expect(r.statusCode, r.body).toBe(200);
    return r.json() as unknown;
  };

  beforeAll(async () => {
    const db = join(testTempDir(), 'frontier.db');
    store = await openStore(db);
    await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'old', official: true, date: '2026-08-01' }));
    await ingestBatch(store, readArtifacts(repeatedRun(1.05), { runId: 'rep', official: true, date: '2026-09-01' }));
    await ingestBatch(store, readArtifacts(repeatedRun(0.8), { runId: 'pr-1', date: '2026-09-02' }));
    app = await buildApi({ store });
    mcp = client(db);
  });
  afterAll(async () => {
    mcp.child.kill();
    await app.close();
    await store.close();
  });

  it('initializes with the client’s protocol version (or its own newest), lists its tools', async () => {
    const init = await mcp.request('initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    expect(init.result).toMatchObject({
      protocolVersion: '2025-03-26',
      capabilities: { tools: {} },
      serverInfo: { name: 'frontier' },
    });
    expect((await mcp.request('initialize', { protocolVersion: '1999-01-01' })).result).toMatchObject({
      protocolVersion: '2025-06-18',
    });
    mcp.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect((await mcp.request('ping')).result).toEqual({});
    const { tools } = (await mcp.request('tools/list')).result as {
      tools: { name: string; description: string; inputSchema: Row }[];
    };
    expect(tools.map((t) => t.name)).toEqual([
      'get_overview',
      'list_runs',
      'get_run',
      'get_frontier',
      'get_trend',
      'compare_run',
    ]);
    for (const t of tools) expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(tools.find((t) => t.name === 'get_frontier')!.description).toMatch(/null when n = 1/);
    // The notification got no answer: every line so far answered a request.
    expect(mcp.unasked).toEqual([]);
  });

  it('get_overview: what the store holds, its rows the API’s availability', async () => {
    const o = await mcp.answer('get_overview');
    const rows = (await api('/api/v1/availability')) as Row[];
    expect(o.availability).toEqual(rows);
    expect(o.hardware).toEqual([...new Set(rows.map((r) => r.hardware))].sort());
    const models = o.models as Row[];
    expect(models.map((m) => m.model).sort()).toEqual([...new Set(rows.map((r) => r.model))].sort());
    for (const m of models) {
      expect(rows.some((r) => r.model === m.model && r.model_prefix === m.model_prefix)).toBe(true);
      expect(m.last_date).toBe('2026-09-01');
    }
    expect(o.sequences).toContainEqual({ isl: 8192, osl: 1024 });
    expect(o.last_date).toBe('2026-09-01');
  });

  it('list_runs and get_run: the API’s runs and run detail', async () => {
    const { runs } = await mcp.answer('list_runs');
    expect(runs).toEqual(await api('/api/v1/runs?limit=20'));
    expect((runs as Row[]).map((r) => r.run_id)).toEqual(['pr-1', 'rep', 'old']);
    expect((await mcp.answer('list_runs', { source: 'official', limit: 1 })).runs).toEqual(
      await api('/api/v1/runs?source=official&limit=1'),
    );
    expect(await mcp.answer('get_run', { id: 'rep' })).toEqual(await api('/api/v1/runs/rep'));
    const missing = await mcp.call('get_run', { id: 'nope' });
    expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/no run nope/) }] });
  });

  it('get_frontier: the API’s Pareto frontier, each point with run id, image, date, n and interval', async () => {
    const f = (await mcp.answer('get_frontier', { model: 'dsr1' })) as { series: Row[] };
    const pareto = (await api('/api/v1/pareto?model=dsr1')) as {
      series: {
        key: string;
        points: { config_id: number; conc: number; run_id: string; x: number; y: number }[];
        frontier: number[];
      }[];
    };
    expect(f.series.map((s) => s.key)).toEqual(pareto.series.map((s) => s.key));
    expect(f.series.flatMap((s) => s.frontier as Row[]).length).toBeGreaterThan(1);
    for (const [i, s] of f.series.entries()) {
      const expected = pareto.series[i]!.frontier.map((j) => pareto.series[i]!.points[j]!);
      const frontier = s.frontier as Row[];
      expect(frontier.map((p) => [p.config_id, p.conc, p.run_id, p.x, p.y])).toEqual(
        expected.map((p) => [p.config_id, p.conc, p.run_id, p.x, p.y]),
      );
      for (const p of frontier) {
        expect(p).toMatchObject({ run_id: 'rep', date: '2026-09-01', n: 3, image: expect.stringMatching(/\S/) });
        const [lo, hi] = p.y_ci95 as [number, number];
        expect(lo).toBeLessThan(p.y as number);
        expect(hi).toBeGreaterThan(p.y as number);
      }
    }
    // As of the first run: single measurements, no interval.
    const old = (await mcp.answer('get_frontier', { model: 'dsr1', date: '2026-08-01' })) as { series: { frontier: Row[] }[] };
    const points = old.series.flatMap((s) => s.frontier);
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect(p).toMatchObject({ run_id: 'old', n: 1, x_ci95: null, y_ci95: null });
  });

  it('get_trend: a config’s history on one metric, as the store’s history', async () => {
    const rows = await history(store, { model: 'dsr1', source: 'official', metrics: ['tput_per_gpu'] });
    const config = rows[0]!.config_id;
    const conc = rows[0]!.conc;
    const t = (await mcp.answer('get_trend', { config, conc })) as { metric: string; points: Row[] };
    const mine = rows.filter((r) => r.config_id === config && r.conc === conc);
    expect(t.metric).toBe('tput_per_gpu');
    expect(t.points.map((p) => [p.run_id, p.date, p.image, p.value, p.n])).toEqual(
      mine.map((r) => [r.run_id, r.date, r.image, r.metrics.tput_per_gpu, r.n]),
    );
    expect(t.points.map((p) => p.run_id)).toEqual(['old', 'rep']);
    expect(t.points[0]!.ci95).toBeNull();
    expect(t.points[1]!.ci95).toHaveLength(2);
    expect(await mcp.call('get_trend', {})).toMatchObject({ isError: true });
  });

  it('compare_run: the API’s comparison, verdicts with intervals', async () => {
    const c = await mcp.answer('compare_run', { run: 'pr-1' });
    expect(c).toEqual(await api('/api/v1/compare?run=pr-1'));
    expect(JSON.stringify(c)).toMatch(/regression/);
    expect(await mcp.answer('compare_run', { run: 'pr-1', min_effect: 50 })).toEqual(
      await api('/api/v1/compare?run=pr-1&min-effect=50'),
    );
  });

  it('refuses as JSON-RPC: unknown method, bad params, malformed JSON, and keeps serving', async () => {
    expect((await mcp.request('resources/list')).error?.code).toBe(-32601);
    expect((await mcp.request('tools/call', { name: 'no_such_tool' })).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/unknown tool no_such_tool/),
    });
    expect((await mcp.request('tools/call', [1])).error?.code).toBe(-32602);
    const bad = await mcp.call('get_frontier', { model: 'dsr1', isl: 'many', colour: 'red' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/isl must be an integer.*unknown argument colour/);
    expect((await mcp.call('get_frontier', {})).content[0]!.text).toMatch(/missing argument model/);
    expect((await mcp.call('get_frontier', { model: 'dsr1', y: 'no_metric' })).isError).toBe(true);

    const before = mcp.unasked.length;
    mcp.send('{"jsonrpc": "2.0", "id": 99, "method": ');
    mcp.send('{"id": 98, "method": "ping"}');
    expect((await mcp.request('ping')).result).toEqual({});
    expect(mcp.unasked.slice(before)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/parse error/) } },
      { jsonrpc: '2.0', id: 98, error: { code: -32600, message: expect.stringMatching(/invalid request/) } },
    ]);
  });

  it('ends cleanly when stdin closes, having written nothing but protocol to stdout', async () => {
    mcp.child.stdin.end();
    expect(await mcp.exited).toBe(0);
    expect(mcp.stderr()).toMatch(/frontier mcp: serving the sqlite store on stdio/);
    expect(mcp.stderr()).not.toMatch(/failed/);
  });
});
