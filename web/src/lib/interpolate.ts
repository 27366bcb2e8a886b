/**
 * Monotone cubic interpolation (Steffen's method, as d3.curveMonotoneX draws a frontier and the
 * reference dashboard reads values off it): the curve through the points never overshoots them,
 * so a value read between two measured points lies between their values. No extrapolation:
 * outside the measured x range there is no value.
 */
export function monotoneAt(xs: readonly number[], ys: readonly number[], x: number): number | undefined {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const px = order.map((i) => xs[i]!);
  const py = order.map((i) => ys[i]!);
  const n = px.length;
  if (n === 0 || x < px[0]! || x > px[n - 1]!) return undefined;
  if (n === 1) return Math.abs(x - px[0]!) < 1e-6 ? py[0] : undefined;
  const h = (i: number) => px[i + 1]! - px[i]!;
  const s = (i: number) => (py[i + 1]! - py[i]!) / h(i);
  const sign = (v: number) => (v > 0 ? 1 : v < 0 ? -1 : 0);
  const m = new Array<number>(n);
  for (let i = 1; i < n - 1; i++) {
    const p = (s(i - 1) * h(i) + s(i) * h(i - 1)) / (h(i - 1) + h(i));
    m[i] = (sign(s(i - 1)) + sign(s(i))) * Math.min(Math.abs(s(i - 1)), Math.abs(s(i)), 0.5 * Math.abs(p));
  }
  if (n === 2) m[0] = m[1] = s(0);
  else {
    m[0] = (3 * s(0) - m[1]!) / 2;
    m[n - 1] = (3 * s(n - 2) - m[n - 2]!) / 2;
  }
  // The interval holding x (binary search), then the cubic Hermite basis.
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (px[mid]! <= x) lo = mid;
    else hi = mid;
  }
  const width = px[hi]! - px[lo]!;
  if (width === 0) return py[lo];
  const t = (x - px[lo]!) / width;
  const t2 = t * t;
  const t3 = t2 * t;
  return (
    (2 * t3 - 3 * t2 + 1) * py[lo]! +
    (t3 - 2 * t2 + t) * width * m[lo]! +
    (-2 * t3 + 3 * t2) * py[hi]! +
    (t3 - t2) * width * m[hi]!
  );
}
