begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(8);

-- A TikTok post and its day-3 fetch on the queue, as the schedule leaves them.
create temp table pub as select tests.post_with_counts('Post', '7300000000000000009', 3, now(), 1, 0, 0, 0) as id;
delete from mdame.video_analytics;
insert into mdame.analytics_fetches (publication_id, window_days, due_at, enqueued_at) select id, 3, now(), now() from pub;
create temp table m as select pgmq.send('analytics_fetches', jsonb_build_object('publication_id', (select id from pub), 'window_days', 3)) as msg_id;

create temp table row1 as select * from mdame.record_tiktok_video_analytics((select id from pub), 3, current_date - 3, current_date, 800, 40, 3, 5,
  (select msg_id from m));
select is((select row(platform, views, likes, comments, shares)::text from row1), row('tiktok', 800, 40, 3, 5)::text,
  'the counts are stored, the platform the publication''s');
select is((select row(engaged_views, average_view_percentage, retention)::text from row1), row(null, null, null)::text, 'with no watch figures');
select is((select status from mdame.analytics_fetches where publication_id = (select id from pub)), 'fetched', 'the fetch is done');
select is((select count(*)::int from pgmq.q_analytics_fetches), 0, 'its message archived with the row');
select is(tests.event_count((select unit_id from mdame.publications where id = (select id from pub)), 'analytics_fetched', 'analytics'), 1::bigint,
  'and logged');
select is((mdame.record_tiktok_video_analytics((select id from pub), 3, current_date - 3, current_date, 900, 41, 3, 6)).views, 900::bigint,
  'a repeat of the window replaces its counts');

select throws_ok(format('select mdame.record_tiktok_video_analytics(%L, 3, current_date, current_date, -1, 0, 0, 0)', (select id from pub)),
  '22023', null, 'a negative count is refused');
select throws_ok(format('select mdame.record_tiktok_video_analytics(%L, 3, current_date, current_date, 1, 0, 0, 0)', (tests.fresh_publication()).id),
  'MDN01', null, 'a YouTube publication is not a TikTok one');

select * from finish();
rollback;
