begin;
select plan(6);

-- mdame.component_roles declares each component's role and its RPCs; the grants follow it exactly.
select is(
  (select array_agg(line order by line) from (
     select c.role || ' may execute ' || p.oid::regprocedure::text || ', which its row does not name' as line
       from mdame.component_roles c
       cross join pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'mdame' and has_function_privilege(c.role, p.oid, 'execute') and not p.proname = any(c.rpcs)
     union all
     select c.role || ' may not execute ' || p.oid::regprocedure::text || ', which its row names'
       from mdame.component_roles c, unnest(c.rpcs) as name
       join pg_proc p on p.proname = name join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'mdame' and not has_function_privilege(c.role, p.oid, 'execute')
  ) differences),
  null, 'each component''s role executes exactly the RPCs of its row');

select is(
  (select array_agg(p.oid::regprocedure::text order by 1) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'mdame' and p.prokind = 'f' and coalesce(obj_description(p.oid, 'pg_proc'), '') not like 'internal:%'
      and not exists (select 1 from mdame.component_roles c where p.proname = any(c.rpcs))),
  null, 'every RPC is some component''s');

select is(
  (select array_agg(c.role::text order by 1) from mdame.component_roles c
    where has_function_privilege(c.role, 'mdame.get_accounts(text, uuid)', 'execute')
       or has_function_privilege(c.role, 'mdame.get_youtube_client(uuid)', 'execute')),
  array['mdame_engine'], 'only the edge, which publishes, reads sealed credentials');

select throws_ok($$ set local role mdame_render_runner; select * from mdame.get_accounts() $$, '42501', null,
                 'the render-runner is refused get_accounts');
select throws_ok($$ set local role mdame_gpu_worker; select * from mdame.start_run('probe', 'prod', 'manual', current_date) $$, '42501', null,
                 'the gpu-worker is refused start_run');

select is(
  (select array_agg(c.role::text order by 1) from mdame.component_roles c
    where not has_schema_privilege(c.role, 'mdame', 'usage')
       or has_database_privilege(c.role, current_database(), 'TEMP')
       or exists (select 1 from pg_namespace s where has_schema_privilege(c.role, s.oid, 'create') and s.nspname !~ '^pg_(toast_)?temp_')
       or exists (select 1 from pg_roles r where r.rolname = c.role and (r.rolsuper or r.rolcreatedb or r.rolcreaterole or r.rolbypassrls or r.rolreplication))
       or exists (select 1 from pg_auth_members m where m.member = c.role::regrole)),
  null, 'every component''s role has usage on mdame and can create nothing: no TEMP, no CREATE, no role attribute, no membership');

select * from finish();
rollback;
