import { expect, test } from "bun:test";
import { Writable } from "node:stream";
import { FailureLog } from "../../shared/logging/failure-log.ts";
import { createLogger } from "../../shared/logging/logger.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger("test", destination) };
}

test("a streak of one repeated failure logs its first occurrence, one summary per interval and the recovery", () => {
  const { lines, logger } = capture();
  let now = 0;
  const log = new FailureLog(logger, { subject: "tick", summaryIntervalMs: 60_000, now: () => now });
  // Five minutes of failures every 100 ms: 3,000 attempts.
  for (let i = 0; i < 3_000; i++) {
    log.failed(new Error("connection refused"));
    now += 100;
  }
  log.succeeded();
  expect(lines.map((l) => l.msg)).toEqual([
    "tick failed",
    "tick still failing",
    "tick still failing",
    "tick still failing",
    "tick still failing",
    "tick recovered after 3000 failures",
  ]);
  expect(lines[1]!.repeats).toBe(600);
  expect(lines.at(-1)!.failures).toBe(3_000);
});

test("each distinct failure of a streak is logged once", () => {
  const { lines, logger } = capture();
  const log = new FailureLog(logger, { subject: "queue read", now: () => 0 });
  for (let i = 0; i < 10; i++) {
    log.failed(new Error("connection refused"));
    log.failed("HTTP 503: unavailable", { status: 503 });
  }
  expect(lines.map((l) => l.msg)).toEqual(["queue read failed", "queue read failed"]);
  expect(lines[1]!.error).toBe("HTTP 503: unavailable");
  expect(lines[1]!.status).toBe(503);
});

test("success without a streak logs nothing, and a new streak logs its failure again", () => {
  const { lines, logger } = capture();
  const log = new FailureLog(logger, { subject: "listen", now: () => 0 });
  log.succeeded();
  expect(lines).toHaveLength(0);
  log.failed(new Error("down"));
  log.succeeded();
  log.failed(new Error("down"));
  expect(lines.map((l) => l.msg)).toEqual(["listen failed", "listen recovered after 1 failure", "listen failed"]);
});
