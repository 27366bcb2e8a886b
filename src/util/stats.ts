/**
 * The statistics verdicts rest on: sample mean and standard deviation, Student's t distribution
 * (for intervals and tests with few samples), and Benjamini–Hochberg's false-discovery-rate
 * adjustment across many tests. Exact to ~1e-10, with no dependencies.
 */

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The sample standard deviation (n − 1); null for fewer than two values. */
export function sampleStd(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the regularized incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-14) break;
  }
  return h;
}

/** I_x(a, b), the regularized incomplete beta function. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df = Infinity: the normal distribution). */
export function studentCdf(t: number, df: number): number {
  if (!Number.isFinite(df)) return normalCdf(t);
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The two-sided p-value of a t statistic. */
export const twoSidedP = (t: number, df: number): number => Math.min(1, 2 * studentCdf(-Math.abs(t), df));

/** The standard normal CDF (erfc by its continued-fraction-free rational approximation, |error| < 1.2e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** The p-quantile of Student's t with `df` degrees of freedom (bisection on the CDF; df ≥ 1). */
export function studentQuantile(p: number, df: number): number {
  if (p <= 0 || p >= 1) throw new RangeError(`a quantile needs 0 < p < 1, got ${p}`);
  if (p < 0.5) return -studentQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The 95% confidence interval of the mean of `xs` (Student's t, n − 1 df); null for fewer than two values. */
export function meanInterval(xs: readonly number[], level = 0.95): [number, number] | null {
  const s = sampleStd(xs);
  if (s === null) return null;
  const m = mean(xs);
  const half = studentQuantile(1 - (1 - level) / 2, xs.length - 1) * (s / Math.sqrt(xs.length));
  return [m - half, m + half];
}

/** Welch–Satterthwaite degrees of freedom of two samples' variances of the mean (v = s²/n). */
export function welchDf(v1: number, n1: number, v2: number, n2: number): number {
  const num = (v1 + v2) ** 2;
  const den = v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1);
  return den === 0 ? Infinity : num / den;
}

/**
 * Benjamini–Hochberg adjusted p-values (q-values), in the input's order: a test is a discovery at
 * false discovery rate α when its q ≤ α. Valid for independent or positively dependent tests.
 */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const q = new Array<number>(m);
  let running = 1;
  for (let k = m - 1; k >= 0; k--) {
    const [p, i] = order[k]!;
    running = Math.min(running, (p * m) / (k + 1));
    q[i] = running;
  }
  return q;
}
