begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('failed');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table m as select pgmq.send('visual_generation', (select job from s)) as msg_id;
create temp table r as select * from mdame.complete_visual_job((select msg_id from m), (select id from s), (select scene_hash from s),
                                                               'scenes/late.mp4', 'procedural-ffmpeg/1', false, 'wh-late');

select is((select status from r), 'queued', 'the scene of a failed unit is returned unchanged');
select ok(tests.archived('visual_generation', (select msg_id from m)), 'the late job is archived');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'the unit stays failed');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'no render job is enqueued');
select is(mdame.lookup_scene_cache((select scene_hash from s)), 'scenes/late.mp4', 'the generated asset still joins the scene cache');

select * from finish();
rollback;
