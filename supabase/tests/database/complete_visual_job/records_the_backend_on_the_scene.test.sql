begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('media');
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status)
values ((select id from u), 0, 'p0', 'hi', 0, 3, repeat('b', 64), 'queued');
create temp table m as select pgmq.send('visual_generation', jsonb_build_object('unit_id', s.unit_id, 'scene_id', s.id, 'scene_index', s.scene_index, 'scene_hash', s.scene_hash)) as msg_id
  from mdame.scenes s where s.scene_hash = repeat('b', 64);
-- The worker recorded its entry (with the credit) before calling back.
select mdame.record_scene_asset(repeat('b', 64), 'pexels/1', 'scenes/p.mp4',
  '{"provider": "pexels", "author": "A", "page_url": "http://127.0.0.1/video/x-1/", "licence": "Pexels License"}', 'w');

select is((mdame.complete_visual_job((select msg_id from m), (select id from mdame.scenes where scene_hash = repeat('b', 64)),
          repeat('b', 64), 'scenes/p.mp4', 'pexels/1', false, 'wh-backend')).backend, 'pexels/1', 'the scene names the backend that made it');
select is((select count(*) from mdame.scene_cache where scene_hash = repeat('b', 64)), 1::bigint, 'the worker''s cache entry is kept, not doubled');
select is((select c.credit->>'licence' from mdame.scenes s join mdame.scene_cache c on c.scene_hash = s.scene_hash and c.backend = s.backend
            where s.scene_hash = repeat('b', 64)), 'Pexels License', 'the scene''s credit is found through its backend');

select * from finish();
rollback;
