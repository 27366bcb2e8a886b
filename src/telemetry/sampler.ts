/**
 * `startSampler`: one GPU telemetry sampler per node, started with the engine and stopped after
 * the client, writing the files the power step integrates.
 */
import { mkdirSync } from 'node:fs';
import { UserError } from '../util/user-error.js';
import {
  DCGM_CSV,
  DEFAULT_CSV,
  DEFAULT_DCGM_URL,
  DEFAULT_HWMON_ROOT,
  DEFAULT_INTERVAL_MS,
  onPath,
  newSummary,
  writeSummary,
} from './common.js';
import type { ResolvedSource, SamplerHandle, SamplerOptions } from './common.js';
import { startDcgm } from './dcgm.js';
import { discoverHwmon, startHwmon } from './hwmon.js';
import { startAmdSmi, startNvidiaSmi } from './smi.js';

/** What `auto` picks: nvidia-smi on PATH, else amd-smi, else hwmon with a power file, else none. */
export function detectSource(env: NodeJS.ProcessEnv, hwmonRoot = DEFAULT_HWMON_ROOT, hwmonNames?: string[]): ResolvedSource {
  if (onPath('nvidia-smi', env)) return 'nvidia-smi';
  if (onPath('amd-smi', env)) return 'amd-smi';
  if (discoverHwmon(hwmonRoot, hwmonNames).length > 0) return 'hwmon';
  return 'none';
}

const NO_SOURCE = 'no GPU telemetry source found (no nvidia-smi or amd-smi on PATH, no hwmon power file): nothing sampled';

export async function startSampler(options: SamplerOptions): Promise<SamplerHandle> {
  const env = options.env ?? process.env;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  if (!(intervalMs > 0)) throw new UserError(`telemetry interval ${intervalMs} ms: expected a positive number`);
  const log = options.log ?? (() => undefined);
  const hwmonRoot = options.hwmonRoot ?? DEFAULT_HWMON_ROOT;
  const clock = options.clock ?? { scale: 1, anchorMs: Date.now() };
  const source: ResolvedSource = options.source === 'auto' ? detectSource(env, hwmonRoot, options.hwmonNames) : options.source;
  const csvName = options.csvName ?? (source === 'dcgm' ? DCGM_CSV : DEFAULT_CSV);
  mkdirSync(options.dir, { recursive: true });
  const dir = options.dir;

  switch (source) {
    case 'nvidia-smi':
    case 'amd-smi': {
      const tool = onPath(source, env);
      if (!tool) throw new UserError(`${source} is not on PATH`, { hint: 'use --source auto, or put the tool on PATH' });
      const o = { dir, csvName, intervalMs, env, tool, amdSettleMs: options.amdSettleMs, log };
      return source === 'nvidia-smi' ? startNvidiaSmi(o) : await startAmdSmi(o);
    }
    case 'hwmon': {
      const devices = discoverHwmon(hwmonRoot, options.hwmonNames);
      if (devices.length === 0) {
        throw new UserError(`no hwmon device with power1_average or power1_input under ${hwmonRoot}/class/hwmon`);
      }
      return startHwmon({ dir, csvName, intervalMs, env, root: hwmonRoot, devices, clock, log });
    }
    case 'dcgm': {
      const endpoints =
        options.dcgmEndpoints && options.dcgmEndpoints.length > 0 ? options.dcgmEndpoints : [{ url: DEFAULT_DCGM_URL }];
      for (const e of endpoints) {
        try {
          new URL(e.url);
        } catch {
          throw new UserError(`dcgm exporter URL ${JSON.stringify(e.url)} is not a URL`, {
            hint: 'e.g. http://node1:9400/metrics',
          });
        }
      }
      return startDcgm({
        dir,
        csvName,
        intervalMs,
        env,
        endpoints,
        requestTimeoutMs: options.requestTimeoutMs ?? 2000,
        clock,
        log,
      });
    }
    case 'none': {
      log(`[GPU Monitor] ${NO_SOURCE}`);
      const summary = { ...newSummary('none', undefined, null, intervalMs), warnings: [NO_SOURCE] };
      writeSummary(dir, csvName, summary);
      let stopped = false;
      return {
        source: 'none',
        csvPath: undefined,
        alive: () => false,
        stop: () => {
          if (!stopped) {
            stopped = true;
            summary.stopped_at = new Date().toISOString();
            writeSummary(dir, csvName, summary);
          }
          return Promise.resolve(summary);
        },
      };
    }
  }
}
