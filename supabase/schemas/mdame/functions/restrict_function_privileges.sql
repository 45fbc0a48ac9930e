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
begin
  for f in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'mdame' loop
    execute format('revoke all on function %s from public, anon, authenticated', f.sig);
    execute format('grant execute on function %s to service_role', f.sig);
  end loop;
end;
$$;

revoke all on function mdame.restrict_function_privileges() from public, anon, authenticated;
grant execute on function mdame.restrict_function_privileges() to service_role;
