begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table plan_args as select
  jsonb_build_array(
    jsonb_build_object('index', 0, 'prompt', 'p0', 'narration', 'one', 'first_word', 0, 'duration_s', 3, 'scene_hash', repeat('d', 64)),
    jsonb_build_object('index', 1, 'prompt', 'p1', 'narration', 'two', 'first_word', 1, 'duration_s', 3, 'scene_hash', repeat('e', 64))) as scenes,
  '{"style": {}, "width": 1080, "height": 1920, "fps": 30}'::jsonb as visual;
create temp table first as select * from mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:r',
  (select scenes from plan_args), (select visual from plan_args));
create temp table second as select * from mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:r',
  (select scenes from plan_args), (select visual from plan_args));

select is((select (stage, stage_deadline) from second), (select (stage, stage_deadline) from first), 'the repeat returns the unit as the first call left it');
select is((select count(*) from mdame.scenes where unit_id = (select id from u)), 2::bigint, 'the scenes are stored once');
select is(tests.queued_count('visual_generation', jsonb_build_object('unit_id', (select id from u))), 2::bigint, 'one visual job per scene');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'voice', 'unit_id', (select id from u))), 1::bigint, 'one voice task');
select is(tests.event_count((select id from u), 'scenes_planned'), 1::bigint, 'the plan is logged once');

select * from finish();
rollback;
