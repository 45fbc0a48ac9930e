begin;
\ir ../_fixtures.psql
select plan(3);

create temp table r as select * from mdame.start_run('k-ingest-retry', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
select mdame.fail_stage_task((select msg_id from m), 'ingest', null, (select run_id from r), 'tech-explained', 'feed down', false);
create temp table res as select mdame.retry_dead_letter((select id from mdame.dead_letters where msg_id = (select msg_id from m))) as result;

select is((select status from mdame.run_dimensions where run_id = (select run_id from r)), 'ingesting', 'the dimension is ingesting again');
select is((select (status, error) from mdame.pipeline_runs where id = (select run_id from r)), ('running'::text, null::text), 'the run is reopened without its error');
select is((select message->>'stage' from pgmq.q_stage_tasks where msg_id = (select (result->>'msg_id')::bigint from res)), 'ingest', 'the ingest task is queued again');

select * from finish();
rollback;
