begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(5);

-- One unit published on YouTube and on TikTok, each with its figures; another on TikTok only.
create temp table tt as select tests.post_with_counts('Both', '7300000000000000101', 3, now(), 900, 40, 3, 5) as id;
create temp table u as select unit_id as id from mdame.publications where id = (select id from tt);
create temp table yt as select mdame.begin_publication((select id from u),
  (select id from mdame.dimension_accounts where dimension_id = 'tech-explained' and platform = 'youtube' order by created_at, id limit 1)) as p;
update mdame.publications set status = 'published', external_id = 'yt-both', published_at = now() - interval '7 days' where id = (select (p).id from yt);
insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views, average_view_duration_s,
                                   average_view_percentage, likes, retention)
values ((select (p).id from yt), 7, now(), current_date - 7, current_date, 500, 420, 20, 64.5, 9, '[]');
select tests.post_with_counts('TikTok only', '7300000000000000102', 7, now(), 1200, 80, 6, 2);

create temp table e as select * from mdame.get_adaptation_evidence('tech-explained', now() - interval '1 day');
select is((select count(*)::int from e), 3, 'a row per publication with figures');
select is((select row(window_days, retention, views)::text from e where unit_id = (select id from u) and platform = 'youtube'),
  row(7, 64.5::double precision, 420::bigint)::text, 'YouTube: its retention and engaged views');
select is((select row(window_days, retention, views)::text from e where unit_id = (select id from u) and platform = 'tiktok'),
  row(3, null::double precision, 900::bigint)::text, 'TikTok: its views, no retention');
select is((select count(distinct unit_id)::int from e), 2, 'the TikTok-only unit is evidence too');
select is((select array_agg(platform order by platform) from e where unit_id = (select id from u)), array['tiktok', 'youtube'],
  'both platforms of the unit');

select * from finish();
rollback;
