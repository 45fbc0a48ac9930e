/**
 * The scale bench's figures: percentiles, lateness, concurrency, and the last line it prints.
 * Pure, so the unit tests hold the arithmetic and the line's format.
 */

/**
 * The p-th percentile (0-100) of `values` by linear interpolation between closest ranks (numpy's
 * default); null for an empty list.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`a percentile is from 0 to 100, got ${p}`);
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Wall seconds from a dimension's due moment to its unit's publication, less the media workers' time. */
export function lateness(dueWallMs: number, publishedWallMs: number, mediaMs: number): number {
  return Math.max(0, (publishedWallMs - dueWallMs - mediaMs) / 1000);
}

/** The most intervals open at once; an interval without an end is open until `endMs`. */
export function maxConcurrent(intervals: readonly { start: number; end: number | null }[], endMs: number): number {
  const points: [number, number][] = [];
  for (const { start, end } of intervals) {
    points.push([start, 1], [end ?? endMs, -1]);
  }
  // An end and a start at the same instant do not overlap.
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, delta] of points) {
    open += delta;
    most = Math.max(most, open);
  }
  return most;
}

export interface ScaleFigures {
  dimensions: number;
  units: number;
  published: number;
  failed: number;
  late_p50_s: number | null;
  late_p99_s: number | null;
  max_concurrent_runs: number;
  transitions_per_s: number;
  edge_cpu_p99_ms: number | null;
  edge_cpu_max_ms: number | null;
  db_cpu_ms_per_unit: number | null;
}

const shown = (value: number | null, digits: number) => (value === null || !Number.isFinite(value) ? "na" : value.toFixed(digits));

/** The bench's last line, every figure named; `na` where nothing was measured. */
export function summaryLine(f: ScaleFigures): string {
  return [
    `dimensions=${f.dimensions}`,
    `units=${f.units}`,
    `published=${f.published}`,
    `failed=${f.failed}`,
    `late_p50_s=${shown(f.late_p50_s, 1)}`,
    `late_p99_s=${shown(f.late_p99_s, 1)}`,
    `max_concurrent_runs=${f.max_concurrent_runs}`,
    `transitions_per_s=${shown(f.transitions_per_s, 2)}`,
    `edge_cpu_p99_ms=${shown(f.edge_cpu_p99_ms, 0)}`,
    `edge_cpu_max_ms=${shown(f.edge_cpu_max_ms, 0)}`,
    `db_cpu_ms_per_unit=${shown(f.db_cpu_ms_per_unit, 0)}`,
  ].join(" ");
}

/** What summaryLine prints, as a pattern: a test and the block writer both hold it. */
export const SUMMARY_LINE = new RegExp(
  "^dimensions=\\d+ units=\\d+ published=\\d+ failed=\\d+ late_p50_s=(?:\\d+\\.\\d|na) late_p99_s=(?:\\d+\\.\\d|na) " +
    "max_concurrent_runs=\\d+ transitions_per_s=(?:\\d+\\.\\d\\d|na) edge_cpu_p99_ms=(?:\\d+|na) edge_cpu_max_ms=(?:\\d+|na) db_cpu_ms_per_unit=(?:\\d+|na)$",
);
