begin;
\ir ../_fixtures.psql
select plan(6);

create temp table first as select * from mdame.trigger_run('dev', 'manual', current_date, null);
update mdame.dimensions set display_name = 'Sains Singkat Baru' where id = 'sains-singkat';
create temp table second as select * from mdame.trigger_run('dev', 'manual', current_date, null);

-- The first run's dimensions ingest nothing new: it closes.
create temp table closed as
select mdame.record_topics(q.msg_id, (select run_id from first), q.message->>'dimension_id', 'step:t:' || q.msg_id, '[]', '[]')
  from pgmq.q_stage_tasks q where q.message->>'run_id' = (select run_id::text from first) and q.message->>'stage' = 'ingest';

select is((select status from mdame.pipeline_runs where id = (select run_id from first)), 'completed', 'the first run completes undisturbed');
select is((select holder from mdame.system_locks where name = 'pipeline:dev'), (select run_id::text from second),
          'its lock goes to the run that waited for it');
select is((select status from mdame.run_dimensions where run_id = (select run_id from second)), 'ingesting', 'whose dimension starts ingesting');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from second), 'dimension_id', 'sains-singkat')),
          1::bigint, 'with its ingest task enqueued');
select is((select status from mdame.pipeline_runs where id = (select run_id from second)), 'running', 'the new run is running');
select ok(exists (select 1 from mdame.events where run_id = (select run_id from second) and kind = 'run_queued'),
          'its wait is in the event log');

select * from finish();
rollback;
