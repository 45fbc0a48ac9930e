begin;
\ir ../_fixtures.psql
select plan(8);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('c', 64), 'scenes/cached.mp4', 'procedural-ffmpeg/1');
create temp table r as select * from mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:x',
  jsonb_build_array(
    jsonb_build_object('index', 0, 'prompt', 'p0', 'narration', 'one', 'first_word', 0, 'duration_s', 3, 'scene_hash', repeat('c', 64)),
    jsonb_build_object('index', 1, 'prompt', 'p1', 'narration', 'two', 'first_word', 1, 'duration_s', 4, 'scene_hash', repeat('d', 64))),
  '{"style": {"motion": "drift"}, "width": 1080, "height": 1920, "fps": 30}');

select is((select stage from r), 'media', 'the unit moves to media');
select is((select (status, asset_key, cache_hit) from mdame.scenes where unit_id = (select id from u) and scene_index = 0),
          ('ready'::text, 'scenes/cached.mp4'::text, true), 'a scene already in the cache is ready at once');
select is((select status from mdame.scenes where unit_id = (select id from u) and scene_index = 1), 'queued', 'an uncached scene is queued');
select is(tests.queued_count('visual_generation', jsonb_build_object('unit_id', (select id from u))), 1::bigint,
          'one visual job, for the uncached scene only');
select is((select msg_id from mdame.scenes where unit_id = (select id from u) and scene_index = 1),
          (select msg_id from pgmq.q_visual_generation where message->>'unit_id' = (select id::text from u)),
          'the scene records its job''s message');
select is((select message->>'scene_hash' from pgmq.q_visual_generation where message->>'unit_id' = (select id::text from u)), repeat('d', 64),
          'the job carries the scene hash');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'voice', 'unit_id', (select id from u))), 1::bigint,
          'the voice task is enqueued alongside');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the plan task is archived');

select * from finish();
rollback;
