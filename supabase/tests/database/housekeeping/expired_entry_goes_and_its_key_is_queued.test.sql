begin;
\ir ../_fixtures.psql
select plan(5);

delete from mdame.scene_cache;
insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('a', 64), 'scenes/old.mp4', 'procedural-ffmpeg/1');
select mdame.set_engine_clock(interval '29 days');
select is((select due from mdame.housekeeping(true) where kind = 'scene_cache'), 0::bigint, 'inside its TTL the entry is not due');
select mdame.set_engine_clock(interval '31 days');
select results_eq($$select due, deleted, storage_keys_queued from mdame.housekeeping(false) where kind = 'scene_cache'$$,
  $$values (1::bigint, 1::bigint, 1::bigint)$$, 'past its TTL the entry goes and its clip is queued');
select is((select count(*)::int from mdame.scene_cache), 0, 'the entry is gone');
select results_eq($$select key, kind, attempts from mdame.storage_deletions$$, $$values ('scenes/old.mp4'::text, 'scene'::text, 0)$$, 'the outbox holds the key');
select is((select count(*)::int from mdame.events where kind = 'housekeeping_pass'), 1, 'the pass is logged');

select * from finish();
rollback;
