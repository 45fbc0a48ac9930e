begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.create_dimension('{"id": "pgtap-cap", "display_name": "PgTAP", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}}'::jsonb);
select is((select captions from mdame.dimensions where id = 'pgtap-cap'), '{"profile": "platforms"}'::jsonb, 'a dimension without captions follows its platforms');

select mdame.create_dimension('{"id": "pgtap-tiktok", "display_name": "PgTAP", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}, "captions": {"profile": "tiktok"}}'::jsonb);
select is((select captions->>'profile' from mdame.dimensions where id = 'pgtap-tiktok'), 'tiktok', 'a chosen profile is stored');

select throws_ok(
  $$select mdame.create_dimension('{"id": "pgtap-vine", "display_name": "PgTAP", "language": "en", "tts_voice": "en-US-AriaNeural", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}, "captions": {"profile": "vine"}}'::jsonb)$$,
  '23514', null, 'an unknown profile breaks the table''s check');

select * from finish();
rollback;
