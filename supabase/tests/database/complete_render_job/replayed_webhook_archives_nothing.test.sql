begin;
\ir ../_fixtures.psql
select plan(3);

-- The render of a unit completes; later the unit has a render job queued again (a dead-letter
-- retry, say). A replay of the first delivery, naming that new job, must change nothing.
create temp table u as select * from tests.unit_at_stage('render');
create temp table m1 as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
select mdame.complete_render_job((select msg_id from m1), (select id from u), '{"video_key": "renders/first.mp4"}', 'wh-first');
create temp table m2 as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;

select is((mdame.complete_render_job((select msg_id from m2), (select id from u), '{"video_key": "renders/other.mp4"}', 'wh-first')).stage,
          'publish', 'the replay returns the unit as it is');
select ok(tests.queue_has('render', (select msg_id from m2)), 'the job the replay named is not archived');
select is((select video->>'video_key' from mdame.work_units where id = (select id from u)), 'renders/first.mp4', 'the stored video is unchanged');

select * from finish();
rollback;
