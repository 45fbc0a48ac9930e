-- The API roles Supabase has. On plain Postgres they are created here so row-level security and
-- grants read the same everywhere.
--
-- The components' own roles (mdame_engine for the edge, mdame_render_runner, mdame_gpu_worker) are
-- declared by mdame.component_roles, and mdame.restrict_function_privileges() creates them, without
-- login and without a password: a migration holds no secret; the local stack gives each one after
-- the migrations (stack/db.ts), on Supabase the operator does (docs/guides/deploy.md).
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
end
$$;

do $$
begin
  execute format('revoke temporary on database %I from public, anon, authenticated, service_role', current_database());
end
$$;
