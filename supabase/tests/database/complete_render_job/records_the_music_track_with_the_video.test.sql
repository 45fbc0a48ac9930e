begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('render');
update mdame.run_dimensions set config = jsonb_build_object('music', jsonb_build_object('library', 'music/calm'))
  where (run_id, dimension_id) = (select run_id, dimension_id from u);
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
create temp table track as select '{"track_key": "music/calm/dawn.m4a", "license_key": "music/calm/dawn.license.json", "title": "Dawn", "author": "MD-AME test generator", "license": "CC0-1.0", "source_url": "https://music.invalid/dawn"}'::jsonb as record;
select mdame.complete_render_job((select msg_id from m), (select id from u),
  jsonb_build_object('video_key', 'renders/with-music.mp4', 'music', (select record from track)), 'wh-music');

select is((select video_music from mdame.work_units where id = (select id from u)), (select record from track), 'the track and its licence are on the unit''s video_music column');
select is((select stage from mdame.work_units where id = (select id from u)), 'publish', 'the unit moves on to publish');

create temp table u2 as select * from tests.unit_at_stage('render');
create temp table m2 as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u2))) as msg_id;
select mdame.complete_render_job((select msg_id from m2), (select id from u2), '{"video_key": "renders/voice-only.mp4"}', 'wh-voice-only');
select is((select video_music from mdame.work_units where id = (select id from u2)), null, 'a voice-only video records no music');

select * from finish();
rollback;
