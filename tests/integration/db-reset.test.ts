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
import { TEMPLATE_PREFIX } from "../../stack/db-template.ts";
import { VAULT_SECRETS } from "../../stack/supabase-extensions.ts";

/** These tests are about the reset through the CLI: the template is used only where a test says so. */
const quiet = { log: () => {}, fromTemplate: false };
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

test("a reset starts from empty queues, fresh pg_net and Vault stand-ins and this stack's Vault secrets", async () => {
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
  // Every secret the stack's environment sets (the Telegram emulator's bot for the watchdog among them).
  const env = localStackEnv();
  expect(secrets.map((s) => s.name)).toEqual(VAULT_SECRETS.filter((s) => (env[s.env] ?? "") !== "").map((s) => s.name).sort());
  expect(secrets.map((s) => s.name)).toContain("mdame_telegram_bot_token");
  expect(secrets.find((s) => s.name === "mdame_functions_url")?.decrypted_secret).toBe(env.FUNCTIONS_URL!);
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

/**
 * What a reset leaves, as one digest: routines (source and grants), relations, cron jobs,
 * extensions, the privileges on the database and its settings, seed rows, Vault secrets.
 */
const LEFT_BY_A_RESET = `
select md5(string_agg(x, E'\n' order by x)) as digest, count(*)::int as items from (
  select format('%s.%s(%s) %s %s', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid), md5(p.prosrc), p.proacl) as x
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema')
  union all select format('%s.%s %s %s', n.nspname, c.relname, c.relkind, c.relacl)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
  union all select format('cron %s %s %s %s %s', jobname, schedule, command, database, active) from cron.job
  union all select format('extension %s %s', extname, extversion) from pg_extension
  union all select format('database acl %s', datacl) from pg_database where datname = current_database()
  union all select format('setting %s', array_to_string(setconfig, ','))
    from pg_db_role_setting where setrole = 0 and setdatabase = (select oid from pg_database where datname = current_database())
  union all select format('dimension %s %s', id, md5((select jsonb_object_agg(key, value) from jsonb_each(to_jsonb(d)) where key not like '%\\_at' escape '\\')::text))
    from mdame.dimensions d
  union all select format('secret %s %s', name, decrypted_secret) from vault.decrypted_secrets
) left_by_a_reset`;

test("a reset from the template leaves what a reset through the CLI leaves, pg_cron's scheduler running on it", async () => {
  await db.reset(quiet);
  const [throughCli] = await query<{ digest: string; items: number }>(LEFT_BY_A_RESET);
  expect(throughCli!.items).toBeGreaterThan(200);

  // The first reset that asks for the template builds it; the next copies it back.
  await db.reset({ ...quiet, fromTemplate: true });
  expect(await query(LEFT_BY_A_RESET)).toEqual([throughCli]);
  const templates = await query<{ datname: string; datallowconn: boolean; datistemplate: boolean }>(
    `select datname, datallowconn, datistemplate from pg_database where datname like '${TEMPLATE_PREFIX}%'`,
  );
  expect(templates.map((t) => ({ ...t, datname: t.datname.slice(0, TEMPLATE_PREFIX.length) }))).toEqual([
    { datname: TEMPLATE_PREFIX, datallowconn: false, datistemplate: true },
  ]);

  await query("select pgmq.send('stage_tasks', '{\"left\": \"over\"}'::jsonb)");
  await query("update mdame.dimensions set daily_limit = daily_limit + 1");
  await db.reset({ ...quiet, fromTemplate: true });
  expect(await query(LEFT_BY_A_RESET)).toEqual([throughCli]);
  expect(await query("select count(*)::int as n from pgmq.q_stage_tasks")).toEqual([{ n: 0 }]);
  // pg_cron's scheduler leaves with the database it was connected to; the copy restarts the server.
  expect(await query("select count(*)::int as n from pg_stat_activity where backend_type = 'pg_cron launcher'")).toEqual([{ n: 1 }]);
  // The components still log in with their own passwords.
  const engine = postgres(localStackEnv().DB_URL!, { max: 1 });
  try {
    expect([...await engine`select current_user as role`]).toEqual([{ role: "mdame_engine" }]);
  } finally {
    await engine.end({ timeout: 2 });
  }
}, 120_000);
