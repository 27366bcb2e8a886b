import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatWekaTraces, parseTraces, readTraceFile } from '../../src/traces/index.js';
import type { TraceSubagent } from '../../src/traces/index.js';
import { parseTraceBuffer } from '../../src/traces/read.js';
import { UserError } from '../../src/util/user-error.js';
import {
  MAX_BLOCK_SIZE,
  MAX_HASH_IDS_PER_REQUEST,
  MAX_ID_LENGTH,
  MAX_REQUEST_TOKENS,
  MAX_TRACE_FILE_BYTES,
  MAX_TRACE_LINES,
  MAX_TRACE_REQUESTS,
} from '../../src/traces/limits.js';
import { MAX_JSON_DEPTH } from '../../src/util/json-depth.js';
import { REPO, tempFiles } from '../helpers.js';

const DIR = join(REPO, 'test/fixtures/agentic/traces');
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');

/** The UserError parseTraces throws on `text`. */
function failure(text: string, file = 'x.jsonl'): UserError {
  try {
    parseTraces(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error('parseTraces accepted it');
}

const req = (t: number, extra: Record<string, unknown> = {}) => ({ t, type: 'n', in: 64, out: 8, hash_ids: [0], ...extra });
const weka = (requests: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 's', block_size: 64, hash_id_scope: 'local', requests, ...extra });

describe('Weka traces', () => {
  it('reads the pretty-printed trace proxy_to_weka.py writes, with each request on its own line', async () => {
    const [trace] = await readTraceFile(join(DIR, 'weka_single.json'));
    expect(trace!.id).toBe('sess-demo');
    expect(trace!.blockSize).toBe(64);
    expect(trace!.hashIdScope).toBe('local');
    expect(trace!.models).toEqual(['claude-haiku', 'claude-opus']);
    expect(trace!.entries.map((e) => e.kind)).toEqual(['request', 'request', 'subagent', 'subagent', 'request']);
    const first = trace!.entries[0]!;
    expect(first.kind === 'request' && first.request).toMatchObject({
      t: 0,
      input: 180,
      output: 120,
      hashIds: [0, 1, 2],
      apiTime: 2.5,
      streaming: true,
      ttft: 0.8,
      model: 'claude-opus',
    });
    expect(first.kind === 'request' && first.request.delay).toBeUndefined();
    const second = trace!.entries[1]!;
    expect(second.kind === 'request' && second.request).toMatchObject({ delay: 1.5, source: { line: 20 } });
    const sub = (trace!.entries[2] as { subagent: TraceSubagent }).subagent;
    expect(sub).toMatchObject({
      t: 5.5,
      agentId: 'subagent_001_0001aaaa',
      subagentType: 'Subagent',
      duration: 2.7,
      toolUseCount: null,
      status: 'completed',
      models: ['claude-haiku'],
    });
    expect(sub.source.line).toBe(30);
    expect(sub.requests.map((r) => [r.t, r.input, r.output, r.hashIds, r.source.line])).toEqual([
      [5.5, 128, 30, [4, 5], 40],
      [7.5, 192, 25, [4, 5, 6], 50],
    ]);
  });

  it('reads traces.jsonl, one trace a line, and writes it back key for key', () => {
    const text = fixture('weka_traces.jsonl');
    const traces = parseTraces(text, 'traces.jsonl');
    expect(traces.map((t) => [t.id, t.source.line])).toEqual([
      ['sess-demo', 1],
      ['sess-two', 2],
    ]);
    // Python writes 0.0 where JavaScript writes 0: compare through one JSON.parse.
    const reference = text
      .trim()
      .split('\n')
      .map((l) => JSON.stringify(JSON.parse(l)));
    expect(formatWekaTraces(traces).trim().split('\n')).toEqual(reference);
    expect(parseTraces(formatWekaTraces(traces), 'traces.jsonl')).toEqual(traces);
  });

  it('the single-file and JSONL forms of a trace read the same but for line numbers', () => {
    const strip = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'source' ? undefined : x)));
    expect(strip(parseTraces(fixture('weka_single.json'), 'a.json'))).toEqual(
      strip(parseTraces(fixture('weka_traces.jsonl'), 'b').slice(0, 1)),
    );
  });

  it('defaults block_size 64, hash_id_scope local and a type-less entry by its keys', () => {
    const [trace] = parseTraces(
      JSON.stringify({
        id: 'x',
        requests: [
          { t: 0, in: 1, out: 0 },
          { t: 1, agent_id: 'a', requests: [{ t: 1, in: 2, out: 3 }] },
        ],
      }),
      'f',
    );
    expect(trace).toMatchObject({ blockSize: 64, hashIdScope: 'local' });
    expect(trace!.entries.map((e) => e.kind)).toEqual(['request', 'subagent']);
  });
});

describe('files too large for one string', () => {
  it('are read a line at a time, to the same traces', () => {
    for (const name of ['weka_traces.jsonl', 'trace_replay_sample.jsonl']) {
      const bytes = readFileSync(join(DIR, name));
      expect(parseTraceBuffer(bytes, name, {}, 0)).toEqual(parseTraces(bytes.toString('utf8'), name));
    }
  });

  it('then can only be JSONL', () => {
    expect(() => parseTraceBuffer(readFileSync(join(DIR, 'weka_single.json')), 'one.json', {}, 0)).toThrow(
      /^one\.json:1: not JSON/,
    );
  });
});

describe('hash_ids block traces', () => {
  it("reads srt-slurm's sample: sessions, ms timestamps and delays", async () => {
    const traces = await readTraceFile(join(DIR, 'trace_replay_sample.jsonl'));
    expect(traces.map((t) => [t.id, t.hashIdScope, t.blockSize, t.start])).toEqual([
      ['test-sess-001', 'global', 512, 0],
      ['test-sess-002', 'global', 512, 0.0005],
    ]);
    const turns = traces[0]!.entries.map((e) => (e.kind === 'request' ? e.request : undefined));
    expect(turns.map((r) => [r!.t, r!.input, r!.output, r!.hashIds, r!.delay, r!.source.line])).toEqual([
      [0, 1200, 50, [0, 1, 2], undefined, 1],
      [0.1, 512, 30, [3], 0.1, 2],
    ]);
  });

  it('reads the Mooncake shape: a line without session_id is a session of its own', () => {
    const text = [
      '{"timestamp": 1000, "input_length": 300, "output_length": 40, "hash_ids": [123, 456]}',
      '{"timestamp": 2500, "input_length": 10, "output_length": 4, "hash_ids": [123]}',
    ].join('\n');
    const traces = parseTraces(text, 'mooncake.jsonl', { blockSize: 256 });
    expect(traces.map((t) => [t.id, t.start, t.blockSize, t.entries.length])).toEqual([
      ['line-1', 1, 256, 1],
      ['line-2', 2.5, 256, 1],
    ]);
  });

  it('a session naming parent_session_id is a subagent of that session', () => {
    const text = [
      '{"session_id": "main", "input_length": 100, "output_length": 5, "hash_ids": [1], "timestamp": 0}',
      '{"session_id": "kid", "parent_session_id": "main", "subagent_type": "Explore", "input_length": 50, "output_length": 5, "hash_ids": [9], "timestamp": 2000}',
      '{"session_id": "kid", "input_length": 80, "output_length": 5, "hash_ids": [9, 10], "delay": 500}',
    ].join('\n');
    const [trace] = parseTraces(text, 'f.jsonl');
    expect(trace!.entries.map((e) => e.kind)).toEqual(['request', 'subagent']);
    const sub = (trace!.entries[1] as { subagent: TraceSubagent }).subagent;
    expect(sub).toMatchObject({ agentId: 'kid', subagentType: 'Explore', t: 2, duration: 0.5 });
    expect(sub.requests.map((r) => r.t)).toEqual([2, 2.5]);
  });
});

describe('errors name the file, the line, the format, the key and the fix', () => {
  const cases: [string, string, RegExp][] = [
    ['an empty file', '\n  \n', /^x\.jsonl: empty/],
    ['bad JSON on a later line', `${weka([req(0)])}\n{"id": "y", oops}\n`, /^x\.jsonl:2: Weka trace: not JSON/],
    [
      'a missing field',
      weka([req(0), { t: 1, type: 'n', out: 1, hash_ids: [] }]),
      /^x\.jsonl:1: Weka trace: requests\[1\]\.in: missing/,
    ],
    [
      'a mistyped field',
      weka([req(0, { out: '8' })]),
      /^x\.jsonl:1: Weka trace: requests\[0\]\.out: the string "8" is not an integer/,
    ],
    ['a negative length', weka([req(0, { in: -64 })]), /requests\[0\]\.in: -64 is negative/],
    [
      'hash_ids not a list',
      weka([req(0, { hash_ids: 'abc' })]),
      /requests\[0\]\.hash_ids: the string "abc" is not a list of integers/,
    ],
    [
      'hash_ids holding a non-integer',
      weka([req(0, { hash_ids: [1, 2.5] })]),
      /requests\[0\]\.hash_ids\[1\]: number 2\.5 is not a non-negative integer/,
    ],
    [
      'a subagent before the first main request',
      weka([{ t: 0, type: 'subagent', agent_id: 'a', requests: [req(0)] }]),
      /requests\[0\]\.type: a subagent before the trace's first main request: its parent never ran/,
    ],
    [
      'a subagent with no requests',
      weka([req(0), { t: 1, type: 'subagent', agent_id: 'a', requests: [] }]),
      /requests\[1\]\.requests: a subagent with no requests/,
    ],
    ['an unknown request type', weka([req(0, { type: 'x' })]), /requests\[0\]\.type: "x" is not a request type/],
    ['a bad hash_id_scope', weka([req(0)], { hash_id_scope: 'team' }), /hash_id_scope: "team" is not a scope/],
    ['a line of neither format', '{"foo": 1}', /^x\.jsonl:1: neither a Weka trace nor a block-trace request/],
    [
      'a block line missing output_length',
      '{"session_id": "a", "input_length": 5, "hash_ids": [1]}\n{"session_id": "a", "input_length": 5}',
      /^x\.jsonl:1: hash_ids block trace: output_length: missing/,
    ],
    [
      'a block line with negative input',
      '{"input_length": 5, "output_length": 1}\n{"input_length": -5, "output_length": 1}',
      /^x\.jsonl:2: hash_ids block trace: input_length: -5 is negative/,
    ],
    [
      'block hash_ids not ints',
      '{"input_length": 5, "output_length": 1, "hash_ids": ["a"]}',
      /^x\.jsonl:1: hash_ids block trace: hash_ids\[0\]: the string "a" is not a non-negative integer/,
    ],
    [
      'a block subagent whose parent never ran',
      '{"session_id": "a", "input_length": 5, "output_length": 1}\n{"session_id": "b", "parent_session_id": "zz", "input_length": 5, "output_length": 1}',
      /^x\.jsonl:2: hash_ids block trace: parent_session_id: names session "zz", which has no request at or before this line/,
    ],
    [
      'a block subagent whose parent starts after it',
      '{"session_id": "b0", "input_length": 5, "output_length": 1, "timestamp": 0}\n{"session_id": "a", "input_length": 5, "output_length": 1, "timestamp": 5000}\n{"session_id": "b", "parent_session_id": "a", "input_length": 5, "output_length": 1, "timestamp": 1000}',
      /^x\.jsonl:3: .*parent_session_id: names session "a", which has no request at or before/,
    ],
  ];
  it.each(cases)('%s', (_name, text, message) => {
    const error = failure(text);
    expect(error.message).toMatch(message);
    expect(error.hint).toBeTruthy();
  });

  it('in a pretty-printed trace, an inner request error names its own line', () => {
    const text = fixture('weka_single.json').replace('"hash_ids": [4, 5, 6]', '"hash_ids": [4, -5, 6]');
    expect(failure(text, 'one.json').message).toMatch(/^one\.json:50: Weka trace: requests\[2\]\.requests\[1\]\.hash_ids\[1\]/);
  });

  it('an unreadable file', async () => {
    await expect(readTraceFile(join(DIR, 'no-such.jsonl'))).rejects.toThrow(/cannot read .*no-such\.jsonl: ENOENT/);
  });
});

describe('limits: every size a trace file controls is bounded, with an error naming it', () => {
  const ids = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  const cases: [string, string, RegExp][] = [
    [
      'block_size 1e9',
      weka([req(0)], { block_size: 1e9 }),
      new RegExp(`^x\\.jsonl:1: Weka trace: block_size: 1000000000 is above the limit of ${MAX_BLOCK_SIZE}`),
    ],
    [
      'block_size 0 (below 1, not negative)',
      weka([req(0)], { block_size: 0 }),
      /^x\.jsonl:1: Weka trace: block_size: 0 is below 1$/,
    ],
    [
      '2 million hash_ids',
      weka([req(0, { hash_ids: ids(2_000_000) })]),
      new RegExp(`requests\\[0\\]\\.hash_ids: 2000000 entries, above the limit of ${MAX_HASH_IDS_PER_REQUEST}`),
    ],
    [
      'blocks × block_size past the tokens of a request',
      weka([req(0, { hash_ids: ids(100) })], { block_size: MAX_BLOCK_SIZE }),
      new RegExp(
        `requests\\[0\\]\\.hash_ids: 100 blocks of ${MAX_BLOCK_SIZE} tokens is ${100 * MAX_BLOCK_SIZE} tokens, above the limit of ${MAX_REQUEST_TOKENS}`,
      ),
    ],
    [
      'a hash id past 2^53',
      '{"input_length": 5, "output_length": 1, "hash_ids": [1, 9007199254740993]}',
      /^x\.jsonl:1: hash_ids block trace: hash_ids\[1\]: 9007199254740992 is past 2\^53 − 1, where ids stop being exact/,
    ],
    [
      'an input length past the tokens of a request',
      weka([req(0, { in: 1e12 })]),
      new RegExp(`requests\\[0\\]\\.in: 1000000000000 is above the limit of ${MAX_REQUEST_TOKENS}`),
    ],
    [
      'an output length past the tokens of a request',
      `{"input_length": 5, "output_length": ${MAX_REQUEST_TOKENS + 1}}`,
      /^x\.jsonl:1: hash_ids block trace: output_length: \d+ is above the limit/,
    ],
    [
      'a trace id with a line break (it travels in an HTTP header)',
      weka([req(0)], { id: 'a\r\nX-Injected: 1' }),
      /^x\.jsonl:1: Weka trace: id: "a\\r\\nX-Injected: 1" is not printable ASCII/,
    ],
    [
      'a subagent id whose low byte is a line break once written as latin1',
      weka([req(0), { t: 1, type: 'subagent', agent_id: 'a\u010a', requests: [req(1)] }]),
      /requests\[1\]\.agent_id: "a\u010a" is not printable ASCII/,
    ],
    [
      'a session id past the length limit',
      `{"session_id": "${'s'.repeat(MAX_ID_LENGTH + 1)}", "input_length": 5, "output_length": 1}`,
      new RegExp(
        `^x\\.jsonl:1: hash_ids block trace: session_id: ${MAX_ID_LENGTH + 1} characters, above the limit of ${MAX_ID_LENGTH}`,
      ),
    ],
    [
      'more requests than a file may hold',
      weka(Array.from({ length: MAX_TRACE_REQUESTS + 1 }, () => ({ t: 0, in: 1, out: 1 }))),
      new RegExp(`^x\\.jsonl:1: Weka trace: the file holds more than ${MAX_TRACE_REQUESTS} requests`),
    ],
    [
      'more lines than a file may hold',
      `${weka([req(0)])}${'\n'.repeat(MAX_TRACE_LINES)}`,
      new RegExp(`^x\\.jsonl: more than ${MAX_TRACE_LINES} lines`),
    ],
  ];
  it.each(cases)('%s', (_name, text, message) => {
    const error = failure(text);
    expect(error.message).toMatch(message);
    expect(error.hint).toBeTruthy();
  });

  it('a --block-size past the limit', () => {
    expect(() => parseTraces('{"input_length": 5, "output_length": 1}', 'x.jsonl', { blockSize: 1e9 })).toThrow(
      /^--block-size 1000000000: not a block size/,
    );
  });

  it('a file past the size limit is refused before it is read', async () => {
    const path = join(tempFiles({}), 'huge.jsonl');
    writeFileSync(path, '');
    truncateSync(path, MAX_TRACE_FILE_BYTES + 1); // sparse: no disk used
    await expect(readTraceFile(path)).rejects.toThrow(
      new RegExp(`huge\\.jsonl: ${MAX_TRACE_FILE_BYTES + 1} bytes, above the limit`),
    );
  });

  it('nesting past MAX_JSON_DEPTH, in a pretty-printed trace or a line, before it is parsed', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const pretty = `{\n"id": "deep",\n"x": ${deep},\n"requests": [\n${JSON.stringify(req(0))}\n]\n}\n`;
    expect(failure(pretty, 'deep.json').message).toBe(`deep.json:1: nests arrays and objects more than ${MAX_JSON_DEPTH} deep`);
    const line = weka([req(0)], { x: JSON.parse(`${'['.repeat(65)}${']'.repeat(65)}`) as unknown });
    expect(failure(`${weka([req(0)])}\n${line}`).message).toBe(
      `x.jsonl:2: Weka trace: nests arrays and objects more than ${MAX_JSON_DEPTH} deep`,
    );
    expect(
      parseTraces(weka([req(0)], { x: JSON.parse(`${'['.repeat(60)}${']'.repeat(60)}`) as unknown }), 'x.jsonl'),
    ).toHaveLength(1);
  });
});
