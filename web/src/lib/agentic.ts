/**
 * What the agentic page draws, computed without a browser: one series per configuration (config
 * and KV offloading), its points in concurrency order; the labels of TTFT's context-length buckets.
 */
import { configLabel } from '../../../src/contract/index.js';
import type { AgenticPointRow, TtftBucket } from '../../../src/contract/index.js';
import { seriesColor } from './colors.js';

export interface AgenticSeries {
  key: string;
  name: string;
  color: string;
  /** A run drawn over the official points. */
  overlay: boolean;
  /** Concurrency ascending. */
  points: AgenticPointRow[];
}

/** "none", or "dram (vllm-simple, 1024 GB)". */
export function offloadLabel(r: Pick<AgenticPointRow, 'kv_offloading' | 'kv_offload_backend' | 'allocated_cpu_dram_gb'>): string {
  if (r.kv_offloading === 'none') return 'no KV offload';
  const detail = [r.kv_offload_backend, r.allocated_cpu_dram_gb > 0 ? `${r.allocated_cpu_dram_gb} GB` : ''].filter(Boolean);
  return `KV offload ${r.kv_offloading}${detail.length ? ` (${detail.join(', ')})` : ''}`;
}

export function agenticSeries(rows: AgenticPointRow[], overlay = false): AgenticSeries[] {
  const out = new Map<string, AgenticSeries>();
  for (const r of rows) {
    const key = `${overlay ? 'run' : 'official'}:${r.config_id}:${r.kv_offloading}:${r.kv_offload_backend}:${r.allocated_cpu_dram_gb}`;
    let s = out.get(key);
    if (!s) {
      const name = `${configLabel(r)} · ${offloadLabel(r)}${overlay ? ` · run ${r.run_id}` : ''}`;
      const color = offloadShade(seriesColor(r.hardware, r.framework, r.precision), r.kv_offloading !== 'none');
      out.set(key, (s = { key, name, color, overlay, points: [] }));
    }
    s.points.push(r);
  }
  for (const s of out.values()) s.points.sort((a, b) => a.conc - b.conc);
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The series colour of the config (as on every page); an offload arm of it in a lighter, shifted shade beside it. */
function offloadShade(hsl: string, offloaded: boolean): string {
  const m = /^hsl\((\d+(?:\.\d+)?), (\d+)%, (\d+)%\)$/.exec(hsl);
  if (!offloaded || !m) return hsl;
  return `hsl(${(Number(m[1]) + 40) % 360}, ${m[2]}%, ${Math.min(Number(m[3]) + 14, 70)}%)`;
}

const tokens = (n: number): string => (n >= 1 << 20 ? `${n / (1 << 20)}M` : n >= 1024 ? `${n / 1024}k` : String(n));

/** "<8k", "8k–16k", …: a bucket of input lengths. */
export function contextLabel(b: Pick<TtftBucket, 'min_tokens' | 'max_tokens'>): string {
  return b.min_tokens === 0 ? `<${tokens(b.max_tokens)}` : `${tokens(b.min_tokens)}–${tokens(b.max_tokens)}`;
}

/** Every bucket any of the tables has, in order: the shared x axis. */
export function contextBuckets(tables: TtftBucket[][]): TtftBucket[] {
  const seen = new Map<number, TtftBucket>();
  for (const t of tables) for (const b of t) if (!seen.has(b.min_tokens)) seen.set(b.min_tokens, b);
  return [...seen.values()].sort((a, b) => a.min_tokens - b.min_tokens);
}
