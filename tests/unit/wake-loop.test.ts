import { expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createLogger } from "../../shared/logging/logger.ts";
import { createWakeLoop } from "../../stack/wake-loop.ts";

const FIVE_MINUTES = 5 * 60_000;
/** A loop with no pause would reach this long before five simulated minutes. */
const SPIN_GUARD = 10_000;

const tickAnswer = (more: boolean) =>
  Response.json({ tick: { recovery: { requeued: 0, failed: 0 }, dead_lettered: 0, runs_closed: 0, stage_tasks_visible: more ? 1 : 0 }, processed: 1, failed: 0, more });

/**
 * Runs a wake loop against `answer` over simulated time: sleeps advance the clock at once, and
 * every tick request (unless `wakesWith` says otherwise) brings another notification, as a busy
 * database does while it fails.
 */
async function simulate(answer: (call: number) => Response | Promise<Response>, wakesWith = (_call: number) => true) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  let clock = 0;
  let calls = 0;
  const loop = createWakeLoop({
    tickUrl: "http://edge.test/functions/v1/pipeline/tick",
    serviceRoleKey: "service-key",
    logger: createLogger("edge-host", destination),
    now: () => clock,
    random: () => 0.5,
    sleep: async (ms) => {
      clock += ms;
      if (clock >= FIVE_MINUTES) loop.stop();
    },
    fetch: (async () => {
      calls += 1;
      if (wakesWith(calls)) loop.wake("ingest");
      if (calls >= SPIN_GUARD) loop.stop();
      return await answer(calls);
    }) as unknown as typeof fetch,
  });
  loop.wake("listen");
  await loop.idle();
  return { calls, clock, lines };
}

test("a tick that keeps answering 500 is retried with backoff, not at once", async () => {
  const { calls, clock, lines } = await simulate(() => Response.json({ error: "internal error", error_id: "x" }, { status: 500 }));
  expect(clock).toBeGreaterThanOrEqual(FIVE_MINUTES);
  // 500 ms doubling to 30 s: some twenty attempts in five minutes, never thousands.
  expect(calls).toBeLessThan(40);
  expect(lines.filter((l) => l.msg === "tick failed")).toHaveLength(1);
  expect(lines.length).toBeLessThan(10);
});

test("a tick whose request throws is retried with backoff, not at once", async () => {
  const { calls, clock, lines } = await simulate(() => {
    throw new TypeError("error sending request: connection refused");
  });
  expect(clock).toBeGreaterThanOrEqual(FIVE_MINUTES);
  expect(calls).toBeLessThan(40);
  expect(lines.filter((l) => l.msg === "tick failed")).toHaveLength(1);
});

test("a tick that answers a broken body counts as a failure", async () => {
  const { calls } = await simulate(() => new Response("<html>bad gateway</html>", { status: 200 }));
  expect(calls).toBeLessThan(40);
});

test("after an outage the loop recovers, logs it once and drains while the pipeline has more", async () => {
  const { calls, lines } = await simulate((call) => {
    if (call <= 5) return Response.json({ error: "database unavailable" }, { status: 503 });
    // Three more passes with work left, then an empty queue.
    return tickAnswer(call < 9);
  }, (call) => call <= 5);
  expect(lines.map((l) => l.msg)).toEqual(["tick failed", "tick recovered after 5 failures"]);
  expect(calls).toBe(9);
});

test("wakes during a running tick fold into one more pass", async () => {
  let release!: () => void;
  let calls = 0;
  const loop = createWakeLoop({
    tickUrl: "http://edge.test/functions/v1/pipeline/tick",
    serviceRoleKey: "service-key",
    logger: createLogger("edge-host", new Writable({ write: (_c, _e, done) => done() })),
    fetch: (async () => {
      calls += 1;
      if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
      return tickAnswer(false);
    }) as unknown as typeof fetch,
  });
  loop.wake("listen");
  for (let i = 0; i < 100; i++) loop.wake("ingest");
  release();
  await loop.idle();
  expect(calls).toBe(2);
});
