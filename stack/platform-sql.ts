/**
 * SQL the local stack's db reset runs around the Supabase CLI (stack/db.ts, reset()):
 * before it, what a Supabase project has before its first migration; after it, what the CLI drops
 * and the tests need.
 */

/**
 * Other sessions are ended first: the reset drops what they hold locks on (the edge host's listener,
 * a worker's connection). The database itself is kept rather than dropped and recreated: pg_cron's
 * scheduler is connected to it and, once terminated, is not restarted until the server restarts.
 */
export const TERMINATE_SESSIONS = `
select count(pg_terminate_backend(pid, 5000)) from pg_stat_activity
where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`;

/**
 * The database's own settings, which live outside it (pg_db_role_setting) and so are not carried
 * by a copy of it (stack/db-template.ts): `extensions` on the search path, as on Supabase.
 */
export const DATABASE_SETTINGS_SQL = `
do $$
begin
  execute format('alter database %I set search_path to "$user", public, extensions', current_database());
end $$;`;

/**
 * What Supabase has before any migration: pg_cron, the `extensions` schema on the search path, and
 * the API roles that migrations grant to. The Supabase CLI keeps schema vault whoever owns it (on
 * Supabase it is Vault's) and drops schema net unless pg_net owns it. Here a vault or net schema
 * that no extension owns or lives in is a stand-in (PLATFORM_STAND_INS) and goes, so every reset
 * installs it fresh, with no request, answer or secret of the last database. So do extensions the
 * server does not offer: installed while the cluster ran an installation that has them
 * (MDAME_PG_BINDIR), their functions would call libraries this server lacks.
 */
export const PLATFORM_SQL = `
create extension if not exists pg_cron;
create schema if not exists extensions;
do $$
declare
  role_name text;
  schema_name text;
  extension_name text;
begin
  foreach role_name in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (select 1 from pg_roles where rolname = role_name) then
      execute format('create role %I nologin noinherit', role_name);
    end if;
  end loop;
  for extension_name in
    select e.extname from pg_extension e where not exists (select 1 from pg_available_extensions a where a.name = e.extname)
  loop
    execute format('drop extension %I cascade', extension_name);
  end loop;
  foreach schema_name in array array['vault', 'net'] loop
    if exists (select 1 from pg_namespace n where n.nspname = schema_name
                and not exists (select 1 from pg_depend d where d.classid = 'pg_namespace'::regclass and d.objid = n.oid and d.deptype = 'e')
                and not exists (select 1 from pg_extension e where e.extnamespace = n.oid)) then
      execute format('drop schema %I cascade', schema_name);
    end if;
  end loop;
end $$;
alter role service_role bypassrls;
${DATABASE_SETTINGS_SQL}
`;

/**
 * The pgmq-compatible SQL lives in schema pgmq, which the Supabase CLI keeps (on Supabase that
 * schema is the extension's): dropped here so every reset starts with empty queues. A pgmq that an
 * extension owns is the CLI's to drop, and the first migration creates it again.
 */
export const DROP_PGMQ_COMPAT = `
do $$
begin
  if not exists (select 1 from pg_extension where extname = 'pgmq') then
    drop schema if exists pgmq cascade;
  end if;
end $$;`;

/**
 * pg_net's and Vault's SQL surface for a server without the extensions, installed by the reset after
 * the Supabase CLI (which drops schema net) where `pg_available_extensions` lacks the extension, so
 * mdame.wake_stage_runner runs the same SQL everywhere. The stack's `net` component
 * (stack/net-sender.ts) sends what the pg_net stand-in queues.
 */
export const PLATFORM_STAND_INS = [
  { extension: "pg_net", file: "pg-net-compat/pg_net.sql" },
  { extension: "supabase_vault", file: "vault-compat/vault.sql" },
] as const;

/** pgTAP for pg_prove, in `extensions` as on Supabase; the CLI drops it with the other extensions. */
export const PGTAP_SQL = `
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pgtap') then
    create extension if not exists pgtap with schema extensions;
  end if;
end $$;`;

/**
 * The migrations create each component's role without login or password (a migration holds no
 * secret); the local stack then does what docs/guides/deploy.md asks of an operator on Supabase. The
 * password is hex (stack-env.ts), checked here since it is spliced into the statement.
 */
export function roleLoginSql(role: string, password: string): string {
  if (!/^mdame_[a-z_]+$/.test(role)) throw new Error(`${role} is not a component role`);
  if (!/^[0-9a-f]{16,}$/.test(password)) throw new Error(`the password of ${role} must be at least 16 hex digits (.local/secrets.json)`);
  return `alter role ${role} with login password '${password}'`;
}
