begin;
\ir ../_fixtures.psql
select plan(1);

insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('c', 64), 'scenes/cached.mp4', 'procedural-ffmpeg/1');
select is(mdame.lookup_scene_cache(repeat('e', 64)), null, 'a hash not in the cache is a miss');

select * from finish();
rollback;
