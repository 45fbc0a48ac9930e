begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('media');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:late',
  jsonb_build_array(jsonb_build_object('index', 0, 'prompt', 'p0', 'narration', 'one', 'first_word', 0, 'duration_s', 3, 'scene_hash', repeat('d', 64))),
  '{"style": {}, "width": 1080, "height": 1920, "fps": 30}');

select is((select stage from r), 'media', 'the unit stays where it is');
select is((select count(*) from mdame.scenes where unit_id = (select id from u)), 0::bigint, 'no scene is stored');
select is(tests.queued_count('visual_generation', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'no visual job is enqueued');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'voice', 'unit_id', (select id from u))), 0::bigint, 'no voice task is enqueued');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the late plan task is archived');

select * from finish();
rollback;
