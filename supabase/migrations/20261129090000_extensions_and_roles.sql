-- Extensions and the API roles Supabase has. On plain Postgres the roles are created here so RLS
-- and grants read the same everywhere. pgmq: the real extension when the server has it; the local
-- stack installs its pgmq-compatible SQL before the migrations when it does not.

create extension if not exists pg_cron;

do $$
begin
  if not exists (select 1 from pg_namespace where nspname = 'pgmq') then
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
