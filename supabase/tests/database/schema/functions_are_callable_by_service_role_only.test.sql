begin;
select plan(3);

-- Every function in mdame, whichever migration made it: the earlier ones were granted by hand,
-- later ones by the schema's default privileges.
create temp table fns as
  select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'mdame';

select cmp_ok((select count(*) from fns), '>=', 40::bigint, 'the schema''s functions are there to check');
select is((select array_agg(sig::text order by sig::text) from fns
            where has_function_privilege('anon', sig, 'execute') or has_function_privilege('authenticated', sig, 'execute')),
          null, 'no function is callable by anon or authenticated (nor by public, which both belong to)');
select is((select array_agg(sig::text order by sig::text) from fns where not has_function_privilege('service_role', sig, 'execute')),
          null, 'service_role may call every function');

select * from finish();
rollback;
