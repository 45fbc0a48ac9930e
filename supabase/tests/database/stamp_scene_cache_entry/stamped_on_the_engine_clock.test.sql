begin;
\ir ../_fixtures.psql
select plan(1);

select mdame.set_engine_clock(interval '7 days');
select mdame.record_scene_asset(repeat('6', 64), 'procedural-ffmpeg/1', 'scenes/stamped.mp4', null, 'w');
select is((select last_hit_at from mdame.scene_cache where scene_hash = repeat('6', 64)), now() + interval '7 days', 'a new entry''s TTL counts from the engine clock');

select * from finish();
rollback;
