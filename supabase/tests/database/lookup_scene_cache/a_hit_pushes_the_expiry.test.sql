begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('d', 64), 'scenes/hit.mp4', 'procedural-ffmpeg/1');
select is((select last_hit_at from mdame.scene_cache where scene_hash = repeat('d', 64)), mdame.engine_now(), 'a new entry is stamped on the engine clock');
select mdame.set_engine_clock(interval '20 days');
select is(mdame.lookup_scene_cache(repeat('d', 64)), 'scenes/hit.mp4', 'the lookup answers the entry');
select is((select last_hit_at from mdame.scene_cache where scene_hash = repeat('d', 64)), now() + interval '20 days', 'the hit pushed last_hit_at to the moved clock');

select * from finish();
rollback;
