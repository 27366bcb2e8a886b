import type { Hardware } from './catalog.js';

/**
 * Nominal one-direction bandwidth between one GPU and host memory (GB/s), the link a KV-cache
 * offload to DRAM runs over; the engine reaches `efficiency.network` of it.
 * - Grace-Hopper/Blackwell superchips (gb200, gb300): NVLink-C2C, 900 GB/s both directions,
 *   450 each (https://www.nvidia.com/en-us/data-center/gb200-nvl72/).
 * - Everything else here (H100/H200/B200/B300 SXM, MI300X/MI325X/MI355X OAM): PCIe 5.0 x16,
 *   32 GT/s × 16 lanes ≈ 64 GB/s each direction (https://pcisig.com/pci-express-50).
 */
export function hostLinkGBps(hardware: Pick<Hardware, 'id'>): number {
  return /^gb\d/.test(hardware.id) ? 450 : 64;
}
