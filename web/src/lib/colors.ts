/**
 * One colour per series, the same on every page and every load: the hardware picks the hue family
 * (NVIDIA greens to teals, AMD reds to oranges, others blues), the engine a hue within that family, the
 * precision the lightness.
 */
const HARDWARE_HUE: Record<string, number> = {
  h100: 95,
  h200: 130,
  b200: 160,
  b300: 180,
  gb200: 200,
  gb300: 220,
  mi300x: 0,
  mi325x: 20,
  mi355x: 340,
  cpu: 270,
};

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function seriesColor(hardware: string, framework: string, precision: string): string {
  const base = HARDWARE_HUE[hardware] ?? 240 + (hash(hardware) % 60);
  // Engines of one hardware sit up to 45° apart in hue; precisions differ in lightness.
  const hue = (base + ((hash(framework) % 7) - 3) * 15 + 360) % 360;
  const lightness = 34 + (hash(precision) % 3) * 12;
  return `hsl(${hue}, 65%, ${lightness}%)`;
}
