begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
insert into mdame.scene_cache (scene_hash, asset_key, backend, created_at) values
  (repeat('3', 64), 'scenes/procedural.mp4', 'procedural-ffmpeg/1', now() - interval '2 hours'),
  (repeat('3', 64), 'scenes/pexels.mp4', 'pexels/1', now() - interval '1 hour'),
  (repeat('3', 64), 'scenes/gemini.mp4', 'gemini-image/1:m', now()),
  (repeat('4', 64), 'scenes/comfy.mp4', 'comfyui-svd/1:m', now());
select mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:p',
  jsonb_build_array(
    jsonb_build_object('index', 0, 'prompt', 'p0', 'narration', 'one', 'first_word', 0, 'duration_s', 3, 'scene_hash', repeat('3', 64)),
    jsonb_build_object('index', 1, 'prompt', 'p1', 'narration', 'two', 'first_word', 1, 'duration_s', 3, 'scene_hash', repeat('4', 64))),
  '{"style": {}, "visuals": {"backends": ["pexels", "gemini-image", "procedural"], "pexels_blocklist": []}, "width": 720, "height": 1280, "fps": 30}');

select is((select (asset_key, backend, cache_hit) from mdame.scenes where unit_id = (select id from u) and scene_index = 0),
          ('scenes/pexels.mp4'::text, 'pexels/1'::text, true), 'the clip of the earliest listed backend is used');
select is((select status from mdame.scenes where unit_id = (select id from u) and scene_index = 1), 'queued',
          'a clip from a backend the dimension does not list is not used');
select is(tests.queued_count('visual_generation', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'only that scene is queued');

select * from finish();
rollback;
