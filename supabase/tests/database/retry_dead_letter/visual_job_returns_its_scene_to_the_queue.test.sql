begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('media');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table m as select pgmq.send('visual_generation', (select job from s) || jsonb_build_object('run_id', (select run_id from u))) as msg_id;
select pgmq.read('visual_generation', 30, 1);
select mdame.fail_worker_job('visual_generation', (select msg_id from m), (select id from u), 'gpu lost', false, 'wh-v', (select id from s));
create temp table r as select mdame.retry_dead_letter((select id from mdame.dead_letters where msg_id = (select msg_id from m))) as result;

select is((select (stage, error) from mdame.work_units where id = (select id from u)), ('media'::text, null::text), 'the unit is back at media');
select is((select msg_id from mdame.scenes where id = (select id from s)), (select (result->>'msg_id')::bigint from r), 'the scene records the new job');
select ok(tests.queue_has('visual_generation', (select (result->>'msg_id')::bigint from r)), 'the visual job is queued again');
select is((select message->>'scene_id' from pgmq.q_visual_generation where msg_id = (select (result->>'msg_id')::bigint from r)), (select id::text from s),
          'with its original payload');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run is reopened');

select * from finish();
rollback;
