begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('render');
update mdame.run_dimensions set config = jsonb_build_object('music', jsonb_build_object('library', 'music/calm'))
  where (run_id, dimension_id) = (select run_id, dimension_id from u);
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
create function pg_temp.video(track_key text) returns jsonb language sql as $$
  select jsonb_build_object('video_key', 'renders/v.mp4', 'music', jsonb_build_object('track_key', track_key,
    'license_key', 'x.license.json', 'title', 'T', 'author', 'A', 'license', 'CC0-1.0', 'source_url', 'https://music.invalid/t'))
$$;

select throws_ok(
  format($$select mdame.complete_render_job(%s, %L, %L, 'wh-lib-1')$$, (select msg_id from m), (select id from u), pg_temp.video('music/loud/anthem.mp3')),
  'MDS01', null, 'a track of another library is refused');
select throws_ok(
  format($$select mdame.complete_render_job(%s, %L, %L, 'wh-lib-2')$$, (select msg_id from m), (select id from u), pg_temp.video('music/calmer/dawn.mp3')),
  'MDS01', null, 'a library whose name only starts like the dimension''s is another library');
update mdame.run_dimensions set config = '{}'::jsonb where (run_id, dimension_id) = (select run_id, dimension_id from u);
select throws_ok(
  format($$select mdame.complete_render_job(%s, %L, %L, 'wh-lib-3')$$, (select msg_id from m), (select id from u), pg_temp.video('music/calm/dawn.mp3')),
  'MDS01', null, 'a bed on a video whose dimension has no music library is refused');
select is((select (stage, video, (select count(*) from mdame.webhook_receipts where webhook_id like 'wh-lib-%')) from mdame.work_units where id = (select id from u)),
  ('render'::text, null::jsonb, 0::bigint), 'the unit stays at render with nothing stored and no delivery used up');

select * from finish();
rollback;
