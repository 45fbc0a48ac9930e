begin;
\ir ../_fixtures.psql
select plan(3);

-- A manual trigger already started every dimension with its current configuration today.
create temp table manual as select * from mdame.trigger_run('dev', 'manual', (now() at time zone 'utc')::date, null);
create temp table r as select mdame.trigger_scheduled_run() as run_id;

select is((select run_id from r), (select run_id from manual), 'the daily trigger returns the day''s run that covers every dimension');
select is((select count(*) from mdame.pipeline_runs where trigger_kind = 'cron'), 0::bigint, 'no cron run is created');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest')),
          (select count(*) from mdame.dimensions where active), 'no second set of ingest tasks');

select * from finish();
rollback;
