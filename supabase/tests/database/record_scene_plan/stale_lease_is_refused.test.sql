begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));
create temp table plan_args as select
  jsonb_build_array(jsonb_build_object('index', 0, 'prompt', 'p0', 'narration', 'one', 'first_word', 0, 'duration_s', 3, 'scene_hash', repeat('d', 64))) as scenes,
  '{"style": {}, "width": 1080, "height": 1920, "fps": 30}'::jsonb as visual;

create temp table late as select * from mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:a',
  (select scenes from plan_args), (select visual from plan_args), (select stale_holder from h));
select is((select stage from late), 'plan', 'the stale holder''s plan is refused');
select is((select count(*) from mdame.scenes where unit_id = (select id from u)), 0::bigint, 'no scene is stored');
select is(tests.queued_count('visual_generation', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'no visual job is enqueued');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its new holder');

create temp table fresh as select * from mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:b',
  (select scenes from plan_args), (select visual from plan_args), (select current_holder from h));
select is((select stage from fresh), 'media', 'the current holder''s plan is recorded');
select is((select count(*) from mdame.scenes where unit_id = (select id from u)), 1::bigint, 'with its scenes');

select * from finish();
rollback;
