begin;
\ir ../_fixtures.psql
select plan(2);

select mdame.start_run('k-manual', 'dev', 'manual', current_date, null);
select throws_ok($$ select mdame.trigger_scheduled_run() $$, 'MDL01', null, 'the daily trigger is refused while a manual run holds the lock');
select is((select count(*) from mdame.pipeline_runs where trigger_kind = 'cron'), 0::bigint, 'no cron run is created');

select * from finish();
rollback;
