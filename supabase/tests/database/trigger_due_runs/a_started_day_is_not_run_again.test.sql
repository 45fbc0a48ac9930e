begin;
\ir ../_fixtures.psql
select plan(4);

update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';

-- A manual trigger already started every dimension with its current configuration that day.
create temp table manual as select * from mdame.trigger_run('dev', 'manual', date '2026-12-10', null);
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T06:00:00Z')), 0::bigint,
          'the scheduled trigger leaves a day a manual run started with the same configuration');
select is((select count(*) from mdame.pipeline_runs where trigger_kind = 'cron'), 0::bigint, 'no cron run is created');

-- A configuration changed after the day's cron run waits for the next day (or a manual run).
update mdame.dimensions set daily_limit = 2 where id = 'tech-explained';
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T06:05:00Z')), 1::bigint, 'the changed dimension starts once');
update mdame.dimensions set daily_limit = 3 where id = 'tech-explained';
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T06:10:00Z')), 0::bigint,
          'after the day''s cron run a further change starts nothing');

select * from finish();
rollback;
