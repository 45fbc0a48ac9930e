import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { paths } from "../../stack/paths.ts";
import { FIRST_STACK_ONLY_TESTS, judge, MEDIA_INTEGRATION_TESTS, parseBunTest, WAITING_E2E_TESTS } from "../../scripts/test.ts";
import { longestFirst, nextJob, type PoolJob, readTimes, runPool, writeTimes } from "../../scripts/test-pool.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

/** What a test that reaches the database or the stack's fixed ports imports or names. */
const REACHES_DB_OR_STACK =
  /stack\/(db|supervisor|stack-control|stack-env|ports)\.ts|shared\/db\/|admin-sql|createSql|LOCAL_DB_URL|LOCAL_STACK|localStackEnv|startTestEmulator|edge-host/;

/** The project files a test file imports, itself included, following relative imports outside node_modules. */
function importedFiles(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !existsSync(file)) return seen;
  seen.add(file);
  for (const match of readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)) {
    const target = resolve(dirname(file), match[1]!);
    // Only test code: the engine's own modules are what the tests exercise, not how they connect.
    if (target.startsWith(join(paths.root, "tests"))) importedFiles(target, seen);
  }
  return seen;
}

describe("the integration files run beside the others", () => {
  test.each(MEDIA_INTEGRATION_TESTS)("%s exists and reaches neither the database nor the stack's ports", (file) => {
    const path = join(paths.root, file);
    expect(existsSync(path)).toBe(true);
    const reaching = [...importedFiles(path)].filter((f) => REACHES_DB_OR_STACK.test(readFileSync(f, "utf8")));
    expect(reaching).toEqual([]);
  });

  test("the check itself catches a file that reaches the database", () => {
    const reaching = [...importedFiles(join(paths.root, "tests", "integration", "hostile-input.test.ts"))].filter((f) =>
      REACHES_DB_OR_STACK.test(readFileSync(f, "utf8"))
    );
    expect(reaching.length).toBeGreaterThan(0);
  });
});

test("a run that exits non-zero with no failed test crashed, and counts as one failure", () => {
  const none = { passed: 3, failed: 0, skipped: 0 };
  expect(judge(1, none, "bun test")).toEqual({ passed: 3, failed: 1, skipped: 0, outcome: "crashed", note: "bun test exited with 1" });
  expect(judge(1, { ...none, failed: 2 }, "bun test")).toEqual({ passed: 3, failed: 2, skipped: 0, outcome: "failed" });
  expect(judge(0, none, "bun test")).toEqual({ ...none, outcome: "passed" });
});

test("bun test's closing counts are read from its last summary", () => {
  expect(parseBunTest(" 3 pass\n 1 fail\n...\n 12 pass\n 0 fail\n 2 skip\n")).toEqual({ passed: 12, failed: 0, skipped: 2 });
});

test("the files pinned to the first stack, and the waiting e2e files pinned to their own, exist", () => {
  for (const pinned of [...FIRST_STACK_ONLY_TESTS, ...WAITING_E2E_TESTS]) expect(existsSync(join(paths.root, pinned))).toBe(true);
});

describe("the pool of the database layers", () => {
  const A = { name: "A", hasStack: true };
  const media = { name: "media", hasStack: false };

  test("a lane takes the first job it may run: not one pinned elsewhere, not one needing a stack it lacks", () => {
    const queue = [{ needsStack: false }, { lane: "C", needsStack: true }, { needsStack: true }];
    expect(nextJob(queue, A)).toBe(2);
    expect(nextJob(queue, { name: "C", hasStack: true })).toBe(1);
    expect(nextJob(queue, media)).toBe(0);
    expect(nextJob([{ lane: "A", needsStack: true }], media)).toBe(-1);
    // A stack lane with nothing that needs it takes what needs none.
    expect(nextJob([{ lane: "C", needsStack: true }, { needsStack: false }], A)).toBe(1);
  });

  test("a lane kept for pinned jobs takes only those; the others still take what is pinned to none", () => {
    const D = { name: "D", hasStack: true, pinnedOnly: true };
    expect(nextJob([{ needsStack: true }, { needsStack: false }], D)).toBe(-1);
    expect(nextJob([{ needsStack: true }, { lane: "D", needsStack: true }], D)).toBe(1);
    expect(nextJob([{ lane: "D", needsStack: true }, { needsStack: true }], A)).toBe(1);
  });

  test("the queue is longest first, equal ones in their order", () => {
    const jobs = [{ name: "a", expected: 20 }, { name: "b", expected: 400 }, { name: "c", expected: 20 }, { name: "d", expected: 90 }];
    expect(longestFirst(jobs).map((j) => j.name)).toEqual(["b", "d", "a", "c"]);
  });

  test("every job runs once, on a lane it may run on, each lane one job at a time", async () => {
    const running = new Map<string, number>();
    const ran: { job: string; lane: string }[] = [];
    const make = (name: string, expected: number, extra: Partial<PoolJob<string>> = {}): PoolJob<string> => ({
      name,
      expected,
      needsStack: true,
      ...extra,
      run: async (lane) => {
        running.set(lane.name, (running.get(lane.name) ?? 0) + 1);
        expect(running.get(lane.name)).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, expected));
        running.set(lane.name, running.get(lane.name)! - 1);
        ran.push({ job: name, lane: lane.name });
        return `${name} on ${lane.name}`;
      },
    });
    const jobs = [
      make("long", 60),
      make("pinned", 5, { lane: "A" }),
      make("render", 10, { needsStack: false }),
      ...Array.from({ length: 6 }, (_, i) => make(`file-${i}`, 3)),
    ];
    const starts: string[] = [];
    const finished = await runPool(jobs, [A, { name: "B", hasStack: true }, media], { onStart: (job) => starts.push(job.name) });
    expect(finished.map((f) => f.job.name).sort()).toEqual(jobs.map((j) => j.name).sort());
    expect(ran.find((r) => r.job === "pinned")!.lane).toBe("A");
    expect(ran.filter((r) => r.lane === "media").map((r) => r.job)).toEqual(["render"]);
    // The long job started first, on A; the short ones ran on B meanwhile, the pinned one on A after it.
    expect(starts[0]).toBe("long");
    expect(ran.filter((r) => r.lane === "A").map((r) => r.job)).toEqual(["long", "pinned"]);
    expect(finished.every((f) => f.result === `${f.job.name} on ${f.lane.name}` && f.seconds >= 0)).toBe(true);
  });

  test("a job no lane may run is refused before anything starts", async () => {
    let started = false;
    const job: PoolJob<null> = { name: "x", expected: 1, needsStack: true, run: async () => (started = true, null) };
    await expect(runPool([job], [media])).rejects.toThrow("no lane may run x");
    expect(started).toBe(false);
  });

  test("times are kept per job over the last run's, and a broken file reads as none", () => {
    const dir = mkdtempSync(join(tmpdir(), "mdame-times-"));
    try {
      const file = join(dir, "times.json");
      expect(readTimes(file)).toEqual({});
      writeTimes(file, { a: 12.345, b: 3 });
      writeTimes(file, { b: 4.04 });
      expect(readTimes(file)).toEqual({ a: 12.3, b: 4 });
      writeFileSync(file, "{not json");
      expect(readTimes(file)).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("each test file's wall time", () => {
  test("runs from its header line to the next header or the end, hooks included, across chunks", async () => {
    const { FileClock, slowestFiles } = await import("../../scripts/test.ts");
    const clock = new FileClock();
    clock.feed("bun test v1\n\ntests/integration/alerts.te", 0);
    clock.feed("st.ts:\n(pass) x [1.00ms]\n", 10);
    clock.feed("\n./tests/integration/render.test.ts:\n", 4010);
    clock.feed("(pass) y [2.00ms]\n 2 pass\n", 5000);
    clock.close(6010);
    expect([...clock.seconds]).toEqual([["tests/integration/alerts.test.ts", 4], ["tests/integration/render.test.ts", 2]]);
    expect(slowestFiles(clock.seconds, 1)).toEqual(["    4.0 s  tests/integration/alerts.test.ts"]);
  });
});
