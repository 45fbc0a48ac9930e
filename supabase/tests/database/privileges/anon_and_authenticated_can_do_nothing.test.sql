begin;
select plan(4);

select is(has_schema_privilege('anon', 'mdame', 'usage') or has_schema_privilege('authenticated', 'mdame', 'usage'), false,
          'anon and authenticated cannot even look into schema mdame');
select is((select array_agg(p.oid::regprocedure::text order by 1) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
            where n.nspname = 'mdame'
              and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))),
          null, 'no function is callable by anon or authenticated (nor by public, which both belong to)');
select throws_ok($$ set local role anon; select * from mdame.get_dimensions() $$, '42501', null,
                 'anon calling an RPC is refused');
select throws_ok($$ set local role authenticated; select mdame.tick() $$, '42501', null,
                 'authenticated calling an RPC is refused');

select * from finish();
rollback;
