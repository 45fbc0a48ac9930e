begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_at_stage('media');
update mdame.work_units set voice = '{"audio_key": "voice/a.mp3", "duration_ms": 30000, "provider": "edge-tts", "voice": "v",
  "words": [{"text": "hi", "offset_ms": 0, "duration_ms": 300}]}' where id = (select id from u);
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key)
values ((select id from u), 0, 'p0', 'hi', 0, 3, repeat('a', 64), 'ready', 'scenes/a.mp4'),
       ((select id from u), 1, 'p1', 'there', 1, 3, repeat('b', 64), 'queued', null);
create temp table m as select pgmq.send('visual_generation', jsonb_build_object('unit_id', s.unit_id, 'scene_id', s.id, 'scene_index', s.scene_index, 'scene_hash', s.scene_hash)) as msg_id
  from mdame.scenes s where s.scene_hash = repeat('b', 64);

select is((mdame.complete_visual_job((select msg_id from m), (select id from mdame.scenes where scene_hash = repeat('b', 64)),
          repeat('b', 64), 'scenes/b.mp4', 'procedural-ffmpeg/1', false, 'wh-1')).status, 'ready', 'the scene is ready');
select ok(tests.archived('visual_generation', (select msg_id from m)), 'the visual message is archived in the same call');
select is((select asset_key from mdame.scene_cache where scene_hash = repeat('b', 64)), 'scenes/b.mp4', 'the scene cache learns the asset');
select is((select stage from mdame.work_units where id = (select id from u)), 'render', 'the unit moves to render');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'exactly one render job is enqueued');

-- The same delivery again (a replay) changes nothing.
select mdame.complete_visual_job((select msg_id from m), (select id from mdame.scenes where scene_hash = repeat('b', 64)),
       repeat('b', 64), 'scenes/b.mp4', 'procedural-ffmpeg/1', false, 'wh-1');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'a replayed callback enqueues no second render');

select * from finish();
rollback;
