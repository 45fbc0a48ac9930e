begin;
\ir ../_fixtures.psql
select plan(5);

create temp table first as select * from mdame.start_run('k-one', 'dev', 'manual', current_date, null);
create temp table second as select * from mdame.start_run('k-two', 'dev', 'cron', current_date, null);

select is((select (run_id, created) from second), ((select run_id from first), false),
          'a second key for dimensions the running run started the same day returns that run');
select is((select count(*) from mdame.pipeline_runs), 1::bigint, 'one run exists');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest')), (select count(*) from mdame.dimensions where active),
          'one ingest task per dimension');

-- Another day is another run; so is the same day once the first run has ended.
create temp table tomorrow as select * from mdame.start_run('k-three', 'dev', 'cron', current_date + 1, null);
select is((select created from tomorrow), true, 'another date starts its own run');
update mdame.pipeline_runs set status = 'completed', finished_at = now() where id = (select run_id from first);
select is((select created from mdame.start_run('k-four', 'dev', 'manual', current_date, null)), true,
          'the same day starts again once the running run has ended');

select * from finish();
rollback;
