begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('publish');
update mdame.work_units set video = '{"video_key": "renders/x.mp4"}' where id = (select id from u);
update mdame.dimension_accounts set active = (channel_handle = '@tech-explained-demo') where dimension_id = 'tech-explained';
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select * from mdame.begin_publication((select id from u), (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'));
create temp table p_again as select * from mdame.begin_publication((select id from u), (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'));

select is((select id from p_again), (select id from p), 'begin_publication returns the same publication on a repeat');
select is((mdame.record_upload_session((select id from p), 'http://upload/1')).upload_session_uri, 'http://upload/1', 'the session URI is stored');
select is((mdame.record_upload_session((select id from p), 'http://upload/2')).upload_session_uri, 'http://upload/1', 'a second URI does not replace the first');
select is((mdame.complete_publication((select msg_id from m), (select id from p), 'vid-1', 'step:t:7:x')).stage, 'published', 'the unit is published');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the publish task is archived');

select * from finish();
rollback;
