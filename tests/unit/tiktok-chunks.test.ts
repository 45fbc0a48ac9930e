/**
 * TikTok's chunk rules (shared/providers/tiktok/chunks.ts) over a table of sizes: every layout
 * planChunks returns holds to the Media Transfer Guide under either reading of "MB", and a video
 * too large for 1000 chunks is refused.
 */
import { describe, expect, test } from "bun:test";
import {
  type ChunkPlan,
  ChunkPlanError,
  DEFAULT_CHUNK_SIZE,
  MAX_CHUNK_COUNT,
  MAX_CHUNK_SIZE,
  MAX_FINAL_CHUNK_SIZE,
  MAX_VIDEO_SIZE,
  MIN_CHUNK_SIZE,
  planChunks,
} from "../../shared/providers/tiktok/chunks.ts";

const MiB = 1024 * 1024;

/** Every rule of the guide, checked against the plan. */
function expectValid(plan: ChunkPlan, videoSize: number) {
  expect(plan.videoSize).toBe(videoSize);
  expect(plan.totalChunkCount).toBe(Math.floor(videoSize / plan.chunkSize));
  expect(plan.totalChunkCount).toBeGreaterThanOrEqual(1);
  expect(plan.totalChunkCount).toBeLessThanOrEqual(MAX_CHUNK_COUNT);
  expect(plan.ranges).toHaveLength(plan.totalChunkCount);
  if (videoSize < MIN_CHUNK_SIZE) {
    expect(plan.chunkSize).toBe(videoSize);
  } else {
    expect(plan.chunkSize).toBeGreaterThanOrEqual(MIN_CHUNK_SIZE);
  }
  expect(plan.chunkSize).toBeLessThanOrEqual(MAX_CHUNK_SIZE);
  if (videoSize > 64_000_000) expect(plan.totalChunkCount).toBeGreaterThan(1);
  // Contiguous, in order, covering every byte once; all but the last exactly chunk_size.
  let next = 0;
  plan.ranges.forEach((range, i) => {
    expect(range.index).toBe(i);
    expect(range.first).toBe(next);
    const size = range.last - range.first + 1;
    if (i < plan.ranges.length - 1) expect(size).toBe(plan.chunkSize);
    else {
      expect(size).toBeGreaterThanOrEqual(plan.chunkSize);
      expect(size).toBeLessThan(2 * plan.chunkSize);
      expect(size).toBeLessThanOrEqual(MAX_FINAL_CHUNK_SIZE);
    }
    next = range.last + 1;
  });
  expect(next).toBe(videoSize);
}

describe("the bounds hold under both readings of MB", () => {
  test("5 MB minimum is 5 MiB (at least 5 000 000); 64 MB and 128 MB maxima are decimal (at most 64 MiB and 128 MiB)", () => {
    expect(MIN_CHUNK_SIZE).toBe(5 * MiB);
    expect(MIN_CHUNK_SIZE).toBeGreaterThanOrEqual(5_000_000);
    expect(MAX_CHUNK_SIZE).toBe(64_000_000);
    expect(MAX_CHUNK_SIZE).toBeLessThanOrEqual(64 * MiB);
    expect(MAX_FINAL_CHUNK_SIZE).toBe(128_000_000);
    expect(MAX_FINAL_CHUNK_SIZE).toBeLessThanOrEqual(128 * MiB);
    expect(MAX_VIDEO_SIZE).toBe(64_063_999_999);
  });
});

describe("planChunks", () => {
  const table: { name: string; size: number; chunkSize: number; count: number; lastSize: number }[] = [
    { name: "1 byte", size: 1, chunkSize: 1, count: 1, lastSize: 1 },
    { name: "4.99 MB", size: 4_990_000, chunkSize: 4_990_000, count: 1, lastSize: 4_990_000 },
    { name: "5 MB decimal, under 5 MiB: whole", size: 5_000_000, chunkSize: 5_000_000, count: 1, lastSize: 5_000_000 },
    { name: "exactly 5 MiB", size: 5 * MiB, chunkSize: 5 * MiB, count: 1, lastSize: 5 * MiB },
    { name: "5 MiB + 1", size: 5 * MiB + 1, chunkSize: 5 * MiB + 1, count: 1, lastSize: 5 * MiB + 1 },
    { name: "the guide's example, 50 000 123 bytes", size: 50_000_123, chunkSize: 10_000_000, count: 5, lastSize: 10_000_123 },
    { name: "64 MB", size: 64_000_000, chunkSize: DEFAULT_CHUNK_SIZE, count: 6, lastSize: 14_000_000 },
    { name: "64 MB + 1", size: 64_000_001, chunkSize: DEFAULT_CHUNK_SIZE, count: 6, lastSize: 14_000_001 },
    { name: "64 MiB", size: 64 * MiB, chunkSize: DEFAULT_CHUNK_SIZE, count: 6, lastSize: 64 * MiB - 50_000_000 },
    { name: "130 MB", size: 130_000_000, chunkSize: DEFAULT_CHUNK_SIZE, count: 13, lastSize: 10_000_000 },
    { name: "1 GiB", size: 1024 * MiB, chunkSize: DEFAULT_CHUNK_SIZE, count: 107, lastSize: 1024 * MiB - 106 * DEFAULT_CHUNK_SIZE },
    // 10 GB at 10 MB would be 1000 chunks exactly; 10 GB + 10 MB needs a larger chunk.
    { name: "10 GB: 1000 chunks of the default", size: 10_000_000_000, chunkSize: DEFAULT_CHUNK_SIZE, count: 1000, lastSize: 10_000_000 },
    {
      name: "10.01 GB: chunk raised past the default",
      size: 10_010_000_000,
      chunkSize: 10_000_000 + 1,
      count: 1000,
      lastSize: 10_010_000_000 - 999 * 10_000_001,
    },
    { name: "the largest allowed", size: MAX_VIDEO_SIZE, chunkSize: MAX_CHUNK_SIZE, count: 1000, lastSize: 127_999_999 },
  ];
  for (const row of table) {
    test(row.name, () => {
      const plan = planChunks(row.size);
      expectValid(plan, row.size);
      expect(plan.chunkSize).toBe(row.chunkSize);
      expect(plan.totalChunkCount).toBe(row.count);
      const last = plan.ranges.at(-1)!;
      expect(last.last - last.first + 1).toBe(row.lastSize);
    });
  }

  test("one byte more than the largest allowed is refused with a clear error", () => {
    const refused = (() => {
      try {
        planChunks(MAX_VIDEO_SIZE + 1);
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(ChunkPlanError);
    expect((refused as Error).message).toContain("1000 chunks");
  });

  test("no size or an impossible one is refused", () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => planChunks(size)).toThrow(ChunkPlanError);
    expect(() => planChunks(10, 0)).toThrow(ChunkPlanError);
  });

  test("a preferred chunk size is clamped to 5 MiB..64 MB, and lowered to a video that fits in one chunk", () => {
    expect(planChunks(200_000_000, 1_000_000).chunkSize).toBe(MIN_CHUNK_SIZE);
    expect(planChunks(200_000_000, 100_000_000).chunkSize).toBe(MAX_CHUNK_SIZE);
    expect(planChunks(100_000_001, MAX_CHUNK_SIZE)).toMatchObject({ chunkSize: 50_000_000, totalChunkCount: 2 });
    expect(planChunks(30_000_000, 50_000_000)).toMatchObject({ chunkSize: 30_000_000, totalChunkCount: 1 });
    for (const preferred of [1, MIN_CHUNK_SIZE, 7_777_777, MAX_CHUNK_SIZE, 10 ** 9]) {
      for (const size of [MIN_CHUNK_SIZE, 64_000_001, 127_999_999, 128_000_001, 3 * 10 ** 9]) expectValid(planChunks(size, preferred), size);
    }
  });
});
