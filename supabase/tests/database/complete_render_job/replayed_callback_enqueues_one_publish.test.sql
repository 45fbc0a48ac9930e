begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
select mdame.complete_render_job((select msg_id from m), (select id from u), '{"video_key": "renders/first.mp4"}', 'wh-r1');

select is((mdame.complete_render_job((select msg_id from m), (select id from u), '{"video_key": "renders/first.mp4"}', 'wh-r1')).stage, 'publish',
          'a replayed callback returns the unit at publish');
select is((mdame.complete_render_job((select msg_id from m), (select id from u), '{"video_key": "renders/second.mp4"}', 'wh-r2')).stage, 'publish',
          'so does a second delivery of the job under a new webhook-id');
select is((select video->>'video_key' from mdame.work_units where id = (select id from u)), 'renders/first.mp4', 'the first video is kept');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from u))), 1::bigint, 'one publish task');

select * from finish();
rollback;
