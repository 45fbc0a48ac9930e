begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(10);

-- A TikTok post and its day-3 fetch on the queue, as the schedule leaves them.
create temp table pub as select tests.post_with_counts('Post', '7300000000000000009', 3, now(), 1, 0, 0, 0) as id;
delete from mdame.video_analytics;
insert into mdame.analytics_fetches (publication_id, window_days, due_at, enqueued_at) select id, 3, now(), now() from pub;
create temp table m as select pgmq.send('analytics_fetches', jsonb_build_object('publication_id', (select id from pub), 'window_days', 3)) as msg_id;

create temp table row1 as select * from mdame.record_counted_video_analytics((select id from pub), 3, current_date - 3, current_date, 800, 40, 3, 5,
  p_msg_id => (select msg_id from m));
select is((select row(platform, views, likes, comments, shares)::text from row1), row('tiktok', 800, 40, 3, 5)::text,
  'the counts are stored, the platform the publication''s');
select is((select row(engaged_views, average_view_percentage, retention)::text from row1), row(null, null, null)::text, 'with no watch figures');
select is((select status from mdame.analytics_fetches where publication_id = (select id from pub)), 'fetched', 'the fetch is done');
select is((select count(*)::int from pgmq.q_analytics_fetches), 0, 'its message archived with the row');
select is(tests.event_count((select unit_id from mdame.publications where id = (select id from pub)), 'analytics_fetched', 'analytics'), 1::bigint,
  'and logged');
select is((mdame.record_counted_video_analytics((select id from pub), 3, current_date - 3, current_date, 900, 41, 3, 6)).views, 900::bigint,
  'a repeat of the window replaces its counts');

select throws_ok(format('select mdame.record_counted_video_analytics(%L, 3, current_date, current_date, -1, 0, 0, 0)', (select id from pub)),
  '22023', null, 'a negative count is refused');
create temp table yt as select mdame.begin_publication((tests.unit_ready_to_publish()).id,
  (select id from mdame.dimension_accounts where dimension_id = 'tech-explained' and platform = 'youtube' order by created_at, id limit 1)) as p;
select throws_ok(format('select mdame.record_counted_video_analytics(%L, 3, current_date, current_date, 1, 0, 0, 0)', (select (p).id from yt)),
  'MDN01', null, 'a YouTube publication''s figures are not counts');

-- An Instagram Reel: reach, saves and the average watch time beside the counts.
insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, channel_id) values ('tech-explained', 'instagram', '@ig-counts', '17841400000000001');
create temp table reel as select mdame.begin_publication((tests.unit_ready_to_publish()).id,
  (select id from mdame.dimension_accounts where channel_handle = '@ig-counts')) as p;
select is((select row(platform, views, likes, comments, shares, reach, saved, average_view_duration_s, engaged_views)::text
             from mdame.record_counted_video_analytics((select (p).id from reel), 7, current_date - 7, current_date, 500, 30, 4, 2, 420, 9, 11.5)),
  row('instagram', 500, 30, 4, 2, 420, 9, 11.5, null)::text, 'an Instagram Reel''s counts, reach, saves and watch time; no engaged views');
select throws_ok(format('select mdame.record_counted_video_analytics(%L, 3, current_date, current_date, 1, 0, 0, 0, -1)', (select (p).id from reel)),
  '22023', null, 'a negative reach is refused');

select * from finish();
rollback;
