/**
 * The soak's plan is a function of its seed (the same seed replays the same soak), covers every
 * fault kind, gives each day new topics, and its arguments are checked with clear messages.
 */
import { expect, test } from "bun:test";
import { UsageError } from "../../scripts/script-args.ts";
import { parseSoakArgs } from "../../scripts/soak/args.ts";
import { explains, type Failure } from "../../scripts/soak/explain.ts";
import { FAULT_KINDS, makePlan } from "../../scripts/soak/plan.ts";
import { titleSimilarity } from "../../shared/topics/near-duplicate.ts";

test("the same seed gives the same plan; another seed another one", () => {
  expect(makePlan(42, 5, 4, 600)).toEqual(makePlan(42, 5, 4, 600));
  expect(makePlan(43, 5, 4, 600).faults).not.toEqual(makePlan(42, 5, 4, 600).faults);
});

test("every fault kind is injected at least once, even in a one-day soak", () => {
  for (const days of [1, 3, 30]) {
    const kinds = new Set(makePlan(7, days, 2, 600).faults.map((f) => f.kind));
    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
  }
});

test("dimensions differ in subject, and every day brings new titles for each", () => {
  const plan = makePlan(9, 10, 10, 600);
  expect(new Set(plan.dimensions.map((d) => d.subject)).size).toBe(10);
  for (const d of plan.dimensions) {
    expect(d.daily_limit).toBeGreaterThanOrEqual(1);
    expect(d.daily_limit).toBeLessThanOrEqual(2);
    const titles = plan.topics.flatMap((day) => day[d.id]!.map((t) => t.title));
    expect(titles.length).toBe(40);
    // Consecutive days never repeat a topic closely enough for the engine to call it the same.
    for (let i = 4; i < titles.length; i++) {
      for (const earlier of titles.slice(Math.max(0, i - 8), i - (i % 4))) expect(titleSimilarity(titles[i]!, earlier)).toBeLessThan(0.5);
    }
  }
});

test("bad arguments are refused with a message naming the option and its range", () => {
  const bad: [string[], RegExp][] = [
    [["--dimensions", "2", "--seed", "1"], /--days is required/],
    [["--days", "0", "--dimensions", "2", "--seed", "1"], /--days must be from 1 to 60, got 0/],
    [["--days", "3", "--dimensions", "11", "--seed", "1"], /--dimensions must be from 1 to 10/],
    [["--days", "3", "--dimensions", "2", "--seed=-4"], /--seed must be a whole number/],
    [["--days", "2.5", "--dimensions", "2", "--seed", "1"], /--days must be a whole number/],
    [["--days", "3", "--dimensions", "2", "--seed", "1", "--speed", "9"], /speed/],
  ];
  for (const [args, message] of bad) {
    expect(() => parseSoakArgs(args)).toThrow(UsageError);
    expect(() => parseSoakArgs(args)).toThrow(message);
  }
  expect(parseSoakArgs(["--days", "30", "--dimensions", "5", "--seed", "7"])).toEqual({
    days: 30,
    dimensions: 5,
    seed: 7,
    daySeconds: 900,
    outDir: "out/soak",
  });
});

test("a failure is explained only by a fault in force at the time, in a stage it reaches, with an error like its effect", () => {
  const failure: Failure = {
    kind: "unit",
    id: "u",
    day: 1,
    dimension_id: "d",
    stage: "publish",
    error: "publish: upload: YouTube answered 503: backendError",
    started_at: "2026-12-01T10:00:00Z",
    failed_at: "2026-12-01T10:02:00Z",
  };
  const fault = {
    id: "f",
    day: 0,
    kind: "upload_outage" as const,
    label: "",
    planned_at_s: 0,
    injected_at: "2026-12-01T09:59:59Z",
    active_until: "2026-12-01T10:15:00Z",
    note: null,
    rearmed: 0,
  };
  expect(explains(fault, failure)).toBe(true);
  expect(explains({ ...fault, injected_at: "2026-12-01T10:03:00Z" }, failure)).toBe(false);
  expect(explains({ ...fault, kind: "llm_outage" }, failure)).toBe(false);
  expect(explains({ ...fault, kind: "upload_rate_limited" }, failure)).toBe(false);
  expect(explains({ ...fault, kind: "kill" }, { ...failure, error: "render: deadline passed after 3 attempt(s)", stage: "render" })).toBe(true);
});

test("a spent quota explains no failure: a unit that fails for quota instead of waiting is unexplained", () => {
  const failure: Failure = {
    kind: "unit",
    id: "u",
    day: 1,
    dimension_id: "d",
    stage: "publish",
    error: "publish: start upload session: YouTube answered 403: The request cannot be completed because you have exceeded your quota.",
    started_at: "2026-12-01T10:00:00Z",
    failed_at: "2026-12-01T10:02:00Z",
  };
  const fault = {
    id: "f",
    day: 0,
    kind: "quota_exhausted" as const,
    label: "",
    planned_at_s: 0,
    injected_at: "2026-12-01T09:59:59Z",
    active_until: "2026-12-01T10:15:00Z",
    note: null,
    rearmed: 0,
  };
  expect(explains(fault, failure)).toBe(false);
});

test("a revoked grant is planned at a day's first second, for one of the soak's dimensions, and explains no failure", () => {
  const plan = makePlan(11, 14, 5, 600);
  const revocations = plan.faults.filter((f) => f.kind === "token_revoked");
  expect(revocations.length).toBeGreaterThanOrEqual(1);
  const ids = new Set(plan.dimensions.map((d) => d.id));
  for (const fault of revocations) {
    expect(fault.at_s).toBe(0);
    expect(ids.has(fault.dimension!)).toBe(true);
    expect(fault.label).toContain(fault.dimension!);
  }
  const failure: Failure = {
    kind: "unit",
    id: "u",
    day: 1,
    dimension_id: "d",
    stage: "publish",
    error: "publish: YouTube token: invalid_grant: Token has been expired or revoked.",
    started_at: "2026-12-01T10:00:00Z",
    failed_at: "2026-12-01T10:02:00Z",
  };
  const fault = {
    id: "f",
    day: 0,
    kind: "token_revoked" as const,
    label: "",
    planned_at_s: 0,
    injected_at: "2026-12-01T09:59:59Z",
    active_until: "2026-12-01T09:59:59Z",
    note: null,
    rearmed: 0,
  };
  expect(explains(fault, failure)).toBe(false);
});
