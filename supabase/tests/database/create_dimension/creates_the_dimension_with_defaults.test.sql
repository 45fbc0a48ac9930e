begin;
\ir ../_fixtures.psql
select plan(3);

create temp table d as select * from mdame.create_dimension('{"id": "pgtap-dim", "display_name": "PgTAP", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}}'::jsonb);
select is((select (id, active, daily_limit, tts_rate) from d), ('pgtap-dim'::text, true, 1, '+0%'::text), 'the dimension is created active, with the default limit and rate');
select is((select (narration_min_words, narration_max_words) from mdame.dimensions where id = 'pgtap-dim'), (95, 150), 'with the default narration length');
select is((select safety_profile from mdame.dimensions where id = 'pgtap-dim'), '{"blocked_terms": []}'::jsonb, 'and an empty safety profile');

select * from finish();
rollback;
