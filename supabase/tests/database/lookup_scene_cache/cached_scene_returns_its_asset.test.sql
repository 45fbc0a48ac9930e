begin;
\ir ../_fixtures.psql
select plan(1);

insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('c', 64), 'scenes/cached.mp4', 'procedural-ffmpeg/1');
select is(mdame.lookup_scene_cache(repeat('c', 64)), 'scenes/cached.mp4', 'a cached scene hash gives its stored asset');

select * from finish();
rollback;
