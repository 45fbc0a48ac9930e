begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(4);

-- Jakarta is UTC+7: Sunday 2026-11-22 20:00 UTC is Monday 03:00 there, in the next week; Sunday
-- 2026-11-15 18:00 UTC is Monday 01:00 there, in this week.
update mdame.dimensions set publishing = publishing || '{"time_zone": "Asia/Jakarta"}' where id = 'tech-explained';
select tests.unit_through('tech-explained', array['script', 'published'], array['2026-11-22 19:00Z', '2026-11-22 20:00Z']::timestamptz[]);
select tests.unit_through('tech-explained', array['script', 'published'], array['2026-11-15 17:00Z', '2026-11-15 18:00Z']::timestamptz[]);
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select j->>'time_zone' from r), 'Asia/Jakarta', 'the week is counted in the dimension''s zone');
select is((select (j->'outcomes'->>'published')::int from r), 1, 'only the unit published on its local Monday 01:00 counts');
select is((select (d->>'published')::int from r, jsonb_array_elements(j->'daily') d where d->>'date' = '2026-11-16'), 1, 'on Monday, local time');
select is((select (mdame.weekly_report('tech-explained', '2026-11-23')->'outcomes'->>'published')::int), 1,
  'the other one is in the next week');

select * from finish();
rollback;
