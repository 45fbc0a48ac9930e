import { describe, expect, test } from "bun:test";
import { parseProcStat, requestCpuFromLog } from "../../scripts/bench/scale/cpu.ts";
import { lateness, maxConcurrent, percentile, SUMMARY_LINE, summaryLine } from "../../scripts/bench/scale/figures.ts";

describe("percentile", () => {
  test("interpolates between closest ranks", () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10, 1, 5], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBeCloseTo(9.91, 10);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([3, 1, 2], 0)).toBe(1);
    expect(percentile([3, 1, 2], 100)).toBe(3);
  });

  test("is null for nothing, and refuses a percentile out of range", () => {
    expect(percentile([], 50)).toBeNull();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe("lateness and concurrency", () => {
  test("lateness leaves out the media workers' time and is never negative", () => {
    expect(lateness(1_000, 31_000, 10_000)).toBe(20);
    expect(lateness(1_000, 2_000, 5_000)).toBe(0);
  });

  test("the most runs open at once; an unfinished run is open to the end", () => {
    expect(maxConcurrent([], 10)).toBe(0);
    expect(maxConcurrent([{ start: 0, end: 5 }, { start: 5, end: 9 }], 10)).toBe(1);
    expect(maxConcurrent([{ start: 0, end: 5 }, { start: 4, end: 9 }, { start: 4.5, end: null }], 10)).toBe(3);
    expect(maxConcurrent([{ start: 0, end: 1 }, { start: 8, end: null }, { start: 9, end: 12 }], 10)).toBe(2);
  });
});

describe("the last line", () => {
  const figures = {
    dimensions: 100,
    units: 100,
    published: 98,
    failed: 2,
    late_p50_s: 12.34,
    late_p99_s: 80.06,
    max_concurrent_runs: 7,
    transitions_per_s: 3.456,
    edge_cpu_p99_ms: 180.4,
    edge_cpu_max_ms: 911.6,
    db_cpu_ms_per_unit: 412.5,
  };

  test("names every figure in order", () => {
    expect(summaryLine(figures)).toBe(
      "dimensions=100 units=100 published=98 failed=2 late_p50_s=12.3 late_p99_s=80.1 max_concurrent_runs=7 transitions_per_s=3.46 edge_cpu_p99_ms=180 edge_cpu_max_ms=912 db_cpu_ms_per_unit=413",
    );
    expect(summaryLine(figures)).toMatch(SUMMARY_LINE);
  });

  test("says na for what was not measured, and the pattern holds it", () => {
    const line = summaryLine({
      ...figures,
      published: 0,
      late_p50_s: null,
      late_p99_s: null,
      edge_cpu_p99_ms: null,
      edge_cpu_max_ms: null,
      db_cpu_ms_per_unit: null,
    });
    expect(line).toContain("late_p50_s=na late_p99_s=na");
    expect(line).toMatch(SUMMARY_LINE);
    expect("dimensions=1 units=1").not.toMatch(SUMMARY_LINE);
  });
});

describe("the CPU readings", () => {
  test("a /proc stat line, a command with spaces and parentheses included", () => {
    const line = "4242 (postgres: mdame (x) idle) S 4000 4242 4242 0 -1 4194560 300 0 0 0 150 25 10 5 20 0 1 0 100 0 0";
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4000, cpuMs: 1900 });
  });

  test("cpu_ms of the per-request lines only", () => {
    const log = [
      JSON.stringify({ level: 30, msg: "request", path: "/functions/v1/pipeline/tick", cpu_ms: 41.5 }),
      JSON.stringify({ level: 30, msg: "ready" }),
      'not json "cpu_ms"',
      JSON.stringify({ level: 30, msg: "request", cpu_ms: 7 }),
    ].join("\n");
    expect(requestCpuFromLog(log)).toEqual([41.5, 7]);
  });
});
