-- Grants each component's role exactly the RPCs of its row in mdame.component_roles, and
-- service_role every RPC; takes everything else back (a new function is executable by PUBLIC, and
-- per-schema default privileges cannot take that away). A role the table names and the cluster
-- lacks is created without login (the operator gives it one). Every migration ends by calling it,
-- and supabase/schemas/mdame/grants.sql calls it on the declared schema.
-- It refuses an RPC no row names (nobody could call it) and a row's name that is no RPC.

create or replace function mdame.restrict_function_privileges()
returns void
language plpgsql
set search_path = ''
as $$
declare
  f record;
  t record;
  r record;
  v_roles text;
  v_unknown text;
begin
  for r in select role from mdame.component_roles loop
    if not exists (select 1 from pg_roles where rolname = r.role) then
      execute format('create role %I nologin noinherit', r.role);
    end if;
    execute format('revoke temporary on database %I from %I', current_database(), r.role);
    execute format('grant usage on schema mdame to %I', r.role);
  end loop;
  select string_agg(format('%I', role), ', ' order by role) into v_roles from mdame.component_roles;
  v_roles := concat_ws(', ', 'public, anon, authenticated, service_role', v_roles);

  select string_agg(distinct c.role || ': ' || name, ', ') into v_unknown
    from mdame.component_roles c, unnest(c.rpcs) as name
   where not exists (
     select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'mdame' and p.prokind = 'f' and p.proname = name
        and coalesce(obj_description(p.oid, 'pg_proc'), '') not like 'internal:%');
  if v_unknown is not null then
    raise exception 'mdame.component_roles names what is no mdame RPC (%)', v_unknown;
  end if;

  for f in
    select p.oid::regprocedure as sig, p.proname, p.prosecdef,
           coalesce(obj_description(p.oid, 'pg_proc'), '') like 'internal:%' as internal
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'mdame' and p.prokind = 'f'
  loop
    execute format('revoke all on function %s from %s', f.sig, v_roles);
    if f.internal then
      if f.prosecdef then
        execute format('alter function %s security invoker', f.sig);
      end if;
      continue;
    end if;
    if not f.prosecdef then
      execute format('alter function %s security definer', f.sig);
    end if;
    execute format('grant execute on function %s to service_role', f.sig);
    if not exists (select 1 from mdame.component_roles where f.proname = any(rpcs)) then
      raise exception 'no role in mdame.component_roles may execute %: add it to the row of each component that calls it', f.sig;
    end if;
    for r in select role from mdame.component_roles where f.proname = any(rpcs) loop
      execute format('grant execute on function %s to %I', f.sig, r.role);
    end loop;
  end loop;

  for t in
    select c.oid::regclass as rel from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'mdame' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
  loop
    execute format('revoke all on %s from %s', t.rel, v_roles);
  end loop;
end;
$$;

comment on function mdame.restrict_function_privileges() is 'internal: run by migrations';
