begin;
\ir ../_fixtures.psql
select plan(4);

create temp table done as select * from tests.unit_at_stage('rejected');
create temp table live as select * from tests.unit_at_stage('render');
-- A stage task enqueued before this tick's transaction began.
select mdame.enqueue_stage_task('ingest', (select run_id from live), null, 'sains-singkat');
update pgmq.q_stage_tasks set vt = now() - interval '1 second';

create temp table r as select mdame.tick() as result;

select is((select (result->>'runs_closed')::int from r), 1, 'the tick closes the run whose units are all terminal');
select is((select status from mdame.pipeline_runs where id = (select run_id from done)), 'completed', 'that run is completed');
select is((select status from mdame.pipeline_runs where id = (select run_id from live)), 'running', 'a run with open work stays running');
select is((select (result->>'stage_tasks_visible')::int from r), 1, 'the tick reports the stage tasks waiting for the runner');

select * from finish();
rollback;
