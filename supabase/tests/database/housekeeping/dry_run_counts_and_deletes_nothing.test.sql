begin;
\ir ../_fixtures.psql
select plan(4);

delete from mdame.scene_cache;
delete from mdame.llm_cache;
insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('a', 64), 'scenes/old.mp4', 'procedural-ffmpeg/1');
insert into mdame.llm_cache (cache_key, model, response) values (repeat('b', 64), 'm', '{}');
select mdame.set_engine_clock(interval '31 days');

select results_eq($$select kind, due, deleted from mdame.housekeeping(true) where kind in ('scene_cache', 'llm_cache') order by kind$$,
  $$values ('llm_cache'::text, 1::bigint, 0::bigint), ('scene_cache', 1, 0)$$, 'the dry run counts what is due and deletes nothing');
select is((select count(*)::int from mdame.scene_cache), 1, 'the cache entry is still there');
select is((select count(*)::int from mdame.storage_deletions), 0, 'no key queued');
select is((select count(*)::int from mdame.events where kind = 'housekeeping_pass'), 0, 'a dry run logs no pass');

select * from finish();
rollback;
