begin;
\ir ../_fixtures.psql
select plan(4);

create temp table d as select * from mdame.create_dimension(jsonb_build_object(
  'id', 'routed', 'display_name', 'Routed', 'language', 'en', 'tts_voice', 'en-US-AriaNeural', 'trend_geo', 'US',
  'style', '{"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}'::jsonb,
  'llm', '{"critic": [{"provider": "openai-compat", "model": "llama3.1:8b"}, {"provider": "gemini"}]}'::jsonb));
select is((select llm->'critic'->0->>'provider' from d), 'openai-compat', 'the routing is stored as given, in order');

create temp table plain as select * from mdame.create_dimension(jsonb_build_object(
  'id', 'plain', 'display_name', 'Plain', 'language', 'en', 'tts_voice', 'en-US-AriaNeural', 'trend_geo', 'US',
  'style', '{"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}'::jsonb));
select is((select llm from plain), '{}'::jsonb, 'without llm every task runs on the default');

select throws_ok($$select mdame.create_dimension(jsonb_build_object(
  'id', 'bad-task', 'display_name', 'Bad', 'language', 'en', 'tts_voice', 'en-US-AriaNeural', 'trend_geo', 'US',
  'style', '{"palette": ["#000000"], "motion": "drift", "caption_font": "DejaVu Sans"}'::jsonb,
  'llm', '{"horoscope": [{"provider": "gemini"}]}'::jsonb))$$, '23514', null, 'an unknown task is refused');
select is((select count(*)::int from mdame.dimensions where id = 'bad-task'), 0, 'and nothing is stored');

select * from finish();
rollback;
