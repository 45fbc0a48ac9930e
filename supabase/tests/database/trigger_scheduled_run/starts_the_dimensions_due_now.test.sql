begin;
\ir ../_fixtures.psql
select plan(4);

-- Due at any time of day: production starts at local midnight.
update mdame.dimensions set created_at = now() - interval '3 days', publishing = publishing || '{"time_zone": "UTC", "run_time": "00:00"}';

create temp table first as select * from mdame.trigger_scheduled_run();
select is((select count(*) from first where created), 1::bigint, 'the dimensions due now start in one run');
select is((select (trigger_kind, run_date) from mdame.pipeline_runs where id = (select run_id from first)),
          ('cron'::text, (now() at time zone 'utc')::date), 'a cron run of today''s local date');
select is((select count(*) from mdame.trigger_scheduled_run()), 0::bigint, 'a second call starts nothing');
select is((select count(*) from mdame.pipeline_runs), 1::bigint, 'one run');

select * from finish();
rollback;
