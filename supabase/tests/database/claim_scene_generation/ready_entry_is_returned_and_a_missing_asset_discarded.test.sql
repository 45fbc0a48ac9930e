begin;
\ir ../_fixtures.psql
select plan(4);

insert into mdame.scene_cache (scene_hash, backend, asset_key, credit)
values (repeat('e', 64), 'pexels/1', 'scenes/x.mp4', '{"provider": "pexels", "author": "A", "page_url": "http://127.0.0.1/video/x-1/", "licence": "Pexels License"}');
select is((select (state, asset_key) from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60)),
          ('ready'::text, 'scenes/x.mp4'::text), 'a cached key is ready, with its asset');
select is((select credit->>'author' from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60)), 'A', 'and its credit');
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60, 'scenes/x.mp4')), 'claimed',
          'naming the entry''s asset as missing drops the entry and claims the key');
select is((select count(*) from mdame.scene_cache where scene_hash = repeat('e', 64)), 0::bigint, 'the stale entry is gone');

select * from finish();
rollback;
