begin;
\ir ../_fixtures.psql
select plan(3);

create temp table r as select * from mdame.start_run('k-abort-ingest', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
select mdame.abort_run((select run_id from r), 'wrong day');

select is((select status from mdame.pipeline_runs where id = (select run_id from r)), 'rolled_back', 'the run is rolled back');
select is((select status from mdame.run_dimensions where run_id = (select run_id from r)), 'failed', 'its dimension still ingesting fails');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'its pending ingest task is cancelled');

select * from finish();
rollback;
