// AIPerf's `aiperf profile`, as InferenceX's build_replay_cmd writes it, handed to frontier bench --trace.
import { describe, expect, it } from 'vitest';
import { aiperfBenchArgs } from '../../src/engines/standin/aiperf.js';
import { traceBenchOptions } from '../../src/cli/bench-trace.js';

const PROFILE = [
  'profile',
  '--scenario',
  'inferencex-agentx-mvp',
  '--url',
  'http://localhost:8888',
  '--endpoint',
  '/v1/chat/completions',
  '--endpoint-type',
  'chat',
  '--streaming',
  '--model',
  'm',
  '--concurrency',
  '4',
  '--benchmark-duration',
  '60',
  '--use-server-token-count',
  '--public-dataset',
  'semianalysis_cc_traces_weka_062126',
];

describe('the aiperf stand-in', () => {
  it('replays the run’s corpus in place of the public dataset, with AIPerf’s environment switches as flags', () => {
    const env = { FRONTIER_AGENTIC_TRACES: '/run/traces.jsonl', AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID: 'true' };
    const args = aiperfBenchArgs(PROFILE, env);
    expect(args.slice(0, 2)).toEqual(['--trace', '/run/traces.jsonl']);
    expect(args).not.toContain('--public-dataset');
    expect(args.at(-1)).toBe('--dynamo-session-header');
  });

  it('refuses what it cannot stand in for, and frontier bench --trace refuses an unknown flag by name', async () => {
    expect(() => aiperfBenchArgs(['analyze'], {})).toThrow(/runs `aiperf profile` only/);
    expect(() => aiperfBenchArgs(PROFILE, {})).toThrow(/no local corpus to replay/);
    expect(() => aiperfBenchArgs(PROFILE.slice(0, -2), { FRONTIER_AGENTIC_TRACES: 'x' })).toThrow(/no --public-dataset/);
    const args = aiperfBenchArgs([...PROFILE, '--request-rate', '2'], { FRONTIER_AGENTIC_TRACES: 'x' });
    await expect(traceBenchOptions(args)).rejects.toThrow(/--request-rate/);
  });
});
