begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(4);

-- Scenes: three ready in the week (two from the cache), one queued (not looked up yet), one last week.
create temp table u as select tests.unit_through('tech-explained', array['script', 'media'], array['2026-11-17 09:00Z', '2026-11-17 09:05Z']::timestamptz[]) as id;
select tests.add_scene((select id from u), i, 'ready') from generate_series(0, 4) i;
update mdame.scenes set cache_hit = scene_index in (0, 1), updated_at = '2026-11-17 09:10Z' where unit_id = (select id from u) and scene_index < 3;
update mdame.scenes set status = 'queued', asset_key = null, cache_hit = null, updated_at = '2026-11-17 09:10Z' where unit_id = (select id from u) and scene_index = 3;
update mdame.scenes set cache_hit = true, updated_at = '2026-11-10 09:10Z' where unit_id = (select id from u) and scene_index = 4;
-- LLM: one hit of four lookups; TTS: one hit of two; another dimension's and last week's lookups do not count.
insert into mdame.events (kind, stage, detail, created_at)
select 'cache_lookup', null, jsonb_build_object('cache', c, 'dimension_id', d, 'hit', h), t
  from (values ('llm', 'tech-explained', true, '2026-11-18 10:00Z'::timestamptz), ('llm', 'tech-explained', false, '2026-11-18 10:00Z'),
               ('llm', 'tech-explained', false, '2026-11-19 10:00Z'), ('llm', 'tech-explained', false, '2026-11-22 23:59Z'),
               ('llm', 'tech-explained', true, '2026-11-23 00:00Z'), ('llm', 'sains-singkat', true, '2026-11-18 10:00Z'),
               ('tts', 'tech-explained', true, '2026-11-18 10:00Z'), ('tts', 'tech-explained', false, '2026-11-20 10:00Z')) v(c, d, h, t);
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select j->'cache'->'scenes' from r), '{"hits": 2, "lookups": 3, "hit_rate": 0.6667}'::jsonb, 'scenes: two of the three made this week came from the cache');
select is((select j->'cache'->'llm' from r), '{"hits": 1, "lookups": 4, "hit_rate": 0.25}'::jsonb, 'LLM: one answer of four from the cache');
select is((select j->'cache'->'tts' from r), '{"hits": 1, "lookups": 2, "hit_rate": 0.5}'::jsonb, 'TTS: one track of two reused');
select is((select (mdame.weekly_report('sains-singkat', '2026-11-16')->'cache'->'llm'->>'hits')::int), 1, 'each dimension counts its own');

select * from finish();
rollback;
