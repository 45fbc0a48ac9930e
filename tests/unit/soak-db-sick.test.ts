/**
 * The soak's sick-database fault, without a database: its window is drawn from the seed, lasts
 * 2–4 minutes of a 15-minute day (the same share of a shorter one) and ends by the middle of the
 * day; the rejecting pg_hba.conf keeps the local socket open; the log lines of a window are
 * counted by their own times, or by where they were written, and the logins the server refused
 * by role; failures it causes are explained.
 */
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sickHba } from "../../scripts/soak/db-fault.ts";
import { explains, type Failure } from "../../scripts/soak/explain.ts";
import { lineTime, logOffsets, windowLogLines } from "../../scripts/soak/log-window.ts";
import { makePlan, sickWindowRange } from "../../scripts/soak/plan.ts";

const sickFaults = (seed: number, days: number, daySeconds: number) => makePlan(seed, days, 2, daySeconds).faults.filter((f) => f.kind === "db_sick");

test("the sick window is drawn from the seed: the same seed gives the same window, seeds differ", () => {
  expect(sickFaults(5, 3, 900)).toEqual(sickFaults(5, 3, 900));
  const windows = new Set(Array.from({ length: 20 }, (_, seed) => sickFaults(seed, 3, 900).map((f) => `${f.day}/${f.at_s}/${f.for_s}`).join()));
  expect(windows.size).toBeGreaterThan(10);
});

test("every soak has a sick database once, short ones exactly once, long ones now and then more", () => {
  for (const days of [1, 2, 3, 6]) for (const seed of [1, 2, 3]) expect(sickFaults(seed, days, 600)).toHaveLength(1);
  const long = sickFaults(7, 60, 900);
  expect(long.length).toBeGreaterThan(1);
  // Never twice in a day: each would stretch it by minutes.
  expect(new Set(long.map((f) => f.day)).size).toBe(long.length);
});

test("it lasts 2-4 minutes of a 15-minute day, the same share of a shorter day, and no more for a longer one", () => {
  expect(sickWindowRange(900)).toEqual({ min: 120, max: 240 });
  expect(sickWindowRange(3600)).toEqual({ min: 120, max: 240 });
  expect(sickWindowRange(600)).toEqual({ min: 80, max: 160 });
  expect(sickWindowRange(300)).toEqual({ min: 40, max: 80 });
  expect(sickWindowRange(60)).toEqual({ min: 8, max: 16 });
  const drawn = new Set<number>();
  for (let seed = 0; seed < 200; seed++) {
    for (const f of sickFaults(seed, 2, 900)) {
      expect(f.for_s!).toBeGreaterThanOrEqual(120);
      expect(f.for_s!).toBeLessThanOrEqual(240);
      drawn.add(f.for_s!);
    }
  }
  expect(drawn.size).toBeGreaterThan(50);
});

test("the window starts after the day's trigger and ends by the middle of the day, for every day length", () => {
  for (const daySeconds of [60, 61, 90, 120, 240, 300, 360, 600, 900, 1800, 3600]) {
    const { min, max } = sickWindowRange(daySeconds);
    for (let seed = 0; seed < 25; seed++) {
      for (const f of sickFaults(seed, 3, daySeconds)) {
        expect(f.for_s!).toBeGreaterThanOrEqual(min);
        expect(f.for_s!).toBeLessThanOrEqual(max);
        expect(f.at_s).toBeGreaterThanOrEqual(2);
        expect({ daySeconds, ends: f.at_s + f.for_s! <= Math.floor(daySeconds / 2) }).toEqual({ daySeconds, ends: true });
        expect(f.label).toContain(`for ${f.for_s} s`);
      }
    }
  }
});

test("the sick pg_hba.conf keeps the local socket's lines and rejects every TCP client", () => {
  const healthy = [
    "# TYPE DATABASE USER ADDRESS METHOD",
    "local   all             all                                     peer",
    "host    all             all             127.0.0.1/32            scram-sha-256",
    "host    all             all             ::1/128                 scram-sha-256",
    "local   replication     all                                     peer",
    "host    replication     all             127.0.0.1/32            scram-sha-256",
  ].join("\n");
  const rules = sickHba(healthy).split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#")).map((l) => l.split(/\s+/));
  expect(rules.filter((r) => r[0] === "local").map((r) => r.join(" "))).toEqual(["local all all peer", "local replication all peer"]);
  expect(rules.filter((r) => r[0] !== "local")).toEqual([["host", "all", "all", "0.0.0.0/0", "reject"], ["host", "all", "all", "::/0", "reject"]]);
});

const dir = mkdtempSync(join(tmpdir(), "mdame-soak-logs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a window's lines are counted per component by their own times, or by where they were written", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s)).toISOString();
  const pino = (s: number, msg: string) => `${JSON.stringify({ level: 50, time: at(s), component: "pipeline", msg })}\n`;
  const pgLine = (s: number, user = "mdame_engine") =>
    `${
      at(s).replace("T", " ").replace("Z", "")
    } UTC [42] FATAL:  pg_hba.conf rejects connection for host "127.0.0.1", user "${user}", database "postgres", no encryption\n`;
  const from = Date.parse(at(10));
  const until = Date.parse(at(40));
  writeFileSync(join(dir, "edge.log"), pino(5, "before"));
  writeFileSync(join(dir, "supervisor.log"), "[stack] db ready (pid 1)\n");
  writeFileSync(join(dir, "db.log"), pgLine(1));
  const opened = logOffsets(dir);
  appendFileSync(join(dir, "edge.log"), pino(11, "tick request failed") + pino(12, "tick request failed") + "Uncaught error without a time\n");
  appendFileSync(join(dir, "gpu-worker.log"), pino(20, "queue read failed"));
  appendFileSync(join(dir, "supervisor.log"), "[stack] edge exited (signal SIGKILL); restart #1 in 0.5 s\n");
  appendFileSync(join(dir, "db.log"), pgLine(15) + pgLine(16) + pgLine(17, "postgres"));
  const closed = logOffsets(dir);
  // Written after the window closed: stamped inside it (still in a pipe at the close), or not.
  appendFileSync(join(dir, "edge.log"), pino(39, "late but inside") + pino(45, "after") + "untimed, after\n");
  appendFileSync(join(dir, "supervisor.log"), "[stack] after the window\n");
  const lines = windowLogLines(dir, { ms: from, offsets: opened }, { ms: until, offsets: closed }, 0.2);
  expect(lines.per_component).toEqual({ db: 3, edge: 4, "gpu-worker": 1, supervisor: 1 });
  expect(lines.engine_total).toBe(6);
  expect(lines.seconds).toBe(30);
  expect(lines.engine_per_s).toBe(0.2);
  expect(lines.within_ceiling).toBe(true);
  // The server's own count of the logins it refused meanwhile, per role.
  expect(lines.refused_logins).toEqual({ mdame_engine: 2, postgres: 1 });
  expect(lines.engine_logins_per_s).toBe(0.07);
  expect(windowLogLines(dir, { ms: from, offsets: opened }, { ms: until, offsets: closed }, 0.1).within_ceiling).toBe(false);
  // A pool knocking faster than the login ceiling fails the window too, however quiet its log.
  expect(windowLogLines(dir, { ms: from, offsets: opened }, { ms: until, offsets: closed }, 0.2, 0.05).within_ceiling).toBe(false);
  expect(statSync(join(dir, "edge.log")).size).toBeGreaterThan(closed.edge!);
});

test("the times log lines carry: pino, the emulators, Postgres, the supervisor's markers; none otherwise", () => {
  expect(lineTime('{"level":30,"time":"2026-12-01T17:53:21.057Z","msg":"x"}')).toBe(Date.parse("2026-12-01T17:53:21.057Z"));
  expect(lineTime('{"level":30,"time":1764611601057,"msg":"x"}')).toBe(1764611601057);
  expect(lineTime('{"ts":"2026-12-01T17:53:21.487Z","service":"storage"}')).toBe(Date.parse("2026-12-01T17:53:21.487Z"));
  expect(lineTime("2026-12-01 17:53:21.622 UTC [10245] LOG:  checkpoint complete")).toBe(Date.parse("2026-12-01T17:53:21.622Z"));
  expect(lineTime("--- 2026-12-01T17:53:21.633Z exited (code 0) after 147.4 s")).toBe(Date.parse("2026-12-01T17:53:21.633Z"));
  expect(lineTime("[stack] stopping db (pid 10241)")).toBeNull();
  expect(lineTime('{"msg":"no time"}')).toBeNull();
  expect(lineTime("{not json")).toBeNull();
});

test("a failure the sick database caused is explained by it while it lasted and shortly after, not later", () => {
  const failure: Failure = {
    kind: "unit",
    id: "u",
    day: 1,
    dimension_id: "d",
    stage: "render",
    error: "render: deadline passed after 2 attempt(s)",
    started_at: "2026-12-01T10:00:00Z",
    failed_at: "2026-12-01T10:04:00Z",
  };
  const fault = {
    id: "d1-f3",
    day: 0,
    kind: "db_sick" as const,
    label: "",
    planned_at_s: 20,
    injected_at: "2026-12-01T10:01:00Z",
    active_until: "2026-12-01T10:03:00Z",
    note: null,
    rearmed: 0,
  };
  expect(explains(fault, failure)).toBe(true);
  expect(explains(fault, { ...failure, stage: "ingest", error: 'pg_hba.conf rejects connection for host "127.0.0.1"' })).toBe(true);
  expect(explains(fault, { ...failure, error: "safety: the verdict was unsafe" })).toBe(false);
  expect(explains(fault, { ...failure, started_at: "2026-12-01T11:00:00Z", failed_at: "2026-12-01T11:05:00Z" })).toBe(false);
});

test('an answer that says "please" is not a lost lease: a rate-limit error is not explained by a restart', () => {
  const failure: Failure = {
    kind: "ingest",
    id: "r/d",
    day: 1,
    dimension_id: "d",
    stage: "ingest",
    error:
      'Gemini safety classifier answered 429: {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}',
    started_at: "2026-12-01T10:00:00Z",
    failed_at: "2026-12-01T10:00:20Z",
  };
  const restart = {
    id: "d1-f10",
    day: 0,
    kind: "pg_restart" as const,
    label: "",
    planned_at_s: 2,
    injected_at: "2026-12-01T10:00:02Z",
    active_until: "2026-12-01T10:00:02Z",
    note: null,
    rearmed: 0,
  };
  expect(explains(restart, failure)).toBe(false);
  expect(explains({ ...restart, kind: "db_sick" }, failure)).toBe(false);
  expect(explains({ ...restart, kind: "llm_rate_limited" }, failure)).toBe(true);
  expect(explains(restart, { ...failure, error: "ingest: the lease ran out" })).toBe(true);
});
