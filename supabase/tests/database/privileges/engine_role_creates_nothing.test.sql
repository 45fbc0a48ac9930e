begin;
select plan(4);

select is((select array_agg(nspname::text order by 1) from pg_namespace where has_schema_privilege('mdame_engine', oid, 'create') and nspname !~ '^pg_(toast_)?temp_'),
          null, 'the engine role may create objects in no schema (its session''s own temporary schema aside)');
select is((select rolsuper or rolcreatedb or rolcreaterole or rolbypassrls or rolreplication from pg_roles where rolname = 'mdame_engine'),
          false, 'nor databases or roles, and it bypasses no row security');
select is((select array_agg(r.rolname::text) from pg_auth_members m join pg_roles r on r.oid = m.roleid
            where m.member = 'mdame_engine'::regrole), null, 'it inherits no other role''s privileges');
select throws_ok($$ set local role mdame_engine; create table mdame.probe (id int) $$, '42501', null,
                 'a table in mdame is refused');

select * from finish();
rollback;
