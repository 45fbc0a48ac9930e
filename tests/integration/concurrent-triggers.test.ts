/**
 * Duplicate triggers: however many arrive at once for the same day and key, one run exists; a
 * different key arriving at the same time for the same dimensions and day finds that run (start_run
 * passes take the environment's lock one at a time), never a second run.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSql, type Sql } from "../../shared/db/client.ts";
import { runKey } from "../../shared/hashing.ts";
import * as db from "../../stack/db.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

// The triggers run as the components do (the engine role); the counts read the tables as the superuser.
const admin = adminSql();

let sql: Sql;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  sql = createSql(localStackEnv().DB_URL, { max: 50, application: "mdame-it-triggers" });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

test("50 concurrent triggers with the same key make one run", async () => {
  const key = await runKey("dev", today, "manual", {});
  const results = await Promise.all(
    Array.from({ length: 50 }, () => sql`select * from mdame.start_run(${key}, 'dev', 'manual', ${today}::date, null)`.then((rows) => rows[0])),
  );
  expect(results.filter((r) => r.created).length).toBe(1);
  expect(new Set(results.map((r) => r.run_id)).size).toBe(1);
  const [runs] = await admin`select count(*)::int as n from mdame.pipeline_runs`;
  expect(runs.n).toBe(1);
  const [dims] = await admin`select count(*)::int as n from mdame.dimensions where active`;
  const [ingest] = await admin`select count(*)::int as n from pgmq.q_stage_tasks where message->>'stage' = 'ingest'`;
  expect(ingest.n).toBe(dims.n);
}, 60_000);

test("cron and manual triggers racing on the same day leave one run and refuse none", async () => {
  await db.reset({ log: () => {} });
  const keys = { cron: await runKey("dev", today, "cron", {}), manual: await runKey("dev", today, "manual", {}) };
  const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => {
    const kind = i % 2 === 0 ? "cron" : "manual";
    return sql`select * from mdame.start_run(${keys[kind]}, 'dev', ${kind}, ${today}::date, null)`
      .then((rows) => ({ ok: true as const, run_id: rows[0].run_id as string }))
      .catch((error: { code?: string }) => ({ ok: false as const, code: error.code }));
  }));
  const [runs] = await admin`select count(*)::int as n from mdame.pipeline_runs`;
  expect(runs.n).toBe(1);
  expect(outcomes.filter((o) => !o.ok)).toEqual([]);
  expect(new Set(outcomes.filter((o) => o.ok).map((o) => o.ok && o.run_id)).size).toBe(1);
}, 60_000);

test("50 concurrent keyless triggers, cron and manual, make one run and refuse none", async () => {
  await db.reset({ log: () => {} });
  const outcomes = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      sql`select * from mdame.trigger_run('dev', ${i % 2 === 0 ? "cron" : "manual"}, ${today}::date, null)`
        .then((rows) => ({ ok: true as const, run_id: rows[0].run_id as string, created: rows[0].created as boolean }))
        .catch((error: { code?: string }) => ({ ok: false as const, code: error.code }))),
  );
  expect(outcomes.every((o) => o.ok)).toBe(true);
  expect(new Set(outcomes.map((o) => o.ok && o.run_id)).size).toBe(1);
  expect(outcomes.filter((o) => o.ok && o.created)).toHaveLength(1);
  const [runs] = await admin`select count(*)::int as n from mdame.pipeline_runs`;
  expect(runs.n).toBe(1);
}, 60_000);
