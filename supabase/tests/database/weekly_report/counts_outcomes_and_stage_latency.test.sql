begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(11);

-- Monday: a unit goes all the way (script 1 min, safety 2 min, plan 2 min, media 10 min, render 5 min, publish 1 min).
select tests.unit_through('tech-explained', array['script', 'safety', 'plan', 'media', 'render', 'publish', 'published'],
  array['2026-11-16 10:00Z', '2026-11-16 10:01Z', '2026-11-16 10:03Z', '2026-11-16 10:05Z', '2026-11-16 10:15Z', '2026-11-16 10:20Z', '2026-11-16 10:21Z']::timestamptz[]);
-- Tuesday and Wednesday: two rejected by the classifier, one by the hook audit (its reason quotes the model after the colon).
select tests.unit_through('tech-explained', array['script', 'safety', 'rejected'], array['2026-11-17 09:00Z', '2026-11-17 09:03Z', '2026-11-17 09:04Z']::timestamptz[], 'rejected by the safety classifier');
select tests.unit_through('tech-explained', array['script', 'safety', 'rejected'], array['2026-11-18 09:00Z', '2026-11-18 09:05Z', '2026-11-18 09:06Z']::timestamptz[], 'rejected by the safety classifier');
select tests.unit_through('tech-explained', array['script', 'rejected'], array['2026-11-18 12:00Z', '2026-11-18 12:02Z']::timestamptz[], 'hook audit failed: the opening is weak');
-- Thursday: one fails at render.
select tests.unit_through('tech-explained', array['script', 'safety', 'plan', 'media', 'render', 'failed'],
  array['2026-11-19 07:00Z', '2026-11-19 08:00Z', '2026-11-19 08:01Z', '2026-11-19 08:02Z', '2026-11-19 08:20Z', '2026-11-19 09:00Z']::timestamptz[], 'render: ffmpeg exited 1');
-- Another dimension's unit and a unit published the Sunday before count nowhere here.
select tests.unit_through('sains-singkat', array['script', 'published'], array['2026-11-17 10:00Z', '2026-11-17 11:00Z']::timestamptz[]);
select tests.unit_through('tech-explained', array['script', 'published'], array['2026-11-15 10:00Z', '2026-11-15 23:59Z']::timestamptz[]);
insert into mdame.rejected_topics (run_id, dimension_id, title, reason, created_at)
select (select id from mdame.pipeline_runs limit 1), 'tech-explained', 't' || i, case when i < 3 then 'near_duplicate' else 'off_subject' end, '2026-11-20 10:00Z'
  from generate_series(1, 3) i;

create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select (j->'outcomes'->>'published')::int from r), 1, 'one unit published in the week');
select is((select (j->'outcomes'->>'rejected')::int from r), 3, 'three rejected');
select is((select j->'outcomes'->'rejected_by_reason' from r),
  '[{"reason": "rejected by the safety classifier", "count": 2}, {"reason": "hook audit failed", "count": 1}]'::jsonb,
  'rejections by reason, the text after a colon left out');
select is((select j->'outcomes'->'failed_by_stage' from r), '[{"stage": "render", "count": 1}]'::jsonb, 'the failure is counted at the stage it left');
select is((select d from r, jsonb_array_elements(j->'daily') d where d->>'date' = '2026-11-16'),
  '{"date": "2026-11-16", "published": 1, "rejected": 0, "failed": 0}'::jsonb, 'Monday: the publication');
select is((select d from r, jsonb_array_elements(j->'daily') d where d->>'date' = '2026-11-18'),
  '{"date": "2026-11-18", "published": 0, "rejected": 2, "failed": 0}'::jsonb, 'Wednesday: two rejections');
select is((select jsonb_agg(l->>'stage') from r, jsonb_array_elements(j->'stage_latency') l),
  '["script", "safety", "plan", "media", "render", "publish"]'::jsonb, 'latency per stage, in pipeline order');
select is((select l from r, jsonb_array_elements(j->'stage_latency') l where l->>'stage' = 'script'),
  '{"stage": "script", "samples": 5, "p50_s": 180.0, "p95_s": 2940.0}'::jsonb,
  'script: the five units that left it this week (60, 120, 180, 300, 3600 s), not the one that left it the Sunday before');
select is((select l from r, jsonb_array_elements(j->'stage_latency') l where l->>'stage' = 'render'),
  '{"stage": "render", "samples": 2, "p50_s": 1350.0, "p95_s": 2295.0}'::jsonb, 'render: 5 min and 40 min');
select is((select l->'samples' from r, jsonb_array_elements(j->'stage_latency') l where l->>'stage' = 'media'), '2'::jsonb, 'media counted as a stage too');
select is((select j->'topics_rejected' from r), '[{"reason": "near_duplicate", "count": 2}, {"reason": "off_subject", "count": 1}]'::jsonb,
  'topics dropped at ingest, by reason');

select * from finish();
rollback;
