begin;
\ir ../_fixtures.psql
select plan(5);

delete from mdame.storage_deletions;
delete from mdame.scene_cache;
insert into mdame.storage_deletions (key, kind, not_before) values
  ('scenes/free.mp4', 'scene', mdame.engine_now()),
  ('scenes/taken.mp4', 'scene', mdame.engine_now()),
  ('renders/later.mp4', 'render', mdame.engine_now() + interval '1 hour');
insert into mdame.scene_cache (scene_hash, asset_key, backend) values (repeat('f', 64), 'scenes/taken.mp4', 'procedural-ffmpeg/1');

select results_eq($$select key, attempts from mdame.claim_storage_deletions(10, 60)$$, $$values ('scenes/free.mp4'::text, 1)$$,
  'only the due key nothing uses is claimed');
select ok((select not_before > mdame.engine_now() + interval '59 seconds' from mdame.storage_deletions where key = 'scenes/free.mp4'), 'the claim hides it for its lease');
select is((select count(*)::int from mdame.storage_deletions where key = 'scenes/taken.mp4'), 0, 'the key in use again left the outbox');
select is((select count(*)::int from mdame.claim_storage_deletions(10, 60)), 0, 'a second claim finds nothing due');
select throws_ok($$select * from mdame.claim_storage_deletions(0, 60)$$, '22023', null, 'a claim of nothing is refused');

select * from finish();
rollback;
