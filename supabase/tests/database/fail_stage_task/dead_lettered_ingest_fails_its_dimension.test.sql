begin;
\ir ../_fixtures.psql
select plan(5);

create temp table r as select * from mdame.start_run('k-ingest-fail', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
update pgmq.q_stage_tasks set read_ct = 1 where msg_id = (select msg_id from m);

select is(mdame.fail_stage_task((select msg_id from m), 'ingest', null, (select run_id from r), 'tech-explained', 'feed down', false), 'dead_letter',
          'a final ingest failure dead-letters the task');
select is((select status from mdame.run_dimensions where run_id = (select run_id from r) and dimension_id = 'tech-explained'), 'failed',
          'the run''s dimension fails');
select is((select (status, error) from mdame.pipeline_runs where id = (select run_id from r)), ('failed'::text, '1 dimension(s) failed to ingest'::text),
          'and with nothing else open, the run closes as failed');
select is((select count(*) from mdame.system_locks where name = 'pipeline:dev'), 0::bigint, 'releasing the lock');
select is((select payload->>'dimension_id' from mdame.dead_letters where msg_id = (select msg_id from m)), 'tech-explained',
          'the dead letter keeps the task to retry');

select * from finish();
rollback;
