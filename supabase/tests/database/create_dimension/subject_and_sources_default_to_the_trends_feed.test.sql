begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.create_dimension('{"id": "pgtap-plain", "display_name": "Plain", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}}'::jsonb);
select is((select (subject, sources, min_score) from mdame.dimensions where id = 'pgtap-plain'),
          ('{"keywords": [], "categories": [], "excluded_terms": []}'::jsonb, '[{"kind": "google_trends", "weight": 1}]'::jsonb, 0::double precision),
          'a config without a subject reads every topic of its geo''s trends feed, with no threshold');

select mdame.create_dimension('{"id": "pgtap-niche", "display_name": "Niche", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"},
  "subject": {"keywords": ["bread"], "categories": [], "excluded_terms": ["casino"]}, "sources": [{"kind": "feed", "url": "https://bakery.invalid/rss", "weight": 0.5, "limit": 10}], "min_score": 0.4}'::jsonb);
select is((select subject->'keywords' from mdame.dimensions where id = 'pgtap-niche'), '["bread"]'::jsonb, 'a declared subject is stored');
select is((select (sources->0->>'url', min_score) from mdame.dimensions where id = 'pgtap-niche'), ('https://bakery.invalid/rss'::text, 0.4::double precision), 'with its sources and threshold');

select throws_ok($$select mdame.create_dimension('{"id": "pgtap-nosrc", "display_name": "X", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}, "sources": []}'::jsonb)$$,
                 '23514', null, 'a dimension with no source is refused by the table');

select * from finish();
rollback;
