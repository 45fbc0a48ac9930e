begin;
\ir ../_fixtures.psql
select plan(5);

select mdame.claim_scene_generation(repeat('e', 64), 'gemini-image/1:m', 'worker-a', 60);
select is((mdame.record_scene_asset(repeat('e', 64), 'gemini-image/1:m', 'scenes/a.mp4', null, 'worker-a')).asset_key, 'scenes/a.mp4',
          'the clip is recorded');
select is((select backend_name from mdame.scene_cache where scene_hash = repeat('e', 64)), 'gemini-image', 'under its backend''s name');
select is((select count(*) from mdame.scene_generation_claims), 0::bigint, 'the claim ends');
select is((mdame.record_scene_asset(repeat('e', 64), 'gemini-image/1:m', 'scenes/b.mp4', null, 'worker-b')).asset_key, 'scenes/a.mp4',
          'a second worker finishing late gets the first entry back');
select throws_ok($$select mdame.record_scene_asset(repeat('e', 64), 'pexels/1', 'scenes/c.mp4', '"a string"', 'w')$$, '22023', null,
                 'a credit that is not an object is refused');

select * from finish();
rollback;
