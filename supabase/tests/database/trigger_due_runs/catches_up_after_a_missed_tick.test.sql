begin;
\ir ../_fixtures.psql
select plan(5);

-- Starts at 14:00 in Jakarta (07:00 UTC); the ticks from 14:00 to 16:36 never came.
update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';
update mdame.dimensions set active = false where id = 'sains-singkat';
update mdame.dimensions set publishing = publishing || '{"time_zone": "Asia/Jakarta", "run_time": "14:00"}' where id = 'tech-explained';

create temp table late as select * from mdame.trigger_due_runs('2026-12-10T09:37:00Z');
select is((select count(*) from late where created), 1::bigint, 'the first tick after the start starts the missed run');
select is((select run_date from mdame.pipeline_runs where id = (select run_id from late)), date '2026-12-10', 'for that local day');
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T16:59:00Z')), 0::bigint, 'nothing more that local day (23:59 in Jakarta)');
select is((select count(*) from mdame.trigger_due_runs('2026-12-11T06:59:00Z')), 0::bigint, 'nor the next day before its start');
create temp table next_day as select * from mdame.trigger_due_runs('2026-12-11T07:00:00Z');
select is((select run_date from mdame.pipeline_runs where id = (select run_id from next_day)),
          date '2026-12-11', 'the next day''s start starts the next day''s run');

select * from finish();
rollback;
