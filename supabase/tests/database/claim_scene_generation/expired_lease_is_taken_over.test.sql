begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60);
-- worker-a died: its lease ran out.
update mdame.scene_generation_claims set lease_until = now() - interval '1 second' where holder = 'worker-a';
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-b', 60)), 'claimed', 'an expired lease is taken over');
select is((select (holder, claims) from mdame.scene_generation_claims where scene_hash = repeat('e', 64)), ('worker-b'::text, 2),
          'the claim names the new holder and counts the takeover');
select is((select state from mdame.claim_scene_generation(repeat('e', 64), 'pexels/1', 'worker-a', 60)), 'busy', 'the old holder, back late, waits');

select * from finish();
rollback;
