begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60);
select is(mdame.release_scene_claim(repeat('e', 64), 'pexels/1', 'worker-b'), false, 'another worker cannot release the claim');
select is(mdame.release_scene_claim(repeat('e', 64), 'pexels/1', 'worker-a'), true, 'the holder releases it');
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-b', 60)), 'claimed', 'a waiting worker takes it at once');

select * from finish();
rollback;
