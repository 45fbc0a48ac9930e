/**
 * The orchestration benchmark at a small size against the real Postgres: every unit moves from
 * safety to plan exactly once through the engine's RPCs, no message is handed out twice, the
 * figures are real numbers, and the engine is empty afterwards. Speed is not asserted here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import process from "node:process";
import postgres from "postgres";
import {
  assertBaselineChecks,
  assertTransitionChecks,
  type ModeResult,
  type QueueBenchResult,
  runQueueTransitionBenchmark,
  type TransitionChecks,
} from "../../scripts/bench/queue-transitions.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";

const JOBS = 200;
const CONSUMERS = 4;
const BATCH = 5;

let result: QueueBenchResult;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  result = await runQueueTransitionBenchmark({ jobs: JOBS, consumers: CONSUMERS, batchSize: BATCH, log: () => {} });
}, 180_000);

afterAll(async () => {
  // The benchmark resets after itself; this covers a failure half-way.
  await db.reset({ log: () => {} });
}, 60_000);

function expectEveryUnitMovedOnce(mode: ModeResult) {
  expect(mode.checks).toEqual({
    claims: JOBS,
    distinctClaims: JOBS,
    unitsAtPlan: JOBS,
    unitsElsewhere: 0,
    planTasksQueued: JOBS,
    planTasksDistinctUnits: JOBS,
    safetyTasksLeft: 0,
    safetyAuditRows: JOBS,
    safetyAuditDistinctUnits: JOBS,
    safetyArchived: JOBS,
    safetyArchivedReadOnce: JOBS,
  });
  expect(mode.baselineChecks).toEqual({ claims: JOBS, distinctClaims: JOBS, left: 0, archived: JOBS, archivedReadOnce: JOBS });
}

function expectRealFigures(mode: ModeResult) {
  for (const phase of [mode.transitions, mode.baseline]) {
    expect(phase.completed).toBe(JOBS);
    for (const value of [phase.wallS, phase.perSecond, phase.p50Ms, phase.p99Ms]) {
      expect(Number.isFinite(value)).toBe(true);
      expect(value).toBeGreaterThan(0);
    }
    expect(phase.p99Ms).toBeGreaterThanOrEqual(phase.p50Ms);
    if (process.platform === "linux") expect(phase.serverCpuMsPerMessage).toBeGreaterThan(0);
    else expect(phase.serverCpuMsPerMessage).toBeNull();
  }
  expect(mode.ratio).toBeCloseTo(mode.transitions.perSecond / mode.baseline.perSecond, 10);
}

describe("queue transition benchmark", () => {
  test("claims of one message: every unit moves from safety to plan exactly once", () => {
    expect(result.single.claimQty).toBe(1);
    expectEveryUnitMovedOnce(result.single);
    expectRealFigures(result.single);
  });

  test("claims of several messages: the same, each message completed by its own call", () => {
    expect(result.batched?.claimQty).toBe(BATCH);
    expectEveryUnitMovedOnce(result.batched!);
    expectRealFigures(result.batched!);
  });

  test("the section for docs/reports/benchmarks.md names the target and carries both claim sizes", () => {
    const text = result.markdown.join("\n");
    expect(result.markdown[0]).toBe("## Orchestration: stage transitions");
    expect(text).toContain("at least 1,000 transitions/s and at least half the raw baseline");
    expect(text).toMatch(result.targetMet ? /\*\*met\*\*/ : /\*\*not met\*\*/);
    expect(result.markdown.filter((line) => /^\| (1|5) /.test(line))).toHaveLength(2);
    expect(result.targetMet).toBe(result.single.targetMet);
  });

  test("the engine is empty afterwards", async () => {
    const sql = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`
        select (select count(*) from mdame.work_units)::int as units,
               (select count(*) from pgmq.q_stage_tasks)::int as tasks,
               (select count(*) from pgmq.meta where queue_name = 'bench_raw')::int as raw_queues`;
      expect(row).toEqual({ units: 0, tasks: 0, raw_queues: 0 });
    } finally {
      await sql.end();
    }
  });

  test("the checks refuse a run where a unit did not move or a message was handed out twice", () => {
    const good: TransitionChecks = { ...result.single.checks };
    expect(() => assertTransitionChecks(good, JOBS)).not.toThrow();
    expect(() => assertTransitionChecks({ ...good, unitsAtPlan: JOBS - 1, unitsElsewhere: 1 }, JOBS)).toThrow(/unitsAtPlan = 199/);
    expect(() => assertTransitionChecks({ ...good, claims: JOBS + 1 }, JOBS)).toThrow(/claims = 201/);
    expect(() => assertTransitionChecks({ ...good, safetyArchivedReadOnce: JOBS - 1 }, JOBS)).toThrow(/safetyArchivedReadOnce/);
    expect(() => assertBaselineChecks({ ...result.single.baselineChecks, left: 1 }, JOBS)).toThrow(/left = 1/);
  });
});
