/**
 * The local db reset (stack/db.ts, reset()) through the real Supabase CLI: what a reset
 * leaves, what it clears that the CLI alone would keep, and how a broken migration is reported.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";

const quiet = { log: () => {} };
const query = async <T extends Record<string, unknown>>(text: string): Promise<T[]> => {
  const sql = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
  try {
    return await sql.unsafe(text) as unknown as T[];
  } finally {
    await sql.end({ timeout: 2 });
  }
};

beforeAll(async () => {
  await db.ensureRunning(() => {});
}, 60_000);

afterAll(async () => {
  await db.reset(quiet);
}, 60_000);

test("a reset applies every migration through the Supabase CLI, then the seed, and leaves pgTAP in place", async () => {
  await db.reset(quiet);
  const files = readdirSync(join(paths.root, "supabase", "migrations")).filter((f) => f.endsWith(".sql")).sort();
  const recorded = await query<{ version: string; name: string }>("select version, name from supabase_migrations.schema_migrations order by version");
  expect(recorded.map((r) => `${r.version}_${r.name}.sql`)).toEqual(files);
  const [dimensions] = await query<{ n: number }>("select count(*)::int as n from mdame.dimensions");
  expect(dimensions.n).toBeGreaterThan(0);
  const [pgtap] = await query<{ n: number }>("select count(*)::int as n from pg_extension where extname = 'pgtap'");
  expect(pgtap.n).toBe(1);
  const jobs = await query<{ jobname: string }>("select jobname from cron.job order by jobname");
  expect(jobs.map((j) => j.jobname)).toEqual(["mdame-adapt-weekly", "mdame-alerts", "mdame-analytics-fetches", "mdame-housekeeping", "mdame-publish-drain", "mdame-scheduled-runs", "mdame-storage-deletions", "mdame-tick", "mdame-weekly-reports", "mdame-weekly-reports-retry"]);
}, 60_000);

test("a reset starts from empty queues and drops test shims, which the Supabase CLI alone would keep", async () => {
  await query("select pgmq.send('stage_tasks', '{\"left\": \"over\"}'::jsonb)");
  await db.applySqlFile(join(paths.root, "supabase", "tests", "shims", "vault.sql"));
  await db.applySqlFile(join(paths.root, "supabase", "tests", "shims", "pg_net.sql"));
  await db.reset(quiet);
  const [queued] = await query<{ n: number }>("select count(*)::int as n from pgmq.q_stage_tasks");
  expect(queued.n).toBe(0);
  // A vault or net schema left is the real extension's (a server with Supabase's extensions), never a shim's.
  const schemas = await query<{ nspname: string }>(`select nspname from pg_namespace n where nspname in ('vault', 'net')
    and not exists (select 1 from pg_depend d where d.classid = 'pg_namespace'::regclass and d.objid = n.oid and d.deptype = 'e')
    and not exists (select 1 from pg_extension e where e.extnamespace = n.oid)`);
  expect(schemas).toEqual([]);
}, 60_000);

test("a broken migration fails the reset with the file's name and Postgres's message", async () => {
  const project = mkdtempSync(join(tmpdir(), "mdame-reset-"));
  try {
    const supabaseDir = join(project, "supabase");
    cpSync(join(paths.root, "supabase"), supabaseDir, { recursive: true });
    writeFileSync(join(supabaseDir, "migrations", "29991231000000_broken.sql"), "select no_such_column from mdame.settings;\n");
    const error = await db.reset({ ...quiet, supabaseDir }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(db.SqlFileError);
    const failed = error as db.SqlFileError;
    expect(failed.file).toEndWith(join("supabase", "migrations", "29991231000000_broken.sql"));
    expect(failed.psqlOutput).toContain('column "no_such_column" does not exist');
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}, 60_000);
