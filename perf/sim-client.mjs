// A minimal streaming client for the simulator's throughput figure (npm run perf): `streams`
// concurrent closed-loop /v1/completions streams for `seconds`; prints one JSON line with the
// streamed tokens per second (token chunks counted as they arrive) and the peak concurrency.
// Deliberately bare (node:http, no JSON parsing of token chunks) so the server is the bottleneck.
import { Agent, request } from 'node:http';

const [url, streams = '2048', seconds = '10', maxTokens = '256'] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const models = await (await fetch(`${url}/v1/models`)).json();
const body = JSON.stringify({
  model: models.data[0].id,
  prompt: 'The quick brown fox jumps over the lazy dog. '.repeat(8),
  max_tokens: Number(maxTokens),
  stream: true,
  ignore_eos: true,
});
const { hostname, port } = new URL(url);
const deadline = performance.now() + Number(seconds) * 1000;
let tokens = 0;
let active = 0;
let peak = 0;
let completed = 0;
let failed = 0;
const TOKEN = '"finish_reason":';

function count(text) {
  let n = 0;
  for (let i = text.indexOf(TOKEN); i >= 0; i = text.indexOf(TOKEN, i + TOKEN.length)) n++;
  return n;
}

function one() {
  return new Promise((resolve) => {
    active++;
    peak = Math.max(peak, active);
    const req = request(
      { hostname, port, path: '/v1/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) failed++;
        let carry = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const text = carry + chunk;
          const cut = text.lastIndexOf('\n\n');
          if (cut >= 0) {
            tokens += count(text.slice(0, cut));
            carry = text.slice(cut + 2);
          } else carry = text;
        });
        res.on('end', () => {
          active--;
          completed++;
          resolve();
        });
      },
    );
    req.on('error', () => {
      active--;
      failed++;
      resolve();
    });
    req.end(body);
  });
}

async function worker() {
  while (performance.now() < deadline) await one();
}

const start = performance.now();
let windowStart = 0;
let windowTokens = 0;
// Measure after a warm-up second, while every stream is open.
setTimeout(() => {
  windowStart = performance.now();
  windowTokens = tokens;
}, 1000);
await Promise.all(Array.from({ length: Number(streams) }, worker));
const wall = (performance.now() - start) / 1000;
const measured = (performance.now() - windowStart) / 1000;
console.log(
  JSON.stringify({
    streams: Number(streams),
    peakConcurrent: peak,
    completed,
    failed,
    wallS: wall,
    tokens,
    tokensPerS: (tokens - windowTokens) / measured,
  }),
);
process.exit(0);
