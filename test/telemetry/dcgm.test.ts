import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLES_HEADER, parsePowerScrape, startSampler } from '../../src/telemetry/index.js';
import { floatRepr as pyFloatRepr } from '../../src/pycompat/index.js';
import { sampleLine } from '../../src/telemetry/dcgm-file.js';
import { REPO } from '../helpers.js';
import { dataLines, tempDir } from './fakes.js';
import { waitFor } from '../support/wait.js';

const FIXTURES = join(REPO, 'test/fixtures/power');

interface Case {
  name: string;
  body: string;
  readings: [number, string, number][];
  reasons: string[];
}

describe('dcgm-exporter parsing', () => {
  const cases = JSON.parse(readFileSync(join(FIXTURES, 'dcgm-parser-cases.json'), 'utf8')) as Case[];
  for (const c of cases) {
    it(`srt-slurm case: ${c.name}`, () => {
      const parsed = parsePowerScrape(c.body);
      expect(parsed.readings.map((r) => [r.gpuIndex, r.gpuUuid, r.powerW])).toEqual(c.readings);
      expect(parsed.reasons).toEqual(c.reasons);
    });
  }

  it('reads a dcgm-exporter body with other fields and HELP/TYPE lines', () => {
    const parsed = parsePowerScrape(readFileSync(join(FIXTURES, 'dcgm-exporter-metrics.txt'), 'utf8'));
    expect(parsed.readings).toEqual([
      { gpuIndex: 0, gpuUuid: 'GPU-0b5c1e2a-7f4e-4c3d-9a1b-000000000000', powerW: 812.377 },
      { gpuIndex: 1, gpuUuid: 'GPU-0b5c1e2a-7f4e-4c3d-9a1b-000000000001', powerW: 790 },
    ]);
    expect(parsed.reasons).toEqual([]);
  });

  it("writes rows byte for byte as srt-slurm's SampleWriter", () => {
    const expected = readFileSync(join(FIXTURES, 'srt-slurm-samples.csv'), 'utf8');
    const rows = [
      { timestampUnix: 1767225600.1234567, scrapeSeq: 0, hostname: 'node-a', gpuIndex: 0, gpuUuid: 'GPU-a0', powerW: 400 },
      { timestampUnix: 1767225601.5, scrapeSeq: 1, hostname: 'node,b', gpuIndex: 1, gpuUuid: 'GPU-"x"', powerW: 0.00001 },
      { timestampUnix: 1e16, scrapeSeq: 2, hostname: 'n', gpuIndex: 2, gpuUuid: 'u', powerW: 812.377 },
    ];
    expect(`${SAMPLES_HEADER.join(',')}\r\n${rows.map(sampleLine).join('')}`).toBe(expected);
  });

  it("formats floats as Python's repr", () => {
    const cases: [number, string][] = [
      [400, '400.0'],
      [812.377, '812.377'],
      [1767225600.1234567, '1767225600.1234567'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1e16, '1e+16'],
      [123456789012345680, '1.2345678901234568e+17'],
      [-2.5, '-2.5'],
      [0, '0.0'],
    ];
    for (const [x, repr] of cases) expect(pyFloatRepr(x)).toBe(repr);
  });
});

function exporter(bodyFor: (n: number) => string | number) {
  let n = 0;
  const server = createServer((req, res) => {
    const body = bodyFor(n++);
    if (typeof body === 'number') {
      res.writeHead(body).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(body);
  });
  return new Promise<{ url: string; close: () => void; requests: () => number }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ url: `http://127.0.0.1:${port}/metrics`, close: () => server.close(), requests: () => n });
    });
  });
}

const body = (prefix: string, watts: number, count = 2): string =>
  '# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n' +
  Array.from(
    { length: count },
    (_, i) =>
      `DCGM_FI_DEV_POWER_USAGE{gpu="${i}",UUID="GPU-${prefix}${i}",device="nvidia${i}",Hostname="exporter-lies"} ${watts + i}\n`,
  ).join('');

describe('dcgm sampler', () => {
  it("scrapes every exporter each interval into srt-slurm's samples.csv, with a final scrape at stop", async () => {
    const a = await exporter(() => body('a', 400));
    const b = await exporter((n) => (n === 1 ? 500 : body('b', 300.5)));
    const out = tempDir();
    try {
      const handle = await startSampler({
        source: 'dcgm',
        dir: out,
        intervalMs: 50,
        dcgmEndpoints: [
          { url: b.url, hostname: 'node-b' },
          { url: a.url, hostname: 'node-a' },
        ],
      });
      await waitFor(
        () => new Set(dataLines(readFileSync(join(out, 'samples.csv'), 'utf8')).map((l) => l.split(',')[2])).size >= 3,
        { what: 'three scrape cycles in samples.csv', timeoutMs: 10_000 },
      );
      const summary = await handle.stop();
      const text = readFileSync(join(out, 'samples.csv'), 'utf8');
      expect(text.endsWith('\r\n')).toBe(true);
      const lines = text.split('\r\n').slice(0, -1);
      expect(lines[0]).toBe(SAMPLES_HEADER.join(','));
      expect(SAMPLES_HEADER.join(',')).toBe('schema_version,timestamp_unix,scrape_seq,hostname,gpu_index,gpu_uuid,power_w');
      const rows = lines.slice(1).map((l) => l.split(','));
      const seqs = [...new Set(rows.map((r) => Number(r[2])))];
      expect(seqs[0]).toBe(0);
      expect(seqs.length).toBeGreaterThanOrEqual(4);
      // Within a cycle: sorted by hostname, then by GPU index; power as Python writes it.
      expect(rows.filter((r) => r[2] === '0').map((r) => [r[0], r[3], r[4], r[5], r[6]])).toEqual([
        ['1', 'node-a', '0', 'GPU-a0', '400.0'],
        ['1', 'node-a', '1', 'GPU-a1', '401.0'],
        ['1', 'node-b', '0', 'GPU-b0', '300.5'],
        ['1', 'node-b', '1', 'GPU-b1', '301.5'],
      ]);
      // Cycle 1 lost node-b (HTTP 500): no stale rows for it.
      expect(rows.filter((r) => r[2] === '1').map((r) => r[3])).toEqual(['node-a', 'node-a']);
      for (const r of rows) {
        const t = Number(r[1]);
        expect(Math.abs(t * 1000 - Date.now())).toBeLessThan(10_000);
      }
      expect(summary).toMatchObject({
        source: 'dcgm',
        csv: 'samples.csv',
        samples: rows.length,
        died_before_stop: false,
        reasons: { endpoint_http_error: 1 },
      });
      expect(summary.command).toEqual([`node-b=${b.url}`, `node-a=${a.url}`]);
      expect(readFileSync(join(out, 'samples_timezone_offset.txt'), 'utf8')).toMatch(/^[+-]\d{4}\n$/);
      expect(JSON.parse(readFileSync(join(out, 'samples_sampler.json'), 'utf8'))).toEqual(summary);
    } finally {
      a.close();
      b.close();
    }
  });

  it("names a loopback exporter's node after this host, counts unreachable and malformed scrapes, and stamps on the virtual clock", async () => {
    const good = await exporter((n) => (n === 0 ? 'malformed' : body('x', 100)));
    const dead = await exporter(() => '');
    dead.close();
    const out = tempDir();
    const anchorMs = Date.now() - 2000;
    try {
      const handle = await startSampler({
        source: 'dcgm',
        dir: out,
        intervalMs: 1000,
        clock: { scale: 20, anchorMs },
        dcgmEndpoints: [{ url: good.url }, { url: dead.url.replace('/metrics', '/gone'), hostname: 'zz-dead' }],
      });
      const t0 = Date.now();
      await waitFor(
        () => new Set(dataLines(readFileSync(join(out, 'samples.csv'), 'utf8')).map((l) => l.split(',')[2])).size >= 3,
        { what: 'three scrape cycles in samples.csv', timeoutMs: 10_000 },
      );
      // 1 s virtual at scale 20 is 50 ms real: several cycles well inside a second.
      expect(Date.now() - t0).toBeLessThan(900);
      const summary = await handle.stop();
      const rows = readFileSync(join(out, 'samples.csv'), 'utf8')
        .split('\r\n')
        .slice(1, -1)
        .map((l) => l.split(','));
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r[3]))).toEqual(new Set([hostname()]));
      expect(rows.some((r) => r[2] === '0')).toBe(false);
      // 2 s of wall time after the anchor is 40 s virtual.
      expect(Number(rows[0]![1]) * 1000 - anchorMs).toBeGreaterThan(39_000);
      expect(summary.reasons?.endpoint_parse_error).toBe(1);
      expect(summary.reasons?.endpoint_http_error).toBeGreaterThanOrEqual(3);
    } finally {
      good.close();
    }
  });
});
