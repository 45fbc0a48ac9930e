begin;
\ir ../_fixtures.psql
select plan(9);

select ok(not mdame.storage_key_in_use('scenes/nobody.mp4'), 'a key nothing holds is free');

insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('1', 64), 'scenes/cached.mp4', 'procedural-ffmpeg/1');
select ok(mdame.storage_key_in_use('scenes/cached.mp4'), 'a cache entry holds its clip');

create temporary table t_live as select * from tests.unit_at_stage('render');
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit)
select id, 0, 'p', 'n', 0, 3, repeat('2', 64), 'ready', 'scenes/live.mp4', false from t_live;
select ok(mdame.storage_key_in_use('scenes/live.mp4'), 'a scene of a live unit holds its clip');
update mdame.work_units set stage = 'published' where id = (select id from t_live);
select ok(not mdame.storage_key_in_use('scenes/live.mp4'), 'a scene of a finished unit does not');

insert into mdame.scene_generation_claims (scene_hash, backend, holder, lease_until) values (repeat('3', 64), 'procedural-ffmpeg/1', 'w', clock_timestamp() + interval '1 minute');
select ok(mdame.storage_key_in_use('scenes/' || repeat('3', 64) || '.mp4'), 'a leased generation claim holds the clip being made');
insert into mdame.scene_generation_claims (scene_hash, backend, holder, lease_until, asset_key)
values (repeat('4', 64), 'comfyui-svd/1', 'w', clock_timestamp() + interval '1 minute', 'scenes/' || repeat('5', 64) || '.mp4');
select ok(mdame.storage_key_in_use('scenes/' || repeat('5', 64) || '.mp4'), 'another backend''s claim holds the key its worker stores at');

update mdame.work_units set voice = '{"audio_key": "voice/abc.mp3"}', video = '{"video_key": "renders/abc.mp4"}' where id = (select id from t_live);
select ok(mdame.storage_key_in_use('voice/abc.json'), 'a unit''s voice holds its word timings');
select ok(mdame.storage_key_in_use('renders/abc.mp4'), 'a unit''s video holds its render');
update mdame.work_units set video = video || '{"deleted_at": "2026-01-01"}' where id = (select id from t_live);
select ok(not mdame.storage_key_in_use('renders/abc.mp4'), 'a released video does not');

select * from finish();
rollback;
