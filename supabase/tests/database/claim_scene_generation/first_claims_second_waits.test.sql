begin;
\ir ../_fixtures.psql
select plan(5);

select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60)), 'claimed', 'the first worker claims the key');
select is((select (state, holder) from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-b', 60)),
          ('busy'::text, 'worker-a'::text), 'a second worker finds it busy, held by the first');
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60)), 'claimed', 'the holder renews its own claim');
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'gemini-image/1:m', 'worker-b', 60)), 'claimed',
          'another backend of the same scene is a key of its own');
select throws_ok($$select * from mdame.claim_scene_generation('nothex', 'pexels/1', 'worker-a', 60)$$, '22023', null, 'a malformed scene_hash is refused');

select * from finish();
rollback;
