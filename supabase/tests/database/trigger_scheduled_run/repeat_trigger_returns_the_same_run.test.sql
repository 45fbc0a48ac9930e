begin;
\ir ../_fixtures.psql
select plan(3);

create temp table first as select mdame.trigger_scheduled_run() as run_id;
create temp table second as select mdame.trigger_scheduled_run() as run_id;

select is((select run_id from second), (select run_id from first), 'a second trigger the same day returns the same run');
select is((select count(*) from mdame.pipeline_runs where trigger_kind = 'cron'), 1::bigint, 'one cron run');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from first))),
          (select count(*) from mdame.dimensions where active), 'no second set of ingest tasks');

select * from finish();
rollback;
