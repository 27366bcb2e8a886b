import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IngestConflict,
  IngestError,
  TABLES,
  benchmarks,
  compareRun,
  comparisonMarkdown,
  createToken,
  evaluations,
  history,
  ingestBatch,
  listTokens,
  readArtifacts,
  revokeToken,
  run,
  runLog,
  runs,
  verifyToken,
} from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { ARTIFACTS, DIALECTS, copyDir, editJson, frontierRunDir, historyRuns, storeFactory } from './helpers.js';

type Row = Record<string, unknown>;

async function counts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) {
    const r = await store.db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

const ingest = (store: Store, dir: string, o: Parameters<typeof readArtifacts>[1] = {}) =>
  ingestBatch(store, readArtifacts(dir, o));

describe.each(DIALECTS)('the store on %s', (dialect) => {
  const fresh = storeFactory(dialect);

  it('ingests a frontier run directory: every point with its metrics, the eval with its samples, the run stats', async () => {
    const store = await fresh();
    const dir = await frontierRunDir();
    const s = await ingest(store, dir, { official: true, thresholdOf: () => 0.9 });
    expect(s).toMatchObject({
      attempt: 1,
      official: true,
      configs: { total: 1, new: 1 },
      benchmarks: { total: 2, new: 2 },
      evals: { total: 1, new: 1 },
    });

    const agg = JSON.parse(readFileSync(join(dir, 'results_bmk/agg_bmk.json'), 'utf8')) as Row[];
    const rows = await benchmarks(store, { model: 'llama3.1-8b' });
    expect(rows.map((r) => r.conc)).toEqual([1, 2]);
    for (const r of rows) {
      const source = agg.find((a) => a.conc === r.conc)!;
      expect(r).toMatchObject({
        hardware: 'h100',
        framework: 'sim',
        precision: 'fp8',
        decode_tp: 1,
        disagg: false,
        image: 'frontier/sim:local',
        isl: 256,
        osl: 32,
      });
      // Every metric of the aggregate, exactly.
      for (const [k, v] of Object.entries(source))
        if (
          typeof v === 'number' &&
          !['conc', 'isl', 'osl', 'tp', 'ep', 'pp', 'dcp_size', 'pcp_size'].includes(k) &&
          !k.startsWith('power')
        )
          expect(r.metrics[k], k).toBe(v);
    }

    const [e] = await evaluations(store, { model: 'llama3.1-8b' });
    const aggEval = (JSON.parse(readFileSync(join(dir, 'agg_eval_all.json'), 'utf8')) as Row[])[0]!;
    expect(e).toMatchObject({ task: 'gsm8k', conc: 2, score: aggEval.score, threshold: 0.9, config_id: rows[0]!.config_id });
    expect(e!.passed).toBe((aggEval.score as number) >= 0.9);
    // The samples file was read: 60 questions, the strict count matching the score.
    expect(e!.samples.docs).toBe(60);
    expect(e!.samples.strict_correct! / 60).toBeCloseTo(aggEval.em_strict as number, 10);

    const [r] = await runs(store);
    expect(r).toMatchObject({
      official: true,
      origin: 'frontier',
      commit_sha: 'a'.repeat(40),
      points: 2,
      evals: 1,
      success_rate: 1,
      status: 'completed',
    });
    const detail = await run(store, r!.run_id);
    // The engines' logs are kept with the run.
    expect(detail!.logs.length).toBeGreaterThan(0);
    for (const l of detail!.logs) {
      expect(l.name).toMatch(/^server_logs_[^/]+\/[^/]+$/);
      expect(await runLog(store, r!.run_id, l.name)).toBe(readFileSync(join(dir, l.name), 'utf8'));
    }
    // Counted per cluster, as frontier run writes run_stats.json.
    expect(detail?.run_stats).toEqual([{ hardware: 'test-sim', n_success: 2, total: 2 }]);
  });

  it('ingests an InferenceX artifact set: hardware and engine names normalised, evals matched to their configs, changelog and run stats', async () => {
    const store = await fresh();
    expect(() => readArtifacts(ARTIFACTS)).toThrow(/does not name its run: pass --run-id/);
    const s = await ingest(store, ARTIFACTS, { runId: '22806827144', official: true, date: '2026-08-21' });
    expect(s).toMatchObject({ benchmarks: { total: 6, new: 6 }, evals: { total: 3 }, run_stats: 5, changelog: 1 });

    const rows = await benchmarks(store, {});
    expect(rows.map((r) => `${r.hardware}/${r.framework}`).sort()).toEqual([
      'b200/vllm',
      'b300/sglang',
      'gb200/dynamo-trt',
      'gb200/dynamo-vllm',
      'h200/sglang',
      'mi355x/mori-sglang', // mi355x-disagg / sglang-disagg, as the reference's ingest maps them
    ]);
    const trt = rows.find((r) => r.framework === 'dynamo-trt')!;
    expect(trt).toMatchObject({
      is_multinode: true,
      disagg: true,
      prefill_tp: 4,
      decode_tp: 8,
      prefill_num_workers: 1,
      decode_num_workers: 4,
      num_prefill_gpu: 4,
      num_decode_gpu: 32,
      date: '2026-08-21',
    });
    expect(trt.runner).toBe('gb200');

    // The multinode evals ran on the dynamo-trt config of this run; the B300 eval's topology (EP1) matches no point, so it has a config of its own.
    const evals = await evaluations(store, {});
    expect(evals).toHaveLength(3);
    expect(evals.filter((e) => e.config_id === trt.config_id).map((e) => e.conc)).toEqual([24, 48]);
    const b300 = evals.find((e) => e.hardware === 'b300')!;
    expect(b300).toMatchObject({ image: '', score_name: 'em_strict', n_eff: 1319 });

    const detail = await run(store, '22806827144');
    expect(detail?.run_stats.find((x) => x.hardware === 'gb200')).toEqual({ hardware: 'gb200', n_success: 2, total: 3 });
    expect(detail?.success_rate).toBeCloseTo(6 / 7, 10);
    expect(detail?.changelog[0]?.config_keys).toEqual([
      'minimaxm3-fp4-b300-dynamo-vllm-8k1k-tp1',
      'minimaxm3-fp4-b300-dynamo-vllm-8k1k-legacy-max-tput',
    ]);
  });

  it('re-ingesting a run changes nothing; a later attempt replaces it; an earlier one is refused', async () => {
    const store = await fresh();
    await ingest(store, ARTIFACTS, { runId: '7', official: true });
    const before = await counts(store);
    const ids = (await benchmarks(store, { run: '7' })).map((r) => [r.config_id, r.metrics.tput_per_gpu]);
    const again = await ingest(store, ARTIFACTS, { runId: '7', official: true });
    expect(again).toMatchObject({
      run_changes: [],
      benchmarks: { new: 0, changed: 0, removed: 0 },
      evals: { new: 0, changed: 0, removed: 0 },
      configs: { new: 0 },
    });
    expect(await counts(store)).toEqual(before);
    expect((await benchmarks(store, { run: '7' })).map((r) => [r.config_id, r.metrics.tput_per_gpu])).toEqual(ids);

    // Attempt 2: one point re-measured, one gone.
    const retry = copyDir(ARTIFACTS);
    editJson(join(retry, 'results_bmk/agg_bmk.json'), (rows) => {
      const list = rows as Row[];
      list[0]!.tput_per_gpu = 1234.5;
      return list.slice(0, -1);
    });
    const second = await ingest(store, retry, { runId: '7', attempt: 2, official: true });
    expect(second.replaced_attempt).toBe(1);
    const now = await benchmarks(store, { run: '7' });
    expect(now).toHaveLength(5);
    expect(now.every((r) => r.attempt === 2)).toBe(true);
    expect(now.find((r) => r.hardware === 'h200')!.metrics.tput_per_gpu).toBe(1234.5);
    expect((await counts(store)).runs).toBe(1);

    const stale = counts(store);
    await expect(ingest(store, ARTIFACTS, { runId: '7', attempt: 1 })).rejects.toThrow(IngestConflict);
    expect(await counts(store)).toEqual(await stale);
  });

  it('a re-ingest that makes a run official on another date says so, and the points move to the official record', async () => {
    const store = await fresh();
    await ingest(store, ARTIFACTS, { runId: '8', date: '2026-08-21', labels: ['pr'] });
    expect(await benchmarks(store, { source: 'official' })).toEqual([]);
    const s = await ingest(store, ARTIFACTS, { runId: '8', official: true, date: '2026-09-01', labels: ['pr', 'nightly'] });
    expect(s.run_changes).toEqual([
      { field: 'official', from: false, to: true },
      { field: 'date', from: '2026-08-21', to: '2026-09-01' },
      { field: 'labels', from: ['pr'], to: ['pr', 'nightly'] },
    ]);
    expect(s.benchmarks).toMatchObject({ new: 0, changed: 6 });
    const official = await benchmarks(store, { source: 'official' });
    expect(official.map((r) => [r.run_id, r.official, r.date])).toEqual(Array(6).fill(['8', true, '2026-09-01']));
    expect(await benchmarks(store, { source: 'unofficial' })).toEqual([]);
  });

  it('a bad row: every problem is reported with file, index and field, and nothing is written', async () => {
    const store = await fresh();
    const bad = copyDir(ARTIFACTS);
    editJson(join(bad, 'results_bmk/agg_bmk.json'), (rows) => {
      const list = rows as Row[];
      list[1]!.tput_per_gpu = 'fast';
      delete list[3]!.conc;
      list[4]!.is_multinode = 'maybe';
      return list;
    });
    editJson(join(bad, 'eval_results_all/agg_eval_all.json'), (rows) => {
      (rows as Row[])[2]!.score = -1;
      return rows;
    });
    let error: IngestError | undefined;
    try {
      readArtifacts(bad, { runId: '9' });
    } catch (e) {
      error = e as IngestError;
    }
    expect(error).toBeInstanceOf(IngestError);
    expect(error!.message).toContain('results_bmk/agg_bmk.json[1].tput_per_gpu: expected a finite number ≥ 0, got "fast"');
    expect(error!.message).toContain('results_bmk/agg_bmk.json[3].conc: expected an integer ≥ 1, got nothing');
    expect(error!.message).toContain('results_bmk/agg_bmk.json[4].is_multinode: expected true or false, got "maybe"');
    expect(error!.message).toContain('eval_results_all/agg_eval_all.json[2].score: expected a finite number ≥ 0, got -1');
    expect(error!.message).toContain('nothing was written');
    expect(Object.values(await counts(store)).every((n) => n === 0)).toBe(true);

    // A failure inside the transaction (two stats for one hardware break a unique key after the results are in) rolls it all back.
    const batch = readArtifacts(ARTIFACTS, { runId: '10' });
    batch.runStats.push({ ...batch.runStats[0]! });
    await expect(ingestBatch(store, batch)).rejects.toThrow();
    expect(Object.values(await counts(store)).every((n) => n === 0)).toBe(true);
  });

  it('keeps the end of each engine log, without NUL bytes', async () => {
    const store = await fresh();
    const dir = copyDir(ARTIFACTS);
    mkdirSync(join(dir, 'server_logs_big'));
    const big = Buffer.concat([Buffer.from('start\n'), Buffer.alloc(300 * 1024, 'x'), Buffer.from('\0the end\n')]);
    writeFileSync(join(dir, 'server_logs_big', 'server.log'), big);
    const s = await ingest(store, dir, { runId: 'logs' });
    expect(s.logs).toBe(1);
    const [l] = (await run(store, 'logs'))!.logs;
    expect(l).toEqual({ name: 'server_logs_big/server.log', size: big.length, truncated: true });
    const text = (await runLog(store, 'logs', l!.name))!;
    expect(text.endsWith('xthe end\n')).toBe(true);
    expect(text.length).toBe(256 * 1024 - 1);
    expect(await runLog(store, 'logs', 'server_logs_big/other.log')).toBeUndefined();
  });

  it('a dry run counts exactly and writes nothing', async () => {
    const store = await fresh();
    const s = await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: '11' }), { dryRun: true });
    expect(s).toMatchObject({ dry_run: true, benchmarks: { total: 6, new: 6 }, configs: { new: 7 } });
    expect(Object.values(await counts(store)).every((n) => n === 0)).toBe(true);
  });

  it('reuse: the results are the source run’s, the changelog is the merge run’s', async () => {
    const store = await fresh();
    await ingest(store, ARTIFACTS, { runId: 'main-200', sourceRun: 'pr-100', official: true });
    const all = await runs(store);
    expect(all.map((r) => [r.run_id, r.source_run_id, r.merge_run_id, r.points]).sort()).toEqual([
      ['main-200', 'pr-100', '', 0],
      ['pr-100', '', 'main-200', 6],
    ]);
    expect((await run(store, 'main-200'))?.changelog).toHaveLength(1);
    expect((await run(store, 'pr-100'))?.changelog).toHaveLength(0);
    expect((await benchmarks(store, {})).every((r) => r.run_id === 'pr-100')).toBe(true);
  });

  it('latest official points, as of a date, by run, and a config over time', async () => {
    const store = await fresh();
    await ingest(store, ARTIFACTS, { runId: 'old', official: true, date: '2026-08-01' });
    const newer = copyDir(ARTIFACTS);
    editJson(join(newer, 'results_bmk/agg_bmk.json'), (rows) =>
      (rows as Row[]).map((r) => ({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * 2 })),
    );
    await ingest(store, newer, { runId: 'new', official: true, date: '2026-09-01' });
    await ingest(store, newer, { runId: 'pr', official: false, date: '2026-09-02' });

    const latest = await benchmarks(store, { model: 'dsr1' });
    expect(latest.map((r) => r.run_id)).toEqual(['new', 'new', 'new']);
    expect((await benchmarks(store, { model: 'dsr1', date: '2026-08-15' })).map((r) => r.run_id)).toEqual(['old', 'old', 'old']);
    expect(await benchmarks(store, { model: 'dsr1', date: '2026-08-15', exact: true })).toEqual([]);
    expect((await benchmarks(store, { model: 'dsr1', source: 'unofficial' })).map((r) => r.run_id)).toEqual(['pr', 'pr', 'pr']);
    expect((await benchmarks(store, { run: 'pr' })).length).toBe(6);
    expect(await benchmarks(store, { model: 'deepseek-ai/DeepSeek-R1-0528', isl: 8192, hardware: 'H200' })).toHaveLength(1);

    const h200 = latest.find((r) => r.hardware === 'h200')!;
    const over = await history(store, { config: h200.config_id });
    expect(over.map((r) => [r.date, r.run_id])).toEqual([
      ['2026-08-01', 'old'],
      ['2026-09-01', 'new'],
    ]);
    expect(over[1]!.metrics.tput_per_gpu).toBeCloseTo(2 * over[0]!.metrics.tput_per_gpu!, 9);
  });

  it('the kept latest points always equal the latest computed from every point, through replacements, removals and flips', async () => {
    const store = await fresh();
    const FAR = '9999-12-31'; // with a date the latest is computed from all points, not from latest_points
    const check = async (step: string) => {
      for (const source of ['official', 'unofficial'] as const) {
        const kept = await benchmarks(store, { source });
        const computed = await benchmarks(store, { source, date: FAR });
        expect(
          kept.map((r) => [r.run_id, r.config_id, r.conc, r.metrics.tput_per_gpu]),
          `${step} (${source})`,
        ).toEqual(computed.map((r) => [r.run_id, r.config_id, r.conc, r.metrics.tput_per_gpu]));
      }
    };
    const fewer = copyDir(ARTIFACTS);
    editJson(join(fewer, 'results_bmk/agg_bmk.json'), (rows) => (rows as Row[]).slice(0, 3));
    await ingest(store, ARTIFACTS, { runId: 'a', official: true, date: '2026-01-01' });
    await ingest(store, ARTIFACTS, { runId: 'b', official: true, date: '2026-02-01' });
    await check('two runs');
    await ingest(store, fewer, { runId: 'b', official: true, date: '2026-02-01' }); // b no longer has 3 of its points
    await check('points removed');
    await ingest(store, ARTIFACTS, { runId: 'b', attempt: 2, official: true, date: '2025-12-01' }); // replaced, now older than a
    await check('attempt replaced with an older date');
    await ingest(store, ARTIFACTS, { runId: 'a', official: false, date: '2026-01-01' }); // a is no longer official
    await check('official flag flipped');
    await ingest(store, fewer, { runId: 'c', official: false, date: '2026-03-01' });
    await check('an unofficial run');
    expect((await benchmarks(store, {})).every((r) => r.run_id === 'b')).toBe(true);
  });

  it('filters are parameters, never SQL: metacharacters match nothing and break nothing', async () => {
    const store = await fresh();
    await ingest(store, ARTIFACTS, { runId: '12', official: true });
    for (const model of [
      "dsr1' OR '1'='1",
      'dsr1"; DROP TABLE runs; --',
      '%',
      '_sr1',
      'dsr1\\',
      "' UNION SELECT * FROM tokens --",
    ]) {
      expect(await benchmarks(store, { model }), model).toEqual([]);
      expect(await evaluations(store, { model, task: model })).toEqual([]);
    }
    expect(await run(store, "12' OR '1'='1")).toBeUndefined();
    expect((await benchmarks(store, {})).length).toBe(6);
  });

  it('compares a run with the latest official points: without any spread to judge by, every change is inconclusive', async () => {
    const store = await fresh();
    await ingest(store, ARTIFACTS, { runId: 'base', official: true });
    const pr = copyDir(ARTIFACTS);
    editJson(join(pr, 'results_bmk/agg_bmk.json'), (rows) => {
      const list = rows as Row[];
      list[0]!.tput_per_gpu = (list[0]!.tput_per_gpu as number) * 0.9; // −10%, but one sample a side
      list[2]!.conc = 4096; // a point the official run never measured
      return list;
    });
    await ingest(store, pr, { runId: 'pr', official: false });
    const c = (await compareRun(store, 'pr'))!;
    expect(c).toMatchObject({ regressions: 0, unmatched: 1 });
    expect(c.verdicts.inconclusive).toBe(c.points.length - 1);
    const h200 = c.points.find((p) => p.config.hardware === 'h200')!;
    expect(h200.verdict).toBe('inconclusive');
    expect(h200.metrics.tput_per_gpu).toMatchObject({
      n_run: 1,
      n_baseline: 1,
      test: null,
      ci95_pct: null,
      baseline: 2048.3374588120364,
    });
    expect(h200.metrics.tput_per_gpu!.delta_pct).toBeCloseTo(-10, 9);
    expect(h200.metrics.tput_per_gpu!.note).toMatch(/no history of its spread.*--repeats 3/);
    const md = comparisonMarkdown(c);
    expect(md).toContain('**0 regressions**');
    expect(md).toMatch(/\| \? inconclusive \| dsr1 h200 sglang fp8 TP8 \| 8192\/1024 \| 64 \| 1\/1 \| 1,843\.5 −10\.0% \?/);
    expect(await compareRun(store, 'nope')).toBeUndefined();
  });

  it('with official history to judge the spread by, a 10% slowdown is a regression and a 1.5% drift is not', async () => {
    const store = await fresh();
    // Earlier official runs of the same points, ±1% apart: the run-to-run spread history shows.
    for (const [i, earlier] of historyRuns(ARTIFACTS).entries())
      await ingest(store, earlier, { runId: `h${i}`, official: true, date: `2026-01-0${i + 1}` });
    await ingest(store, ARTIFACTS, { runId: 'base', official: true, date: '2026-02-01' });
    const pr = copyDir(ARTIFACTS);
    editJson(join(pr, 'results_bmk/agg_bmk.json'), (rows) => {
      const list = rows as Row[];
      list[0]!.tput_per_gpu = (list[0]!.tput_per_gpu as number) * 0.9;
      list[1]!.median_ttft = (list[1]!.median_ttft as number) * 1.015;
      return list;
    });
    await ingest(store, pr, { runId: 'pr', official: false, date: '2026-02-02' });
    const c = (await compareRun(store, 'pr'))!;
    const h200 = c.points.find((p) => p.config.hardware === 'h200')!;
    expect(h200.verdict).toBe('regression');
    const t = h200.metrics.tput_per_gpu!;
    expect(t).toMatchObject({ verdict: 'regression', test: 'moderated-t' });
    expect(t.ci95_pct![0]).toBeLessThan(-10);
    expect(t.ci95_pct![1]).toBeGreaterThan(-10);
    expect(t.ci95_pct![1]).toBeLessThan(-2);
    expect(t.q!).toBeLessThanOrEqual(0.05);
    const b200 = c.points.find((p) => p.config.hardware === 'b200')!;
    expect(b200.metrics.median_ttft!.delta_pct).toBeCloseTo(1.5, 6);
    expect(b200.metrics.median_ttft!.verdict).not.toBe('regression');
    expect(b200.verdict).not.toBe('regression');
    expect(c.regressions).toBe(1);
    expect(c.method).toMatchObject({ alpha: 0.05, min_effect_pct: 2, fdr: 'benjamini-hochberg' });
    const md = comparisonMarkdown(c);
    expect(md).toContain('**1 regression**');
    expect(md).toMatch(
      /\| ▼ regression \| dsr1 h200 sglang fp8 TP8 \| 8192\/1024 \| 64 \| 1\/1 \| 1,843\.5 −10\.0% \[−1\d\.\d, −\d\.\d\] ▼/,
    );
    // A higher minimum effect than the change: nothing is a regression.
    expect((await compareRun(store, 'pr', { alpha: 0.05, minEffectPct: 12 }))!.regressions).toBe(0);
  });

  it('tokens are stored as hashes; verify, list and revoke', async () => {
    const store = await fresh();
    const token = await createToken(store, 'ci');
    expect(token).toMatch(/^ftk_[\w-]{43}$/);
    await expect(createToken(store, 'ci')).rejects.toThrow(/exists/);
    const stored = await store.db.selectFrom('tokens').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token.slice(4));
    expect(await verifyToken(store, token)).toBe('ci');
    expect(await verifyToken(store, `${token}x`)).toBeUndefined();
    expect((await listTokens(store))[0]!.last_used_at).not.toBeNull();
    expect(await revokeToken(store, 'ci')).toBe(true);
    expect(await verifyToken(store, token)).toBeUndefined();
  });
});

describe('ingest input checks', () => {
  it('refuses what is not a result directory, naming what it expected', () => {
    const empty = copyDir(ARTIFACTS);
    for (const d of ['results_bmk', 'eval_results_all', 'run-stats', 'changelog-metadata'])
      rmSync(join(empty, d), { recursive: true });
    expect(() => readArtifacts(empty, { runId: '1' })).toThrow(/no results here: expected results_bmk\/agg_bmk\.json/);
    expect(() => readArtifacts(join(empty, 'missing'))).toThrow(/not a directory/);
    // A frontier run whose points are all deferred (they come later) is a run, with no points yet; an empty one is not.
    const manifest = (points: unknown[]) =>
      JSON.stringify({ frontier: '0.1.0', started: '2026-12-07T03:00:00Z', status: 'partial', points });
    writeFileSync(join(empty, 'run.json'), manifest([{ status: 'deferred', reason: 'llama-server is building' }]));
    expect(readArtifacts(empty).run).toMatchObject({
      status: 'partial',
      deferred_points: 1,
      deferred_reason: 'llama-server is building',
    });
    writeFileSync(join(empty, 'run.json'), manifest([]));
    expect(() => readArtifacts(empty)).toThrow(/no results here/);
    expect(() => readArtifacts(ARTIFACTS, { runId: '1', date: '21/08/2026' })).toThrow(
      /--date: "21\/08\/2026" is not a date: use YYYY-MM-DD/,
    );
  });

  it('refuses a symbolic link or a FIFO anywhere in the directory, naming it and the fix, before reading anything', () => {
    const dir = copyDir(ARTIFACTS);
    mkdirSync(join(dir, 'server_logs_h200'));
    symlinkSync('/etc/passwd', join(dir, 'server_logs_h200', 'server.log'));
    symlinkSync('../run-stats', join(dir, 'results_bmk', 'stats'));
    let error: IngestError | undefined;
    try {
      readArtifacts(dir, { runId: '1' });
    } catch (e) {
      error = e as IngestError;
    }
    expect(error).toBeInstanceOf(IngestError);
    expect(error!.problems.map((p) => p.file).sort()).toEqual(['results_bmk/stats', 'server_logs_h200/server.log']);
    expect(error!.message).toContain(
      'server_logs_h200/server.log: a symbolic link (to /etc/passwd): ingest reads only plain files and folders; replace the link by the file it points to',
    );
    expect(error!.message).toContain('nothing was written');

    // A FIFO would block the read for ever.
    const fifo = copyDir(ARTIFACTS);
    rmSync(join(fifo, 'run-stats/run_stats.json'));
    execFileSync('mkfifo', [join(fifo, 'run-stats/run_stats.json')]);
    expect(() => readArtifacts(fifo, { runId: '1' })).toThrow(
      'run-stats/run_stats.json: a FIFO: ingest reads only plain files and folders',
    );
  });

  it('refuses JSON nested deeper than the limit, naming the file and the limit, instead of overflowing the stack', async () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const dir = copyDir(ARTIFACTS);
    writeFileSync(join(dir, 'results_bmk/agg_bmk.json'), deep(200_000));
    // Python's JSON (NaN) goes through the other parser.
    writeFileSync(join(dir, 'run-stats/run_stats.json'), `{"h200": {"n_success": NaN, "x": ${deep(200_000)}}}`);
    let error: IngestError | undefined;
    try {
      readArtifacts(dir, { runId: '1' });
    } catch (e) {
      error = e as IngestError;
    }
    expect(error).toBeInstanceOf(IngestError);
    const limit = 'arrays and objects nested more than 64 deep, the limit for ingest: not a result file';
    expect(error!.message).toContain(`results_bmk/agg_bmk.json: ${limit}`);
    expect(error!.message).toContain(`run-stats/run_stats.json: ${limit}`);

    // At the limit, and brackets inside strings, are fine.
    const ok = copyDir(ARTIFACTS);
    editJson(join(ok, 'results_bmk/agg_bmk.json'), (rows) =>
      (rows as Row[]).map((r) => ({ ...r, image: `img${'['.repeat(500)}`, nested: JSON.parse(deep(62)) as unknown })),
    );
    expect(readArtifacts(ok, { runId: '1' }).benchmarks[0]!.config.image).toBe(`img${'['.repeat(500)}`);

    // An eval's samples file (JSON lines).
    const withSamples = copyDir(await frontierRunDir());
    const samples = readdirSync(withSamples, { recursive: true, encoding: 'utf8' }).find((f) => /samples_.*\.jsonl$/.test(f))!;
    writeFileSync(join(withSamples, samples), `{"doc_id": 0}\n{"doc_id": ${deep(200_000)}}\n`);
    expect(() => readArtifacts(withSamples)).toThrow(`${samples}[1]: ${limit}`);
  }, 60_000);

  it('reads Python-written JSON (NaN) and refuses one point measured twice in a run', () => {
    const dir = copyDir(ARTIFACTS);
    const file = join(dir, 'results_bmk/agg_bmk.json');
    editJson(file, (rows) => [...(rows as Row[]), (rows as Row[])[0]]);
    expect(() => readArtifacts(dir, { runId: '1' })).toThrow(
      /two points of one config at isl 8192, osl 1024, conc 64 \(rows 0 and 6\)/,
    );
    const nan = copyDir(ARTIFACTS);
    const text = readFileSync(join(nan, 'results_bmk/agg_bmk.json'), 'utf8').replace(
      /"std_intvty": [^,]+,/,
      '"std_intvty": NaN,',
    );
    writeFileSync(join(nan, 'results_bmk/agg_bmk.json'), text);
    const batch = readArtifacts(nan, { runId: '1' });
    expect(batch.benchmarks[0]!.metrics.std_intvty).toBeUndefined();
    expect(batch.benchmarks[0]!.metrics.tput_per_gpu).toBe(2048.3374588120364);
  });
});
