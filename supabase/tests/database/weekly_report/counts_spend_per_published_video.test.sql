begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(4);

-- Two units published in the week; calls in the week (one cached), one last week, one of another dimension.
select tests.unit_through('tech-explained', array['script', 'published'], array['2026-11-17 10:00Z', '2026-11-17 11:00Z']::timestamptz[]);
select tests.unit_through('tech-explained', array['script', 'published'], array['2026-11-18 10:00Z', '2026-11-18 11:00Z']::timestamptz[]);
insert into mdame.provider_usage (call_key, provider, model, kind, quantity, usd, cached, dimension_id, recorded_at)
values ('c1', 'gemini-image', 'm', 'images', 2, 0.078, false, 'tech-explained', '2026-11-17 10:30Z'),
       ('c2', 'gemini', 'm', 'input_tokens', 1000, 0.0003, false, 'tech-explained', '2026-11-17 10:31Z'),
       ('c2', 'gemini', 'm', 'output_tokens', 400, 0.001, false, 'tech-explained', '2026-11-17 10:31Z'),
       ('c3', 'gemini', 'm', 'input_tokens', 0, 0, true, 'tech-explained', '2026-11-18 10:30Z'),
       ('old', 'gemini-image', 'm', 'images', 1, 0.039, false, 'tech-explained', '2026-11-12 10:00Z'),
       ('other', 'gemini-image', 'm', 'images', 1, 0.039, false, 'sains-singkat', '2026-11-17 10:00Z');
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select (j->'spend'->>'usd')::numeric from r), 0.0793, 'the dimension''s spend in the week');
select is((select (j->'spend'->>'usd_per_published_video')::numeric from r), 0.03965, 'over the two videos published in the week');
select is((select j->'spend'->'by_provider' from r),
  '[{"provider": "gemini-image", "usd": 0.078, "calls": 1, "cached_calls": 0}, {"provider": "gemini", "usd": 0.0013, "calls": 2, "cached_calls": 1}]'::jsonb,
  'by provider, the cached call counted at no cost');
select is((select j->'spend'->'daily' from r),
  '[{"date": "2026-11-16", "usd": 0}, {"date": "2026-11-17", "usd": 0.0793}, {"date": "2026-11-18", "usd": 0}, {"date": "2026-11-19", "usd": 0},
    {"date": "2026-11-20", "usd": 0}, {"date": "2026-11-21", "usd": 0}, {"date": "2026-11-22", "usd": 0}]'::jsonb,
  'each day of the week, Monday first, for the spend chart');

select * from finish();
rollback;
