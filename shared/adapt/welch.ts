/**
 * Welch's two-sample t-test, the noise check of every adaptive comparison: the difference of two
 * arms' means, its t statistic with the Welch-Satterthwaite degrees of freedom, and the two-sided
 * critical t at a given alpha (a normal quantile corrected for the degrees of freedom with the
 * Cornish-Fisher expansion, within 1% of the exact value from 4 degrees of freedom up).
 */

interface WelchResult {
  meanA: number;
  meanB: number;
  /** meanB - meanA. */
  difference: number;
  t: number;
  df: number;
}

export function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function variance(values: readonly number[], m: number): number {
  return values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1);
}

/** Null when an arm has fewer than two values. Equal means with no spread give t = 0. */
export function welch(a: readonly number[], b: readonly number[]): WelchResult | null {
  if (a.length < 2 || b.length < 2) return null;
  const meanA = mean(a);
  const meanB = mean(b);
  const va = variance(a, meanA) / a.length;
  const vb = variance(b, meanB) / b.length;
  const se = Math.sqrt(va + vb);
  const difference = meanB - meanA;
  if (se === 0) return { meanA, meanB, difference, t: difference === 0 ? 0 : Math.sign(difference) * Infinity, df: a.length + b.length - 2 };
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  return { meanA, meanB, difference, t: difference / se, df };
}

/** The standard normal quantile (Acklam's rational approximation, relative error under 1.2e-9). */
function normalQuantile(p: number): number {
  if (p <= 0 || p >= 1) throw new RangeError(`p must be in (0, 1), not ${p}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** |t| at or above this rejects "no difference" at two-sided `alpha` with `df` degrees of freedom. */
export function criticalT(alpha: number, df: number): number {
  const z = normalQuantile(1 - alpha / 2);
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3;
}
