/**
 * The local db reset (stack/db.ts, reset()) through the real Supabase CLI: what a reset
 * leaves, what it clears that the CLI alone would keep (queue rows, the stand-ins' requests,
 * answers and secrets), and how a broken migration is reported.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";

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
  // pg_cron holds exactly the jobs the database declares, each as declared, and nothing else.
  const jobs = await query<{ jobname: string; schedule: string; command: string; active: boolean }>(
    "select jobname, schedule, command, active from cron.job order by jobname",
  );
  const declared = await query<{ name: string; schedule: string; command: string }>("select name, schedule, command from mdame.engine_jobs order by name");
  expect(declared.length).toBeGreaterThan(0);
  expect(jobs).toEqual(declared.map((d) => ({ jobname: d.name, schedule: d.schedule, command: d.command, active: true })));
}, 60_000);

test("a reset starts from empty queues, fresh pg_net and Vault stand-ins and this stack's wake secrets", async () => {
  await query("select pgmq.send('stage_tasks', '{\"left\": \"over\"}'::jsonb)");
  const standIns = !(await query<{ n: number }>("select count(*)::int as n from pg_extension where extname in ('pg_net', 'supabase_vault')"))[0]!.n;
  if (standIns) {
    await query("select net.http_post('http://127.0.0.1:9/left-over')");
    await query("insert into net._http_response (id, status_code) values (424242, 200)");
    await query("select vault.create_secret('left over', 'left_over')");
  }
  await db.reset(quiet);
  const [queued] = await query<{ n: number }>("select count(*)::int as n from pgmq.q_stage_tasks");
  expect(queued.n).toBe(0);
  // The Supabase CLI keeps schema vault and its rows; the reset installs the stand-ins afresh.
  const left = await query<{ n: number }>(`select (select count(*) from net.http_request_queue where url like '%left-over')
    + (select count(*) from net._http_response where id = 424242) + (select count(*) from vault.secrets where name = 'left_over') as n`);
  expect(Number(left[0]!.n)).toBe(0);
  const secrets = await query<{ name: string; decrypted_secret: string }>(
    "select name, decrypted_secret from vault.decrypted_secrets where name like 'mdame_%' order by name",
  );
  expect(secrets.map((s) => s.name)).toEqual(["mdame_functions_url", "mdame_service_role_key"]);
  expect(secrets[0]!.decrypted_secret).toBe(localStackEnv().FUNCTIONS_URL!);
  expect(await query("select to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is not null as ok")).toEqual([{ ok: true }]);
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
