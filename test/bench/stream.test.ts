import { describe, expect, it } from 'vitest';
import { EventTooLarge, ResponseTracker, SseSplitter, scanChunk } from '../../src/bench/index.js';

/** Feed `text` to a splitter in the given piece sizes; returns the events' data. */
function split(text: string, sizes: number[]): string[] {
  const s = new SseSplitter();
  const out: string[] = [];
  let at = 0;
  let i = 0;
  while (at < text.length) {
    const n = sizes[i++ % sizes.length]!;
    s.push(text.slice(at, at + n), (d) => out.push(d));
    at += n;
  }
  s.end((d) => out.push(d));
  return out;
}

const completionChunk = (text: string, finish: string | null = null, extra = ''): string =>
  `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`},"stop_reason":null}]${extra}}`;
const chatChunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

/** Drive a tracker with (data, time) events. */
function track(events: [string, number][], sentAt = 0) {
  const t = new ResponseTracker(sentAt);
  for (const [data, now] of events) t.onData(data, now);
  return t.finish();
}

describe('SSE splitting', () => {
  const stream = `data: a\n\ndata: b\n\n: a comment\n\nevent: x\ndata: c1\ndata: c2\n\ndata: [DONE]\n\n`;

  it('finds every event whatever the TCP pieces: byte by byte, odd sizes, all at once', () => {
    for (const sizes of [[1], [3, 7], [stream.length], [2, 1, 5]]) {
      expect(split(stream, sizes)).toEqual(['a', 'b', 'c1\nc2', '[DONE]']);
    }
  });

  it('handles CRLF line endings, even with the CR and LF in different pieces', () => {
    const crlf = stream.replace(/\n/g, '\r\n');
    for (const sizes of [[1], [2], [5, 1]]) expect(split(crlf, sizes)).toEqual(['a', 'b', 'c1\nc2', '[DONE]']);
  });

  it('accepts data: without a space, and a last event without its blank line', () => {
    expect(split('data:x\n\ndata: y', [4])).toEqual(['x', 'y']);
  });

  it('reads an event cut into many pieces in time linear in its size', () => {
    // 8 MB in 64 KiB pieces: re-joining and re-scanning the whole carry at each piece (as before) is
    // ~64 GB of copying and scanning, minutes; linear, it is a moment. Counted, not timed: the
    // splitter sees each piece's characters a bounded number of times.
    const piece = 'x'.repeat(64 * 1024);
    const s = new SseSplitter();
    const out: string[] = [];
    let scanned = 0;
    const indexOf = String.prototype.indexOf;
    String.prototype.indexOf = function (this: string, search: string, from?: number) {
      scanned += this.length - (from ?? 0);
      return indexOf.call(this, search, from);
    };
    try {
      s.push('data: ', (d) => out.push(d));
      for (let i = 0; i < 128; i++) s.push(piece, (d) => out.push(d));
      s.push('\n\n', (d) => out.push(d));
    } finally {
      String.prototype.indexOf = indexOf;
    }
    expect(out).toHaveLength(1);
    expect(out[0]!.length).toBe(128 * piece.length);
    expect(scanned).toBeLessThan(4 * 128 * piece.length);
  });

  it('an event larger than the limit fails instead of growing without bound', () => {
    const s = new SseSplitter(1000);
    s.push('data: ', () => {});
    expect(() => {
      for (let i = 0; i < 20; i++) s.push('y'.repeat(100), () => {});
    }).toThrow(EventTooLarge);
    expect(() => new SseSplitter(1000).push(`data: ${'z'.repeat(2000)}\n\n`, () => {})).toThrow(/grew past/);
  });
});

describe('the fast chunk scanner', () => {
  it('reads text and finish reason like JSON.parse does, escapes included', () => {
    for (const text of [' word', '', 'quote " and \\ back', 'line\nbreak', 'unicode é ✓ 😀', '\\"', 'tab\t']) {
      const data = completionChunk(text, null);
      expect(scanChunk(data)).toEqual({ text, finish: undefined });
    }
    expect(scanChunk(completionChunk('x', 'length'))).toEqual({ text: 'x', finish: 'length' });
    expect(scanChunk(chatChunk({ content: 'hi' }))).toEqual({ text: 'hi', finish: undefined });
    expect(scanChunk(chatChunk({ role: 'assistant', content: null }))).toEqual({ text: '', finish: undefined });
  });

  it('leaves usage objects, reasoning and other shapes to JSON.parse', () => {
    expect(scanChunk(completionChunk('', 'length', ',"usage":{"completion_tokens":3}'))).toBeUndefined();
    expect(scanChunk(completionChunk('a', null, ',"usage":null'))).toEqual({ text: 'a', finish: undefined });
    expect(scanChunk(chatChunk({ reasoning_content: 'hmm' }))).toBeUndefined();
    expect(scanChunk('{"id":"x","choices":[],"usage":{"completion_tokens":3}}')).toBeUndefined();
    expect(scanChunk('{"error":{"message":"boom","code":500}}')).toBeUndefined();
  });
});

describe('a response, event by event', () => {
  it('vLLM completions: a token per chunk, usage in a separate choices: [] chunk', () => {
    const r = track([
      [completionChunk(' a', null, ',"usage":null'), 10],
      [completionChunk(' b', null, ',"usage":null'), 15],
      [completionChunk(' c', 'length', ',"usage":null'), 22],
      [
        '{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"total_tokens":8,"completion_tokens":3}}',
        22,
      ],
      ['[DONE]', 22],
    ]);
    expect(r).toMatchObject({
      id: 'cmpl-1',
      ttft: 10,
      itl: [5, 7],
      latency: 22,
      text: ' a b c',
      tokenChunks: 3,
      finishReason: 'length',
      done: true,
      error: undefined,
    });
    expect(r.usage).toEqual({ prompt_tokens: 5, total_tokens: 8, completion_tokens: 3 });
  });

  it('llama.cpp completions: usage (and timings) in the finish chunk, whose text is empty', () => {
    const r = track([
      [completionChunk(' a'), 3],
      [completionChunk(' b'), 4],
      [
        completionChunk(
          '',
          'length',
          ',"usage":{"completion_tokens":2,"prompt_tokens":4,"total_tokens":6},"timings":{"prompt_n":4}',
        ),
        6,
      ],
      ['[DONE]', 6],
    ]);
    expect(r).toMatchObject({
      ttft: 3,
      itl: [1],
      latency: 4,
      tokenChunks: 2,
      finishReason: 'length',
      usage: { completion_tokens: 2 },
    });
  });

  it('chat: the role-only opening chunk is not the first token', () => {
    const r = track([
      [chatChunk({ role: 'assistant', content: '' }), 2],
      [chatChunk({ content: 'Hel' }), 9],
      [chatChunk({ content: 'lo' }), 12],
      [chatChunk({}, 'stop'), 12],
      ['{"id":"chatcmpl-1","choices":[],"usage":{"completion_tokens":2,"prompt_tokens":3}}', 12],
      ['[DONE]', 12],
    ]);
    expect(r).toMatchObject({ ttft: 9, itl: [3], latency: 12, text: 'Hello', tokenChunks: 2, finishReason: 'stop' });
  });

  it('reasoning deltas are output tokens too', () => {
    const r = track([
      [chatChunk({ reasoning_content: 'think' }), 5],
      [chatChunk({ content: 'answer' }), 8],
    ]);
    expect(r).toMatchObject({ ttft: 5, text: 'thinkanswer', tokenChunks: 2 });
  });

  it('a chunk that carries several tokens (per-chunk usage) splits its gap across them', () => {
    const chunk = (text: string, n: number): string => completionChunk(text, null, `,"usage":{"completion_tokens":${n}}`);
    const r = track([
      [chunk(' a', 1), 10],
      [chunk(' b c d', 4), 16],
      [chunk(' e', 5), 18],
    ]);
    expect(r.itl).toEqual([2, 2, 2, 2]);
    expect(r.usage?.completion_tokens).toBe(5);
  });

  it('an error event mid-stream fails the request with the server’s reason', () => {
    const r = track([
      [completionChunk(' a'), 1],
      ['{"error":{"code":500,"message":"The model produced output that does not match the expected Content-only format"}}', 2],
    ]);
    expect(r.error).toBe('server error 500: The model produced output that does not match the expected Content-only format');
    expect(r.tokenChunks).toBe(1);
  });

  it('a malformed event fails the request under its kind (one bucket for all), keeping what it saw as the detail', () => {
    const r = track([[`{"id":"cmpl-1","choices":[{"index":0,"text":`, 1]]);
    expect(r.error).toBe('malformed event (not JSON)');
    expect(r.errorDetail).toMatch(/^\{"id":"cmpl-1"/);
    expect(track([['{"id":"cmpl-2","choices":[{"text', 1]]).error).toBe('malformed event (not JSON)');
    for (const data of ['null', '5', '[1]']) expect(track([[data, 1]]).error).toBe('malformed event (not a JSON object)');
    expect(track([['{"choices":"abc"}', 1]]).error).toBe('malformed event (choices is not an array)');
    expect(track([['{"choices":[{"text":7}]}', 1]]).error).toBe('malformed event (text or finish_reason is not a string)');
    // An escape JSON does not know: the fast scanner leaves it to JSON.parse, which reports it.
    expect(track([[completionChunk('a').replace('"text":"a"', '"text":"\\x"'), 1]]).error).toBe('malformed event (not JSON)');
  });
});

describe('usage, checked', () => {
  const finish = (usage: string): string => completionChunk('', 'length', `,"usage":${usage}`);
  const run = (usage: string, maxTokens = 8) => {
    const t = new ResponseTracker(0, maxTokens);
    for (const [data, now] of [
      [completionChunk(' a'), 1],
      [completionChunk(' b'), 2],
      [finish(usage), 3],
      ['[DONE]', 3],
    ] as const)
      t.onData(data, now);
    return t.finish();
  };

  it('a count that is not a non-negative integer, or more than max_tokens, fails the request and is not kept', () => {
    for (const [usage, reason, detail] of [
      ['{"completion_tokens":"7"}', 'invalid usage: completion_tokens is not a non-negative integer', 'completion_tokens: "7"'],
      ['{"completion_tokens":-3}', 'invalid usage: completion_tokens is not a non-negative integer', 'completion_tokens: -3'],
      ['{"completion_tokens":2.5}', 'invalid usage: completion_tokens is not a non-negative integer', 'completion_tokens: 2.5'],
      [
        '{"completion_tokens":2,"prompt_tokens":"x"}',
        'invalid usage: prompt_tokens is not a non-negative integer',
        'prompt_tokens: "x"',
      ],
      [
        '{"completion_tokens":10000000000000}',
        'invalid usage: completion_tokens exceeds the max_tokens asked for',
        '10000000000000 > 8',
      ],
      ['"lots"', 'invalid usage: not an object', undefined],
      [
        '{"completion_tokens":2,"prompt_tokens":4,"prompt_tokens_details":{"cached_tokens":-1}}',
        'invalid usage: cached_tokens is not a non-negative integer',
        'cached_tokens: -1',
      ],
      [
        '{"completion_tokens":2,"prompt_tokens":4,"prompt_tokens_details":{"cached_tokens":5}}',
        'invalid usage: cached_tokens exceeds prompt_tokens',
        '5 > 4',
      ],
      [
        '{"completion_tokens":2,"prompt_tokens":4,"prompt_tokens_details":[3]}',
        'invalid usage: prompt_tokens_details is not an object',
        '[3]',
      ],
    ] as const) {
      const r = run(usage);
      expect(r.error, usage).toBe(reason);
      if (detail) expect(r.errorDetail).toBe(detail);
      expect(r.usage).toBeUndefined();
    }
    expect(run('{"completion_tokens":2,"prompt_tokens":4}')).toMatchObject({ error: undefined, usage: { completion_tokens: 2 } });
    expect(run('{"completion_tokens":2,"prompt_tokens":4,"prompt_tokens_details":{"cached_tokens":4}}').error).toBeUndefined();
  });

  it('a second usage chunk that lowers the output or changes the prompt fails the request; one that repeats it stands', () => {
    const twice = (first: string, second: string) => {
      const t = new ResponseTracker(0, 8);
      for (const [data, now] of [
        [completionChunk(' a'), 1],
        [completionChunk(' b', 'length'), 2],
        [`{"id":"cmpl-1","choices":[],"usage":${first}}`, 3],
        [`{"id":"cmpl-1","choices":[],"usage":${second}}`, 3],
        ['[DONE]', 3],
      ] as const)
        t.onData(data, now);
      return t.finish();
    };
    const usage = '{"completion_tokens":2,"prompt_tokens":4}';
    expect(twice(usage, '{"completion_tokens":0,"prompt_tokens":4}')).toMatchObject({
      error: 'invalid usage: completion_tokens went down during the stream',
      errorDetail: '2 → 0',
      usage: undefined,
    });
    expect(twice(usage, '{"completion_tokens":2,"prompt_tokens":1000000000000}')).toMatchObject({
      error: 'invalid usage: prompt_tokens changed during the stream',
      errorDetail: '4 → 1000000000000',
      usage: undefined,
    });
    expect(twice(usage, usage)).toMatchObject({ error: undefined, usage: { completion_tokens: 2, prompt_tokens: 4 } });
  });

  it('per-chunk usage that goes down, or jumps past max_tokens, fails the request (and adds no gaps)', () => {
    const chunk = (text: string, n: number): string => completionChunk(text, null, `,"usage":{"completion_tokens":${n}}`);
    const down = new ResponseTracker(0, 100);
    down.onData(chunk(' a', 3), 1);
    down.onData(chunk(' b', 2), 2);
    expect(down.finish()).toMatchObject({ error: 'invalid usage: completion_tokens went down during the stream' });
    const jump = new ResponseTracker(0, 100);
    jump.onData(chunk(' a', 1), 1);
    jump.onData(chunk(' b', 1e13), 2);
    const r = jump.finish();
    expect(r.error).toBe('invalid usage: completion_tokens exceeds the max_tokens asked for');
    expect(r.itl.length).toBeLessThanOrEqual(1);
  });
});
