begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('failed');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
create temp table r as select * from mdame.complete_render_job((select msg_id from m), (select id from u), '{"video_key": "renders/late.mp4"}', 'wh-late');

select is((select stage from r), 'failed', 'the failed unit is returned unchanged');
select is((select video from mdame.work_units where id = (select id from u)), null, 'no video is stored');
select ok(tests.archived('render', (select msg_id from m)), 'the late render job is archived');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from u))), 0::bigint, 'nothing is published');

select * from finish();
rollback;
