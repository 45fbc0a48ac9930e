begin;
\ir ../_fixtures.psql
select plan(5);

-- No voice yet, so the unit stays at media and only the scene's own guard is in play.
create temp table u as select * from tests.unit_at_stage('media');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table m1 as select pgmq.send('visual_generation', (select job from s)) as msg_id;
select mdame.complete_visual_job((select msg_id from m1), (select id from s), (select scene_hash from s), 'scenes/first.mp4', 'procedural-ffmpeg/1', false, 'wh-1');

-- The job was delivered twice; the second worker reports under its own webhook-id.
create temp table m2 as select pgmq.send('visual_generation', (select job from s)) as msg_id;
create temp table r as select * from mdame.complete_visual_job((select msg_id from m2), (select id from s), (select scene_hash from s),
                                                               'scenes/second.mp4', 'procedural-ffmpeg/1', true, 'wh-2');

select is((select (status, asset_key, cache_hit) from r), ('ready'::text, 'scenes/first.mp4'::text, false), 'the scene keeps the first result');
select ok(tests.archived('visual_generation', (select msg_id from m2)), 'the second delivery is archived');
select is(mdame.lookup_scene_cache((select scene_hash from s)), 'scenes/first.mp4', 'the cache keeps the first asset');
select is(tests.event_count((select id from u), 'scene_ready'), 1::bigint, 'the scene becomes ready once');
select is((select stage from mdame.work_units where id = (select id from u)), 'media', 'the unit still waits for its voice');

select * from finish();
rollback;
