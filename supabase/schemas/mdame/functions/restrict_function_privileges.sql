-- Makes every function in mdame callable by service_role only (a new function is executable by
-- PUBLIC, and per-schema default privileges cannot take that away). A migration that creates
-- functions ends by calling it.

create or replace function mdame.restrict_function_privileges()
returns void
language plpgsql
set search_path = ''
as $$
declare
  f record;
  t record;
begin
  for f in
    select p.oid::regprocedure as sig, p.prosecdef,
           coalesce(obj_description(p.oid, 'pg_proc'), '') like 'internal:%' as internal
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'mdame' and p.prokind = 'f'
  loop
    execute format('revoke all on function %s from public, anon, authenticated, service_role, mdame_engine', f.sig);
    if f.internal then
      if f.prosecdef then
        execute format('alter function %s security invoker', f.sig);
      end if;
      continue;
    end if;
    if not f.prosecdef then
      execute format('alter function %s security definer', f.sig);
    end if;
    execute format('grant execute on function %s to service_role, mdame_engine', f.sig);
  end loop;

  for t in
    select c.oid::regclass as rel from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'mdame' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
  loop
    execute format('revoke all on %s from public, anon, authenticated, service_role, mdame_engine', t.rel);
  end loop;
end;
$$;

comment on function mdame.restrict_function_privileges() is 'internal: run by migrations';

revoke all on function mdame.restrict_function_privileges() from public, anon, authenticated;
