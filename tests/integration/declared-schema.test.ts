/**
 * The declared schema (supabase/schemas, docs/reference/sql-layout.md) builds the same mdame schema as the
 * migrations: same tables, functions, privileges, rows, pg_cron jobs and pgmq queues.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { LOCAL_STACK } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";
import { describe as describeDiff, diffDatabases, FROM_DECLARED, FROM_MIGRATIONS, isEmpty, schemaDiff, type SchemaDiff } from "../../scripts/sql/schema-diff.ts";
import { dropDatabase } from "../../scripts/sql/scratch-databases.ts";

let diff: SchemaDiff;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  diff = await schemaDiff({ keep: true });
}, 120_000);

afterAll(async () => {
  await dropDatabase(FROM_MIGRATIONS);
  await dropDatabase(FROM_DECLARED);
});

test("the declared schema builds what the migrations build", () => {
  // On failure the message lists each differing object; docs/reference/sql-layout.md says how to fix it.
  if (!isEmpty(diff)) throw new Error(`supabase/schemas differs from supabase/migrations:\n${describeDiff(diff)}`);
  expect(isEmpty(diff)).toBe(true);
});

test("a changed function body, a changed grant and a missing seeded row are each reported by name", async () => {
  const sql = postgres({ host: LOCAL_STACK.host, port: LOCAL_STACK.dbPort, user: "postgres", password: "postgres", database: FROM_DECLARED, max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`
      create or replace function mdame.stage_index(p_stage text) returns integer language sql immutable set search_path = '' as $$ select 0 $$;
      revoke execute on function mdame.tick() from service_role;
      delete from mdame.youtube_call_costs where call_kind = 'videos.update';`);
  } finally {
    await sql.end({ timeout: 2 });
  }
  const changed = await diffDatabases(FROM_MIGRATIONS, FROM_DECLARED);
  expect(isEmpty(changed)).toBe(false);
  expect(changed.migraObjects.some((line) => /function mdame\.stage_index\(/i.test(line))).toBe(true);
  expect(changed.other).toContain("function mdame.tick() privileges: migrations mdame_engine=X/postgres service_role=X/postgres | declared mdame_engine=X/postgres");
  expect(changed.other.some((line) => line.startsWith("rows of mdame.youtube_call_costs") && line.includes("videos.update"))).toBe(true);
}, 60_000);
