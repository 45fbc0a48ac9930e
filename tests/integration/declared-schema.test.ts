/**
 * The declared schema (supabase/schemas, docs/reference/sql-layout.md) builds the same mdame schema as the
 * migrations: same tables, functions, privileges, rows, pg_cron jobs and pgmq queues.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, sep } from "node:path";
import * as db from "../../stack/db.ts";
import {
  describe as describeDiff,
  diffDatabases,
  FROM_DECLARED,
  FROM_MIGRATIONS,
  isEmpty,
  type SchemaDiff,
  schemaDiff,
  writeMigration,
} from "../../scripts/sql/schema-diff.ts";
import { dropDatabase, scratchSql, SUPABASE_DIR } from "../../scripts/sql/scratch-databases.ts";

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
  const sql = scratchSql(FROM_DECLARED);
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
  expect(changed.other).toContain(
    "function mdame.tick() privileges: migrations mdame_engine=X/postgres service_role=X/postgres | declared mdame_engine=X/postgres",
  );
  expect(changed.other.some((line) => line.startsWith("rows of mdame.youtube_call_costs") && line.includes("videos.update"))).toBe(true);
}, 60_000);

test("--write turns a declared change into the next migration, and the migrations then build the declared schema", async () => {
  // A copy of supabase/ whose declared schema gained a changed function, a new table with a row, a
  // changed and a new row of existing tables, a new engine job and a new queue.
  const dir = mkdtempSync(join(tmpdir(), "mdame-schema-write-"));
  try {
    cpSync(SUPABASE_DIR, dir, { recursive: true, filter: (src) => !src.includes(`${sep}.temp`) });
    const edit = (file: string, from: string, to: string) => {
      const path = join(dir, file);
      const text = readFileSync(path, "utf8");
      if (!text.includes(from)) throw new Error(`${file} no longer holds ${from}`);
      writeFileSync(path, text.replace(from, to));
    };
    edit("schemas/mdame/functions/engine_job_function.sql", "where j.name = p_name;", "where j.name = p_name limit 1;");
    edit("schemas/mdame/tables/engine_jobs.sql", "  ('mdame-tick',", "  ('mdame-probe', '0 0 1 1 *', 'mdame.tick()', 'false'),\n  ('mdame-tick',");
    edit("schemas/mdame/tables/stage_policies.sql", "('voice', '3', '180', '15', '900')", "('voice', '4', '180', '15', '900')");
    edit("schemas/mdame/queues.sql", "select pgmq.create('render');", "select pgmq.create('render');\nselect pgmq.create('probe_queue');");
    writeFileSync(
      join(dir, "schemas", "mdame", "tables", "probe_notes.sql"),
      [
        "create table mdame.probe_notes (id integer not null, note text not null, constraint probe_notes_pkey primary key (id));",
        "alter table mdame.probe_notes enable row level security;",
        "insert into mdame.probe_notes (id, note) values (1, 'it''s declared') on conflict do nothing;",
        "",
      ].join("\n"),
    );
    const before = readdirSync(join(dir, "migrations")).length;

    const lines: string[] = [];
    const written = await writeMigration("probe_change", (line) => lines.push(line), dir);
    // The second diff, after the file is written, finds nothing left.
    expect({ code: written.code, last: lines.at(-1) }).toEqual({ code: 0, last: expect.stringContaining("no differences: with ") });
    expect(readdirSync(join(dir, "migrations")).length).toBe(before + 1);
    expect(written.file).toMatch(/migrations\/\d{14}_probe_change\.sql$/);
    const text = readFileSync(written.file!, "utf8");
    for (
      const part of [
        "mdame.engine_job_function",
        "mdame.probe_notes",
        "insert into mdame.probe_notes",
        "delete from mdame.stage_policies",
        "pgmq.create('probe_queue')",
        "cron.schedule",
        "select mdame.restrict_function_privileges();",
      ]
    ) {
      expect(text).toContain(part);
    }
    // The new file comes last, so the Supabase CLI applies it after every landed migration.
    expect(readdirSync(join(dir, "migrations")).sort().at(-1)).toBe(basename(written.file!));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(FROM_MIGRATIONS);
    await dropDatabase(FROM_DECLARED);
  }
}, 240_000);
