begin;
\ir ../_fixtures.psql
select plan(5);

create temp table r as select * from mdame.start_run('k-create', 'dev', 'manual', current_date, null);

select is((select created from r), true, 'the first call creates the run');
select is((select status from r), 'running', 'a new run is running');
select is((select count(*) from mdame.run_dimensions where run_id = (select run_id from r)),
          (select count(*) from mdame.dimensions where active), 'one run_dimension per active dimension');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from r))),
          (select count(*) from mdame.dimensions where active), 'one ingest task per active dimension');
select is((select count(*) from mdame.system_locks where name = 'pipeline:dev'), 0::bigint, 'the environment''s lock is free once the pass ends');

select * from finish();
rollback;
