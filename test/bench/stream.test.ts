import { describe, expect, it } from 'vitest';
import { ResponseTracker, SseSplitter, scanChunk } from '../../src/bench/index.js';

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

  it('a malformed event fails the request, naming what it saw', () => {
    const r = track([[`{"id":"cmpl-1","choices":[{"index":0,"text":`, 1]]);
    expect(r.error).toMatch(/^malformed event: \{"id":"cmpl-1"/);
  });
});
