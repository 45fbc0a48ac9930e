-- Extensions and the API roles Supabase has. On plain Postgres the roles are created here so RLS
-- and grants read the same everywhere. pgmq: the real extension when the server has it; the local
-- stack installs its pgmq-compatible SQL before the migrations when it does not.

create extension if not exists pg_cron;

-- pgmq is here when its functions are: the extension's, or the compatible SQL's. A schema named
-- pgmq alone says nothing (supabase db reset drops the extension and keeps the schema).
do $$
begin
  if not exists (select 1 from pg_extension where extname = 'pgmq')
     and to_regprocedure('pgmq.create(text)') is null then
    create extension pgmq;
  end if;
end
$$;

do $$
declare
  role_name text;
begin
  foreach role_name in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (select 1 from pg_roles where rolname = role_name) then
      execute format('create role %I nologin noinherit', role_name);
    end if;
  end loop;
end
$$;

create schema if not exists mdame;
revoke all on schema mdame from public;
revoke all on schema mdame from anon, authenticated;
grant usage on schema mdame to service_role;
