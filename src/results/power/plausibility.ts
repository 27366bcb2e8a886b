/**
 * Frontier's plausibility bounds on single-node telemetry (the reference has none): a reading above
 * what the GPU's board can draw, or a GPU id that is not one of the node's GPUs, is corrupt
 * telemetry, not a measurement. The caller knows the node (`frontier run` from the cluster, the
 * command lines from RUNNER_TYPE or `--gpu`); the hardware catalog gives its board power.
 */
import { PyFloat } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';

/** The node a telemetry file was sampled on. */
export interface NodeBounds {
  /** The GPU, as named to the step (for the sidecar). */
  gpu: string;
  /** The vendor's maximum board power (TDP / total board power), watts. */
  boardPowerW: number;
  /** GPUs on the node: valid indices are 0 … gpusPerNode − 1. */
  gpusPerNode: number;
}

/**
 * How far above board power a reading may go and still count as a measurement: 50 %. Readings
 * averaged over ~1 s (nvidia-smi `power.draw`, amd-smi `socket_power`) stay at or below the power
 * limit, but instantaneous ones (`power.draw.instant`, hwmon `power1_input`) can overshoot it for
 * milliseconds when a load step arrives before the power controller reacts. Half as much again is
 * beyond any such overshoot a sampler can catch, and far below what corrupt telemetry gives (a
 * milliwatt/watt mix-up is 1000×).
 */
export const BOARD_POWER_TRANSIENT_MARGIN = 0.5;

/** The highest reading accepted from a GPU of this node. */
export const maxPlausiblePowerW = (node: NodeBounds): number => node.boardPowerW * (1 + BOARD_POWER_TRANSIENT_MARGIN);

/** What is wrong with a GPU id (after `strip()`), if anything: `0`, `1`, … below the node's GPU count. */
export function gpuIdProblem(id: string, node: NodeBounds): 'gpu_index_not_canonical' | 'gpu_index_out_of_range' | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(id)) return 'gpu_index_not_canonical';
  return Number(id) >= node.gpusPerNode ? 'gpu_index_out_of_range' : undefined;
}

/** The first telemetry row refused for each plausibility reason: where to look (1-based data row). */
export interface RejectedRow {
  reason: string;
  row: number;
  gpu: string;
  powerW: number;
}

/** The sidecar's `plausibility`: the bounds applied and the first row each reason refused. */
export function plausibilityJson(node: NodeBounds, rejected: readonly RejectedRow[]): Map<string, PyJson> {
  return new Map<string, PyJson>([
    ['gpu', node.gpu],
    ['board_power_w', new PyFloat(node.boardPowerW)],
    ['max_plausible_power_w', new PyFloat(maxPlausiblePowerW(node))],
    ['gpus_per_node', node.gpusPerNode],
    [
      'first_rejected_rows',
      rejected.map(
        (r) =>
          new Map<string, PyJson>([
            ['reason', r.reason],
            ['row', r.row],
            ['gpu', r.gpu],
            ['power_w', new PyFloat(r.powerW)],
          ]),
      ),
    ],
  ]);
}
