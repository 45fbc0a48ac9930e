/**
 * The stage runner's pool (functions/pipeline/stage-pool.ts): claims ask for the free slots, so
 * they follow the backlog; a spent budget stops the claims, never the tasks already in flight.
 */
import { describe, expect, test } from "bun:test";
import { runPool } from "../../functions/pipeline/stage-pool.ts";

/** A queue of `backlog` tasks, each taking `runMs`; records every claim's size and the peak in flight. */
function fakeQueue(backlog: number, runMs = 5) {
  let left = backlog;
  let inFlight = 0;
  const seen = { claims: [] as number[], granted: [] as number[], peak: 0, finished: 0 };
  return {
    seen,
    push: (n: number) => (left += n),
    claim: async (n: number) => {
      seen.claims.push(n);
      const granted = Math.min(n, left);
      left -= granted;
      seen.granted.push(granted);
      return Array.from({ length: granted }, (_, i) => i);
    },
    run: async () => {
      inFlight++;
      seen.peak = Math.max(seen.peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, runMs));
      inFlight--;
      seen.finished++;
      return true;
    },
  };
}

describe("stage pool", () => {
  test("the first claim fills every slot, each later one asks for the slots that freed", async () => {
    const queue = fakeQueue(20);
    const result = await runPool({ concurrency: 4, claim: queue.claim, run: queue.run, mayClaim: () => true });
    expect(result).toEqual({ processed: 20, failed: 0, more: false });
    expect(queue.seen.claims[0]).toBe(4);
    expect(queue.seen.peak).toBe(4);
    for (const size of queue.seen.claims) expect(size).toBeGreaterThanOrEqual(1);
    for (const size of queue.seen.claims) expect(size).toBeLessThanOrEqual(4);
    // Every task claimed once, and the last claim found the queue empty.
    expect(queue.seen.granted.reduce((a, b) => a + b, 0)).toBe(20);
    expect(queue.seen.granted.at(-1)).toBe(0);
  });

  test("a short backlog is claimed in one call, then the queue is asked again only after a task finished", async () => {
    const queue = fakeQueue(3);
    const result = await runPool({ concurrency: 8, claim: queue.claim, run: queue.run, mayClaim: () => true });
    expect(result).toEqual({ processed: 3, failed: 0, more: false });
    // 8 asked, 3 granted; then after each finish, the free slots again (none left).
    expect(queue.seen.claims[0]).toBe(8);
    expect(queue.seen.granted[0]).toBe(3);
    expect(queue.seen.claims.length).toBeLessThanOrEqual(4);
  });

  test("work a finished task queues (its next stage) is claimed in the same drain", async () => {
    const queue = fakeQueue(2);
    let chained = 0;
    const run = async () => {
      const ok = await queue.run();
      if (chained++ < 2) queue.push(1);
      return ok;
    };
    const result = await runPool({ concurrency: 2, claim: queue.claim, run, mayClaim: () => true });
    expect(result).toEqual({ processed: 4, failed: 0, more: false });
  });

  test("a spent budget stops the claims, waits for the tasks in flight and answers more", async () => {
    const queue = fakeQueue(300, 2);
    let allowed = 3;
    const result = await runPool({ concurrency: 8, claim: queue.claim, run: queue.run, mayClaim: () => allowed-- > 0 });
    expect(result.more).toBe(true);
    expect(queue.seen.claims).toHaveLength(3);
    expect(result.processed).toBe(queue.seen.granted.reduce((a, b) => a + b, 0));
    expect(queue.seen.finished).toBe(result.processed);
  });

  test("failures are counted; a run that throws stops the claims and is rethrown after the others end", async () => {
    const queue = fakeQueue(10);
    let n = 0;
    const counted = await runPool({ concurrency: 3, claim: queue.claim, run: async () => (await queue.run()) && n++ % 2 === 0, mayClaim: () => true });
    expect(counted).toEqual({ processed: 10, failed: 5, more: false });

    const broken = fakeQueue(10);
    let started = 0;
    const run = async () => {
      if (started++ === 1) throw new Error("database gone");
      return broken.run();
    };
    await expect(runPool({ concurrency: 3, claim: broken.claim, run, mayClaim: () => true })).rejects.toThrow("database gone");
    expect(broken.seen.claims).toHaveLength(1);
    expect(broken.seen.finished).toBe(2);
  });
});
