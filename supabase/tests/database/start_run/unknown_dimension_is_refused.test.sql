begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.dimensions set active = false where id = 'sains-singkat';

select throws_ok($$ select * from mdame.start_run('k-no-dim', 'dev', 'manual', current_date, 'no-such-dimension') $$,
                 'MDN01', null, 'a run for a dimension that does not exist is refused');
select throws_ok($$ select * from mdame.start_run('k-inactive', 'dev', 'manual', current_date, 'sains-singkat') $$,
                 'MDN01', null, 'a run for an inactive dimension is refused');
select is((select count(*) from mdame.pipeline_runs where idempotency_key in ('k-no-dim', 'k-inactive')), 0::bigint, 'no run was created');

select * from finish();
rollback;
