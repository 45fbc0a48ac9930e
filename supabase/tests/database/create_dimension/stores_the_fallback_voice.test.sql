begin;
\ir ../_fixtures.psql
select plan(3);

select is((select tts_fallback_voice from mdame.create_dimension('{"id": "pgtap-voice", "display_name": "PgTAP", "language": "en", "tts_voice": "en-US-AriaNeural", "tts_fallback_voice": "Puck", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}}'::jsonb)),
  'Puck', 'the named Gemini voice is stored');
select is((select tts_fallback_voice from mdame.create_dimension('{"id": "pgtap-voice-default", "display_name": "PgTAP", "language": "id", "tts_voice": "id-ID-GadisNeural", "trend_geo": "ID", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}}'::jsonb)),
  null, 'none named: null, the language default');
select throws_ok($$select mdame.create_dimension('{"id": "pgtap-voice-bad", "display_name": "PgTAP", "language": "en", "tts_voice": "en-US-AriaNeural", "tts_fallback_voice": "Nobody", "trend_geo": "US", "style": {"palette": ["#000000", "#ffffff"], "motion": "drift", "caption_font": "DejaVu Sans"}}'::jsonb)$$,
  '23514', null, 'a voice Gemini does not have is refused');

select * from finish();
rollback;
