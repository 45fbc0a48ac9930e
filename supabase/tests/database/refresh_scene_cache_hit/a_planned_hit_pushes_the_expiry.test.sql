begin;
\ir ../_fixtures.psql
select plan(2);

create temporary table t_unit as select * from tests.unit_at_stage('media');
insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('5', 64), 'scenes/hit-by-plan.mp4', 'procedural-ffmpeg/1');
select mdame.set_engine_clock(interval '12 days');
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit)
select id, 0, 'p', 'n', 0, 3, repeat('5', 64), 'ready', 'scenes/hit-by-plan.mp4', true from t_unit;
select is((select last_hit_at from mdame.scene_cache where scene_hash = repeat('5', 64)), now() + interval '12 days', 'a scene that took the clip from the cache pushed last_hit_at');
select mdame.set_engine_clock(interval '20 days');
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit)
select id, 1, 'p', 'n', 0, 3, repeat('5', 64), 'ready', 'scenes/hit-by-plan.mp4', false from t_unit;
select is((select last_hit_at from mdame.scene_cache where scene_hash = repeat('5', 64)), now() + interval '12 days', 'a freshly generated scene (no hit) does not');

select * from finish();
rollback;
