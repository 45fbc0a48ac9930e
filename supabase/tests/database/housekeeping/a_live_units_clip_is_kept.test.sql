begin;
\ir ../_fixtures.psql
select plan(2);

delete from mdame.scene_cache;
create temporary table t_unit as select * from tests.unit_at_stage('render');
insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('a', 64), 'scenes/live.mp4', 'procedural-ffmpeg/1');
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit)
select id, 0, 'p', 'n', 0, 3, repeat('a', 64), 'ready', 'scenes/live.mp4', false from t_unit;
select mdame.set_engine_clock(interval '60 days');
select is((select deleted from mdame.housekeeping(false) where kind = 'scene_cache'), 0::bigint, 'the clip of a unit at render is not expired');
update mdame.work_units set stage = 'published' where id = (select id from t_unit);
select is((select deleted from mdame.housekeeping(false) where kind = 'scene_cache'), 1::bigint, 'once the unit is done it goes');

select * from finish();
rollback;
