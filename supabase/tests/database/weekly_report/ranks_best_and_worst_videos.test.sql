begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(7);

-- A: day 3 and day 7 fetched this week (the day-7 figures count); B: most views but fewest engaged;
-- C: best retention; D: fetched last week only; E: fetched next week only.
create temp table a as select tests.video_with_analytics('A [click](https://evil.example)', 'vidA', 3, '2026-11-17 06:00Z', 100, 50, 40) as id;
insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                   average_view_duration_s, average_view_percentage, likes, retention)
values ((select id from a), 7, '2026-11-21 06:00Z', '2026-11-14', '2026-11-21', 400, 300, 31, 45, 30, '[]');
select tests.video_with_analytics('B', 'vidB', 7, '2026-11-18 06:00Z', 900, 20, 50);
select tests.video_with_analytics('C', 'vidC', 3, '2026-11-19 06:00Z', 200, 150, 80);
select tests.video_with_analytics('D', 'vidD', 7, '2026-11-12 06:00Z', 5000, 4000, 99);
select tests.video_with_analytics('E', 'vidE', 3, '2026-11-24 06:00Z', 5000, 1, 1);
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select (j->'videos'->>'count')::int from r), 3, 'three videos had analytics this week');
select is((select j->'videos'->'best_engaged'->>'title' from r), 'A [click](https://evil.example)', 'most engaged views: A, its title as stored');
select is((select j->'videos'->'best_engaged'->>'engaged_views' from r), '300', 'with its latest window (day 7)');
select is((select j->'videos'->'best_engaged'->>'url' from r), 'https://www.youtube.com/shorts/vidA', 'and its platform link');
select is((select j->'videos'->'worst_engaged'->>'title' from r), 'B', 'fewest engaged views: B');
select is((select j->'videos'->'best_retention'->>'title' from r), 'C', 'best retention: C');
select is((select j->'videos'->'worst_retention'->>'title' from r), 'A [click](https://evil.example)', 'worst retention: A at 45 %');

select * from finish();
rollback;
