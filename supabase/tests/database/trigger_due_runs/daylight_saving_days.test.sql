begin;
\ir ../_fixtures.psql
select plan(6);

update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';
update mdame.dimensions set active = false where id = 'sains-singkat';

-- 8 March 2026 in New York: 02:00 EST jumps to 03:00 EDT, so 02:30 never happens that day.
update mdame.dimensions set publishing = publishing || '{"time_zone": "America/New_York", "run_time": "02:30"}' where id = 'tech-explained';
select is((select count(*) from mdame.trigger_due_runs('2026-03-08T06:59:00Z')), 0::bigint, 'not due at 01:59 EST');
create temp table spring as select * from mdame.trigger_due_runs('2026-03-08T07:00:00Z');
select is((select run_date from mdame.pipeline_runs where id = (select run_id from spring)),
          date '2026-03-08', 'the skipped 02:30 starts at the first local time after it, 03:00 EDT');

-- 1 November 2026 in New York: 01:30 comes twice, at 05:30 UTC (EDT) and 06:30 UTC (EST).
update mdame.dimensions set publishing = publishing || '{"run_time": "01:30"}' where id = 'tech-explained';
select is((select count(*) from mdame.trigger_due_runs('2026-11-01T05:29:00Z')), 0::bigint, 'not due at 01:29 EDT');
create temp table fall as select * from mdame.trigger_due_runs('2026-11-01T05:30:00Z');
select is((select run_date from mdame.pipeline_runs where id = (select run_id from fall)),
          date '2026-11-01', 'due at the first 01:30 (EDT)');
select is((select count(*) from mdame.trigger_due_runs('2026-11-01T06:30:00Z')), 0::bigint, 'not again at the second 01:30 (EST)');
select is((select count(*) from mdame.pipeline_runs where trigger_kind = 'cron'), 2::bigint, 'one cron run each day');

select * from finish();
rollback;
