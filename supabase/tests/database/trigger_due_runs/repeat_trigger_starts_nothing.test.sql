begin;
\ir ../_fixtures.psql
select plan(4);

update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';
create temp table first as select * from mdame.trigger_due_runs('2026-12-10T06:00:00Z');
create temp table second as select * from mdame.trigger_due_runs('2026-12-10T06:00:00Z');

select is((select count(*) from first where created), 1::bigint, 'the first trigger starts the day''s run');
select is((select count(*) from second), 0::bigint, 'a second trigger at the same time starts nothing');
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T23:59:00Z')), 0::bigint, 'nor does any later tick that day');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest')),
          (select count(*) from mdame.dimensions where active), 'one set of ingest tasks');

select * from finish();
rollback;
