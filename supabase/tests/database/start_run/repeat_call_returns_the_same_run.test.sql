begin;
\ir ../_fixtures.psql
select plan(3);

create temp table first as select * from mdame.start_run('k-repeat', 'dev', 'manual', current_date, null);
create temp table second as select * from mdame.start_run('k-repeat', 'dev', 'manual', current_date, null);

select is((select run_id from second), (select run_id from first), 'the same key yields the same run');
select is((select created from second), false, 'the repeat reports created = false');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from first))),
          (select count(*) from mdame.dimensions where active), 'no second set of ingest tasks');

select * from finish();
rollback;
