begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(3);

-- Four checks in the week (one first video with nothing to compare, one pass, one rewrite, one
-- rejection), one the week before and one of another dimension.
create temp table u as select tests.unit_through('tech-explained', array['script', 'plan'], array['2026-11-17 09:00Z', '2026-11-17 09:05Z']::timestamptz[]) as id;
create temp table o as select tests.unit_through('sains-singkat', array['script', 'plan'], array['2026-11-17 09:00Z', '2026-11-17 09:05Z']::timestamptz[]) as id;
insert into mdame.events (unit_id, stage, kind, detail, created_at)
select unit_id, 'plan', 'similarity_checked', jsonb_strip_nulls(jsonb_build_object('action', a, 'combined', c)), t
  from (values ((select id from u), 'passed', null::numeric, '2026-11-17 10:00Z'::timestamptz), ((select id from u), 'passed', 0.2, '2026-11-18 10:00Z'),
               ((select id from u), 'regenerated', 0.7, '2026-11-19 10:00Z'), ((select id from u), 'rejected', 0.9, '2026-11-19 11:00Z'),
               ((select id from u), 'rejected', 0.95, '2026-11-15 10:00Z'), ((select id from o), 'rejected', 0.99, '2026-11-18 10:00Z')) v(unit_id, a, c, t);
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select (j->'similarity') - array['median_combined', 'max_combined'] from r), '{"checks": 4, "passed": 2, "regenerated": 1, "rejected": 1}'::jsonb,
  'the week''s checks of the dimension, by action');
select is((select (j->'similarity'->>'median_combined')::numeric from r), 0.7, 'the median of the combined scores, checks without a closest video left out');
select is((select (j->'similarity'->>'max_combined')::numeric from r), 0.9, 'and the highest');

select * from finish();
rollback;
