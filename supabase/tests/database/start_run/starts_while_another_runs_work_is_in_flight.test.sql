begin;
\ir ../_fixtures.psql
select plan(6);

-- The first run's unit renders: its job is leased by a worker for an hour.
create temp table u as select * from tests.unit_at_stage('render');
select pgmq.send('render', jsonb_build_object('unit_id', (select id from u), 'run_id', (select run_id from u)));
select count(*) from mdame.read_worker_jobs('render', 3600, 5);

create temp table second as select * from mdame.start_run('k-second', 'dev', 'cron', current_date, 'sains-singkat');

select is((select (created, status) from second), (true, 'running'::text), 'a second run starts while the first one''s render is in flight');
select is((select status from mdame.run_dimensions where run_id = (select run_id from second)), 'ingesting', 'its dimension ingests at once');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'ingest', 'run_id', (select run_id from second))), 1::bigint,
          'with its ingest task enqueued');
select is((select stage from mdame.work_units where id = (select id from u)), 'render', 'the first run''s unit renders on');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'and the first run runs on');
select is((select count(*) from mdame.system_locks where name = 'pipeline:dev'), 0::bigint, 'no run holds the environment''s lock');

select * from finish();
rollback;
