begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(9);

-- Two YouTube videos and two TikTok posts with figures this week; a TikTok post of last week.
select tests.video_with_analytics('Yt one', 'vidY1', 7, '2026-11-18 06:00Z', 400, 300, 45);
select tests.video_with_analytics('Yt two', 'vidY2', 3, '2026-11-19 06:00Z', 100, 50, 60);
select tests.post_with_counts('Tt big', '7300000000000000001', 7, '2026-11-18 06:00Z', 1200, 90, 11, 20);
select tests.post_with_counts('Tt small', '7300000000000000002', 3, '2026-11-20 06:00Z', 300, 10, 2, 1);
select tests.post_with_counts('Tt old', '7300000000000000003', 3, '2026-11-10 06:00Z', 9000, 900, 90, 90);
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;
create temp table tt as select p from r, jsonb_array_elements(r.j->'videos'->'by_platform') p where p->>'platform' = 'tiktok';
create temp table yt as select p from r, jsonb_array_elements(r.j->'videos'->'by_platform') p where p->>'platform' = 'youtube';

select is((select (j->'videos'->>'count')::int from r), 4, 'four videos had figures this week, on both platforms');
select is((select jsonb_agg(p->>'platform' order by p->>'platform') from r, jsonb_array_elements(r.j->'videos'->'by_platform') p),
  '["tiktok", "youtube"]'::jsonb, 'one entry per platform, by name');
select is((select row(p->>'videos', p->>'views', p->>'likes', p->>'comments', p->>'shares')::text from tt), row('2', '1500', '100', '13', '21')::text,
  'TikTok''s totals: posts, views, likes, comments and shares');
select is((select row(p->>'engaged_views', p->>'average_view_percentage')::text from tt), row(null, null)::text, 'and no watch figures, which TikTok does not report');
select is((select p->'most_viewed'->>'title' from tt), 'Tt big', 'its most viewed post');
select is((select p->'most_viewed'->>'url' from tt), 'https://www.tiktok.com/@tech-explained-tt/video/7300000000000000001', 'linked on TikTok');
select is((select p->'least_viewed'->>'title' from tt), 'Tt small', 'its least viewed post');
select is((select row(p->>'videos', p->>'views', p->>'engaged_views', p->>'average_view_percentage', p->>'comments')::text from yt),
  row('2', '500', '350', '52.50', null)::text, 'YouTube''s totals: engaged views and the mean view percentage, no comments');
select is((select j->'videos'->'best_retention'->>'title' from r), 'Yt two', 'the retention ranking is of the videos that have one (YouTube''s)');

select * from finish();
rollback;
