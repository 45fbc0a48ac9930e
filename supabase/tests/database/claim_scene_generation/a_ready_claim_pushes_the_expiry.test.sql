begin;
\ir ../_fixtures.psql
select plan(2);

insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('e', 64), 'scenes/claimed.mp4', 'procedural-ffmpeg/1');
select mdame.set_engine_clock(interval '10 days');
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'procedural-ffmpeg/1', 'worker-a', 60)), 'ready', 'the entry is ready');
select is((select last_hit_at from mdame.scene_cache where scene_hash = repeat('e', 64)), now() + interval '10 days', 'a ready claim is a hit: last_hit_at moved');

select * from finish();
rollback;
