begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('4', 64), 'scenes/held.mp4', 'procedural-ffmpeg/1');
select is(mdame.queue_storage_deletions(array['scenes/free-a.mp4', 'scenes/held.mp4', null, 'scenes/free-a.mp4'], 'scene'), 1::bigint, 'one free key queued; the held key, a null and a repeat are not');
select is(mdame.queue_storage_deletions(array['scenes/free-a.mp4'], 'scene'), 0::bigint, 'a key already queued is left as it is');
select is((select not_before from mdame.storage_deletions where key = 'scenes/free-a.mp4'), mdame.engine_now(), 'due at once on the engine clock');

select * from finish();
rollback;
