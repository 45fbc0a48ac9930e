begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(6);

-- B: most views; C: best retention, with its curve; A: worst retention, with its curve; T: a TikTok post (no engaged views).
create temp table a as select tests.video_with_analytics('A', 'vidA', 7, '2026-11-17 06:00Z', 400, 300, 45) as id;
create temp table c as select tests.video_with_analytics('C', 'vidC', 3, '2026-11-19 06:00Z', 200, 150, 80) as id;
select tests.video_with_analytics('B', 'vidB', 7, '2026-11-18 06:00Z', 900, 20, 50);
select tests.post_with_counts('T', '7300000000000000009', 7, '2026-11-20 06:00Z', 600, 40, 3, 5);
update mdame.video_analytics set retention = '[{"ratio": 0, "watch_ratio": 1}, {"ratio": 1, "watch_ratio": 0.3}]' where publication_id = (select id from a);
update mdame.video_analytics set retention = '[{"ratio": 0, "watch_ratio": 1}, {"ratio": 1, "watch_ratio": 0.8}]' where publication_id = (select id from c);
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select jsonb_agg(v->>'title') from r, jsonb_array_elements(j->'videos'->'each') v), '["B", "T", "A", "C"]'::jsonb,
          'every video of the week, most viewed first');
select is((select (j->'videos'->'each'->0) - 'publication_id' from r),
          '{"platform": "youtube", "title": "B", "views": 900, "engaged_views": 20}'::jsonb, 'with its platform, views and engaged views');
select is((select j->'videos'->'each'->1->'engaged_views' from r), 'null'::jsonb, 'a TikTok post has no engaged views');
select is((select j->'videos'->'retention_curves'->'best' from r), '[{"ratio": 0, "watch_ratio": 1}, {"ratio": 1, "watch_ratio": 0.8}]'::jsonb,
          'the best retention video''s curve (C)');
select is((select j->'videos'->'retention_curves'->'worst' from r), '[{"ratio": 0, "watch_ratio": 1}, {"ratio": 1, "watch_ratio": 0.3}]'::jsonb,
          'the worst retention video''s curve (A)');
select is((select j->'videos'->'retention_curves' from mdame.weekly_report('tech-explained', '2026-11-02') as j),
          '{"best": null, "worst": null}'::jsonb, 'a week without videos has no curve');

select * from finish();
rollback;
