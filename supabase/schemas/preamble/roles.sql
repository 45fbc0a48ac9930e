-- The API roles Supabase has. On plain Postgres they are created here so row-level security and
-- grants read the same everywhere.
--
-- mdame_engine: the role the engine's components (edge host and Edge Functions, stage runner,
-- gpu-worker, render-runner) connect as. It may only call the mdame RPCs, which run as their owner
-- (docs/reference/roles.md). Created without login and without a password: a migration holds no secret; the
-- local stack gives it one after the migrations (stack/db.ts), on Supabase the operator does.
--
-- No client role may create temporary tables: Postgres grants TEMP on a database to PUBLIC, so it is
-- taken back from PUBLIC and from each client role (a grant of its own would outlive the first).

do $$
declare
  role_name text;
begin
  foreach role_name in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (select 1 from pg_roles where rolname = role_name) then
      execute format('create role %I nologin noinherit', role_name);
    end if;
  end loop;
  if not exists (select 1 from pg_roles where rolname = 'mdame_engine') then
    create role mdame_engine nologin noinherit;
  end if;
end
$$;

do $$
begin
  execute format('revoke temporary on database %I from public, anon, authenticated, service_role, mdame_engine', current_database());
end
$$;
