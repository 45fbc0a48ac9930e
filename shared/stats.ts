/**
 * The `q` quantile (0..1) of `values`, interpolated linearly between the two nearest ranks
 * (`quantile(v, 0.5)` is the median: the mean of the middle two when their count is even).
 * NaN for no values.
 */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}
