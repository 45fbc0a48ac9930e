begin;
\ir ../_fixtures.psql
select plan(2);

select throws_ok($$ select * from mdame.start_run('k-env', 'prod', 'manual', current_date, null) $$,
                 'MDE01', null, 'ENV=prod against a dev database is refused');
select is((select count(*) from mdame.pipeline_runs where idempotency_key = 'k-env'), 0::bigint, 'no run was created');

select * from finish();
rollback;
