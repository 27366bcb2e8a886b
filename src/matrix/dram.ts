import { agenticDramGpus } from '../catalog/index.js';
import type { AgenticCodingConfig, AgenticSearchSpaceEntry, RunnerConfig } from '../catalog/index.js';
import { decimalFraction, decimalOf } from '../pycompat/decimal.js';
import { MatrixError } from './types.js';

/** 3 TB (decimal) of CPU DRAM, in MiB: the cap before utilization scaling. */
const MAX_AVAILABLE_CPU_DRAM_MIB = 2_861_022;

/**
 * DRAM offload budget in GB for one agentic server node:
 * floor(min(available MiB, cap) × 2^20 × dram-utilization × gpus / gpus-per-node / 10^9).
 * Exact rational arithmetic, as the reference's Decimal gives for these magnitudes.
 */
export function agenticDramOffloadGb(
  agentic: AgenticCodingConfig,
  entry: AgenticSearchSpaceEntry,
  runner: string,
  runners: RunnerConfig,
): number {
  if ((entry['kv-offloading'] ?? 'none') !== 'dram') return 0;
  const availableMib = Math.min(hardwareInt(runner, runners, 'available-cpu-dram-mib'), MAX_AVAILABLE_CPU_DRAM_MIB);
  const gpusPerNode = hardwareInt(runner, runners, 'gpus-per-node');
  let gpus: number;
  try {
    gpus = agenticDramGpus(entry, gpusPerNode, runner);
  } catch (e) {
    throw new MatrixError((e as Error).message);
  }
  const [num, den] = decimalFraction(decimalOf(agentic['dram-utilization']!));
  const bytes = BigInt(availableMib) * 1_048_576n * num * BigInt(gpus);
  return Number(bytes / (den * BigInt(gpusPerNode) * 1_000_000_000n));
}

function hardwareInt(runner: string, runners: RunnerConfig, field: 'available-cpu-dram-mib' | 'gpus-per-node'): number {
  const value = runners.hardware?.[runner]?.[field];
  if (value === undefined) {
    const available = Object.keys(runners.hardware ?? {})
      .sort()
      .join(', ');
    throw new MatrixError(
      `Runner '${runner}' requires '${field}' in runner hardware metadata. Available hardware keys: ${available}`,
    );
  }
  return value;
}
